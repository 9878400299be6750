/* test_tsc_choice.c - which TSC frequency wins and which fence orders RDTSC, on the recorded CPUID tables of tests/unit/topo_fixtures.h (i5-6600 Skylake, i3-1215U Alder Lake, Ryzen 1800X and 5950X, Opteron 2380, Hygon, QEMU), InstLatx64 dumps (Goldmont, Ice Lake, Denverton) and a few modelled parts. */
#include "check.h"
#include "topo_fixtures.h"
#include "tsc_choice.h"

/* ---- Recorded leaves ------------------------------------------------------- */
/* Leaves 0, 1, 15h and 16h as InstLatx64 recorded them
 * (github.com/InstLatx64/InstLatx64, commit 087af2c, GenuineIntel/...):
 * nothing else is needed to choose a frequency. */
/* GenuineIntel00506C9_Goldmont_CPUID.txt: Pentium N4200, max leaf 15h,
 * 15h = 3 / 0xAB / 0x0124F800 (19.2 MHz crystal): 1094.4 MHz. */
static const struct fx_leaf fx_goldmont[] = {
	{ 0x0, 0, 0x00000015, FX_INTEL },
	{ 0x1, 0, 0x000506c9, 0x00200800, 0x4ff8ebbf, 0xbfebfbff },
	{ 0x15, 0, 0x00000003, 0x000000ab, 0x0124f800, 0 },
};
/* GenuineIntel00706E5_IceLakeY_CPUID.txt: Core i7-1065G7, 15h = 2 / 0x4E /
 * 0x0249F000 (38.4 MHz): 1497.6 MHz; 16h base 0x5DC = 1500 MHz. */
static const struct fx_leaf fx_icelake[] = {
	{ 0x0, 0, 0x0000001b, FX_INTEL },
	{ 0x1, 0, 0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff },
	{ 0x15, 0, 0x00000002, 0x0000004e, 0x0249f000, 0 },
	{ 0x16, 0, 0x000005dc, 0x00000f3c, 0x00000064, 0 },
};
/* GenuineIntel00506F1_Denverton_CPUID.txt: Atom C3958, max leaf 15h,
 * 15h = 3 / 0xF0 / 0 (no crystal; Linux assumes 25 MHz), no leaf 16h. */
static const struct fx_leaf fx_denverton[] = {
	{ 0x0, 0, 0x00000015, FX_INTEL },
	{ 0x1, 0, 0x000506f1, 0x00200800, 0x4ff8ebbf, 0xbfebfbff },
	{ 0x15, 0, 0x00000003, 0x000000f0, 0x00000000, 0 },
};
static const struct fx_model m_goldmont = FX_MODEL("N4200", fx_goldmont);
static const struct fx_model m_icelake = FX_MODEL("i7-1065G7", fx_icelake);
static const struct fx_model m_denverton = FX_MODEL("C3958", fx_denverton);

/* ---- Helpers -------------------------------------------------------------- */
static void snap_of(const struct fx_cpu *c, struct cpuid_snap *s)
{
	memset(s, 0, sizeof(*s));
	cpuid_snap_fill(s, fx_query, (void *)c);
}

static void snap_model(const struct fx_model *m, struct cpuid_snap *s)
{
	struct fx_cpu c = FXC(0, m);
	snap_of(&c, s);
}

/* ---- Frequency ------------------------------------------------------------ */
/* Skylake client: leaf 15h EAX=2 EBX=0x11a ECX=0 (no crystal), leaf 16h 3300
 * MHz. The frequency is only an estimate: a measurement must win. */
TEST(skylake_leaf16_is_an_estimate)
{
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_model(&m_skylake, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 3300000000ull);
	CHECK(!c.exact);
	CHECK_STR(c.leaf, "16h");
	/* Measured 3312 MHz (a 100.36 MHz BCLK): 0.36% away, flagged, measured wins. */
	tsc_choice_pick(&c, 3312000000ull, "hpet", &p);
	CHECK_EQ_U(p.hz, 3312000000ull);
	CHECK_STR(p.source, "hpet");
	CHECK(p.have_ppm);
	CHECK_EQ_U(p.disagree_ppm, 3623);
	CHECK(p.disagree);
	/* Nothing measured: the estimate is all there is. */
	tsc_choice_pick(&c, 0, "none", &p);
	CHECK_EQ_U(p.hz, 3300000000ull);
	CHECK_STR(p.source, "cpuid-16h");
	CHECK(!p.have_ppm);
	CHECK(!p.disagree);
}

/* Alder Lake-U: leaf 15h gives the 38.4 MHz crystal (ECX=0x0249f000) and
 * 156/2: 2995.2 MHz, exact. It wins even against a measurement. */
TEST(alder_lake_crystal_is_exact)
{
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_model(&m_adl_p, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 2995200000ull);
	CHECK(c.exact);
	CHECK_STR(c.leaf, "15h");
	tsc_choice_pick(&c, 2995201000ull, "pm-timer", &p);
	CHECK_EQ_U(p.hz, 2995200000ull);
	CHECK_STR(p.source, "cpuid-15h");
	CHECK_EQ_U(p.disagree_ppm, 0);
	CHECK(!p.disagree);
	/* A measurement 0.2% off is reported, but does not override. */
	tsc_choice_pick(&c, 2989210000ull, "hpet", &p);
	CHECK_STR(p.source, "cpuid-15h");
	CHECK_EQ_U(p.disagree_ppm, 2004);
	CHECK(p.disagree);
}

/* Goldmont (19.2 MHz) and Ice Lake (38.4 MHz) give the crystal: exact. Ice
 * Lake's leaf 16h says 1500 MHz, 1603 ppm off: it is ignored, and alone it
 * would be only an estimate that a measurement overrides. */
TEST(goldmont_and_ice_lake_crystals)
{
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_model(&m_goldmont, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 1094400000ull);
	CHECK(c.exact);
	snap_model(&m_icelake, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 1497600000ull);
	CHECK(c.exact);
	CHECK_STR(c.leaf, "15h");
	tsc_choice_pick(&c, 1497600000ull, "hpet", &p);
	CHECK_STR(p.source, "cpuid-15h");
	CHECK_EQ_U(p.disagree_ppm, 0);

	struct fx_cpu no15 = { .apic = 0, .model = &m_icelake, .hide = 0x15 };
	snap_of(&no15, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 1500000000ull);
	CHECK(!c.exact);
	tsc_choice_pick(&c, 1497600000ull, "hpet", &p);
	CHECK_EQ_U(p.hz, 1497600000ull);
	CHECK_STR(p.source, "hpet");
	CHECK_EQ_U(p.disagree_ppm, 1603);
	CHECK(p.disagree);
}

/* Denverton: a ratio without a crystal and no leaf 16h. Linux assumes a 25
 * MHz crystal from the model; here that is no CPUID value at all, and the
 * measurement is used. */
TEST(denverton_ratio_only)
{
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_model(&m_denverton, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 0);
	tsc_choice_pick(&c, 2000000000ull, "pm-timer", &p);
	CHECK_EQ_U(p.hz, 2000000000ull);
	CHECK_STR(p.source, "pm-timer");
	CHECK(!p.have_ppm);
}

/* Leaf 15h without a crystal and no leaf 16h (modelled: the Skylake table
 * with 16h hidden): CPUID gives nothing, the measurement is used. */
TEST(ratio_without_crystal_gives_nothing)
{
	struct fx_cpu cpu = { .apic = 0, .model = &m_skylake, .hide = 0x16 };
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_of(&cpu, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 0);
	CHECK(c.leaf == NULL);
	tsc_choice_pick(&c, 3312000000ull, "hpet", &p);
	CHECK_EQ_U(p.hz, 3312000000ull);
	CHECK(!p.have_ppm);
}

/* AMD has neither leaf: the measurement, or nothing. */
TEST(amd_has_no_cpuid_frequency)
{
	struct cpuid_snap s;
	struct tsc_cpuid_freq c;
	struct tsc_pick p;
	snap_model(&m_zen3, &s);
	tsc_choice_cpuid(&s, &c);
	CHECK_EQ_U(c.hz, 0);
	tsc_choice_pick(&c, 3400000000ull, "hpet", &p);
	CHECK_STR(p.source, "hpet");
	tsc_choice_pick(&c, 0, "none", &p);
	CHECK_EQ_U(p.hz, 0);
	CHECK_STR(p.source, "unknown");
}

/* Exactly 0.1% apart is not a disagreement; just past it is. */
TEST(disagreement_threshold)
{
	struct tsc_cpuid_freq c = { .hz = 1001000000ull, .exact = false, .leaf = "16h" };
	struct tsc_pick p;
	tsc_choice_pick(&c, 1000000000ull, "hpet", &p);
	CHECK_EQ_U(p.disagree_ppm, 1000);
	CHECK(!p.disagree);
	c.hz = 1001001000ull;
	tsc_choice_pick(&c, 1000000000ull, "hpet", &p);
	CHECK_EQ_U(p.disagree_ppm, 1001);
	CHECK(p.disagree);
	c.hz = 998999000ull;
	tsc_choice_pick(&c, 1000000000ull, "hpet", &p);
	CHECK_EQ_U(p.disagree_ppm, 1001);
}

/* ---- Fence ----------------------------------------------------------------- */
TEST(intel_lfence_is_architectural)
{
	struct cpuid_snap s;
	snap_model(&m_skylake, &s);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_NONE, TSC_DE_CFG_NOT_TRIED)),
		  "lfence (architectural)");
	snap_model(&m_adl_p, &s);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
}

/* Family 10h (Opteron 2380), 17h (Ryzen 1800X, no leaf 8000_0021h), 18h
 * (Hygon): DE_CFG[1] is needed. */
TEST(amd_10h_to_18h_need_de_cfg)
{
	const struct fx_model *models[] = { &m_opteron, &m_zen1, &m_hygon, &m_qemu_epyc };
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		struct cpuid_snap s;
		snap_model(models[i], &s);
		if (tsc_choice_fence_need(&s) != TSC_FENCE_NEED_DE_CFG)
			printf("  %s: family 0x%x\n", models[i]->name, cpuid_snap_family(&s));
		CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_DE_CFG);
	}
}

TEST(de_cfg_outcomes)
{
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_SET)),
		  "lfence (DE_CFG set)");
	/* safe: no MSR writes, so MFENCE;LFENCE */
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_NOT_TRIED)),
		  "mfence+lfence");
	/* #GP, or a hypervisor that drops the write */
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_FAILED)),
		  "mfence+lfence");
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_BY_OS)),
		  "lfence (DE_CFG set by the OS)");
	CHECK_STR(tsc_choice_fence_name(tsc_choice_fence(TSC_FENCE_NEED_MFENCE, TSC_DE_CFG_SET)),
		  "mfence+lfence");
}

/* rdtsc_fence_why: nothing to say where LFENCE orders RDTSC by architecture
 * or the bit was read back; the twin's LFENCE says it is the OS's word, and
 * each MFENCE;LFENCE says why. */
TEST(fence_why)
{
	CHECK(tsc_choice_fence_why(TSC_FENCE_NEED_NONE, TSC_DE_CFG_BY_OS) == NULL);
	CHECK(tsc_choice_fence_why(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_SET) == NULL);
	const char *os = tsc_choice_fence_why(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_BY_OS);
	CHECK(os && !strncmp(os, "by the OS: ", 11) && strstr(os, "8000_0021h:EAX[2]") && strstr(os, "Linux"));
	CHECK_STR(tsc_choice_fence_why(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_NOT_TRIED),
		  "safe: no MSR writes, DE_CFG[1] left clear");
	CHECK_STR(tsc_choice_fence_why(TSC_FENCE_NEED_DE_CFG, TSC_DE_CFG_FAILED),
		  "DE_CFG[1] could not be set (#GP, or the write did not stick)");
	CHECK_STR(tsc_choice_fence_why(TSC_FENCE_NEED_MFENCE, TSC_DE_CFG_NOT_TRIED),
		  "LFENCE is not known to order RDTSC on this vendor");
}

/* 8000_0021h:EAX[2] LFenceAlwaysSerializing (AMD APM vol. 3, modelled on the
 * 5950X table): no DE_CFG needed. Without the bit, family 19h asks for it as
 * Linux does. */
TEST(amd_lfence_always_serialising_bit)
{
	static const struct fx_leaf ext21_set[] = { { 0x80000021, 0, 1u << 2, 0, 0, 0 } };
	struct fx_cpu with = FXO(0, &m_zen3, ext21_set);
	struct cpuid_snap s;
	snap_of(&with, &s);
	CHECK(s.have_ext21);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
	snap_model(&m_zen3, &s);
	CHECK_EQ_U(cpuid_snap_family(&s), 0x19);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_DE_CFG);
}

/* Families 0Fh and 11h serialise without DE_CFG (AMD's paper); QEMU's
 * "max" says AMD family 6. Another vendor (modelled Centaur) gets MFENCE. */
TEST(amd_old_families_and_other_vendors)
{
	static const struct fx_leaf fam11[] = { { 0x1, 0, 0x00200f31, 0x00000800, 0, 0x178bfbff } };
	static const struct fx_leaf fam0f[] = { { 0x1, 0, 0x00040f12, 0x00000800, 0, 0x178bfbff } };
	static const struct fx_leaf centaur[] = { { 0x0, 0, 0x0000000d, 0x746e6543, 0x736c7561, 0x48727561 } };
	struct fx_cpu c11 = FXO(0, &m_opteron, fam11), c0f = FXO(0, &m_opteron, fam0f);
	struct fx_cpu cc = FXO(0, &m_skylake, centaur);
	struct cpuid_snap s;
	snap_of(&c11, &s);
	CHECK_EQ_U(cpuid_snap_family(&s), 0x11);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
	snap_of(&c0f, &s);
	CHECK_EQ_U(cpuid_snap_family(&s), 0x0f);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
	snap_model(&m_qemu, &s);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_NONE);
	snap_of(&cc, &s);
	CHECK_EQ_U(tsc_choice_fence_need(&s), TSC_FENCE_NEED_MFENCE);
}

int main(void)
{
	RUN(skylake_leaf16_is_an_estimate);
	RUN(alder_lake_crystal_is_exact);
	RUN(fence_why);
	RUN(goldmont_and_ice_lake_crystals);
	RUN(denverton_ratio_only);
	RUN(ratio_without_crystal_gives_nothing);
	RUN(amd_has_no_cpuid_frequency);
	RUN(disagreement_threshold);
	RUN(intel_lfence_is_architectural);
	RUN(amd_10h_to_18h_need_de_cfg);
	RUN(de_cfg_outcomes);
	RUN(amd_lfence_always_serialising_bit);
	RUN(amd_old_families_and_other_vendors);
	return check_summary("tsc_choice");
}
