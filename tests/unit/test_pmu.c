/* test_pmu.c - host tests of PMU detection and event plans on recorded and
 * modelled CPUID tables (Intel SDM vol. 2A CPUID leaf 0AH and vol. 3B
 * ch. 20; AMD APM vol. 3 CPUID 8000_0001h/8000_0022h), replayed through
 * cpuid_snap_fill(), and of pmu_start/read/stop on a fake MSR file. */
#include "check.h"
#include "msr.h"
#include "pmu.h"
#include "topo_fixtures.h"

/* ---- CPUID tables ---------------------------------------------------------- */

/*
 * Leaf 0xA values follow the SDM fields: EAX = version | GP counters << 8 |
 * GP width << 16 | EBX length << 24, EDX = fixed counters | fixed width << 5
 * (| bit 15 AnyThread deprecation on version 5). Counter counts and widths
 * are each part's documented ones.
 */

/* Intel Core Duo T2400 (Yonah, family 6 model 0Eh): PMU version 1, two
 * 40-bit counters, no fixed counters, no global control. */
static const struct fx_leaf fx_yonah[] = {
	{ 0x0, 0, 0x0000000a, FX_INTEL },
	{ 0x1, 0, 0x000006e8, 0x00020800, 0x0000c1a9, 0xbfe9fbff },
	{ 0xa, 0, 0x07280201, 0x00000000, 0x00000000, 0x00000000 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000000, 0x00100000 },
};

/* Intel Core 2 Duo E6600 (Conroe, family 6 model 0Fh): version 2, two
 * 40-bit GP and three 40-bit fixed counters. */
static const struct fx_leaf fx_conroe[] = {
	{ 0x0, 0, 0x0000000a, FX_INTEL },
	{ 0x1, 0, 0x000006f6, 0x00020800, 0x0000e3bd, 0xbfebfbff },
	{ 0xa, 0, 0x07280202, 0x00000000, 0x00000000, 0x00000503 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000001, 0x20100000 },
};

/* Intel Core i7-1065G7 (Ice Lake client, family 6 model 7Eh): version 5,
 * eight 48-bit GP counters, four fixed (ECX bit mask 0xF, EDX[4:0] 4). */
static const struct fx_leaf fx_icelake[] = {
	{ 0x0, 0, 0x0000001b, FX_INTEL },
	{ 0x1, 0, 0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff },
	{ 0x6, 0, 0x0017f7f7, 0x00000002, 0x00000009, 0x00000000 },
	{ 0xa, 0, 0x08300805, 0x00000000, 0x0000000f, 0x00008604 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000121, 0x2c100800 },
};

/* Leaf 0xA overrides for the shared fixture parts. */
static const struct fx_leaf ov_sandy[] = {	/* E5-2637, HT on: v3, 4 GP x 48, 3 fixed */
	{ 0xa, 0, 0x07300403, 0x00000000, 0x00000000, 0x00000603 },
};
static const struct fx_leaf ov_skylake[] = {	/* i5-6600, no HT: v4, 8 GP x 48, 3 fixed */
	{ 0xa, 0, 0x07300804, 0x00000000, 0x00000000, 0x00000603 },
};
static const struct fx_leaf ov_atom[] = {	/* Atom D525 (Bonnell): v3, 2 GP x 40, 3 fixed */
	{ 0xa, 0, 0x07280203, 0x00000000, 0x00000000, 0x00000503 },
};
/* Modelled: Skylake with EBX bit 4 (LLC Misses) set, as the SDM allows. */
static const struct fx_leaf ov_skl_no_llc_miss[] = {
	{ 0xa, 0, 0x07300804, 0x00000010, 0x00000000, 0x00000603 },
};
/* Modelled: an EBX vector of length 4, so LLC Misses (bit 4) is outside it. */
static const struct fx_leaf ov_skl_len4[] = {
	{ 0xa, 0, 0x04300804, 0x00000000, 0x00000000, 0x00000603 },
};
/* Modelled version 5 with EDX[4:0] = 0 and ECX = 0x5: fixed counters 0 and
 * 2 only, so cycles (fixed 1) needs a GP counter. */
static const struct fx_leaf ov_skl_v5_sparse[] = {
	{ 0xa, 0, 0x07300405, 0x00000000, 0x00000005, 0x00000600 },
};
static const struct fx_leaf ov_skl_leafa_zero[] = {
	{ 0xa, 0, 0, 0, 0, 0 },
};
/* KVM guest on Skylake: hypervisor bit (leaf 1 ECX[31]) and a vPMU leaf. */
static const struct fx_leaf ov_skl_kvm[] = {
	{ 0x1, 0, 0x000506e3, 0x00100800, 0xfffa3203, 0x0f8bfbff },
	{ 0xa, 0, 0x07300804, 0x00000000, 0x00000000, 0x00000603 },
};
/* AMD Ryzen 9 3900X (Zen 2, family 17h model 71h) on the Zen 1 table. */
static const struct fx_leaf ov_zen2[] = {
	{ 0x1, 0, 0x00870f10, 0x00100800, 0x7ed8320b, 0x178bfbff },
	{ 0x80000001, 0, 0x00870f10, 0x20000000, 0x75c237ff, 0x2fd3fbff },
};
/* AMD Ryzen 9 7950X (Zen 4, family 19h model 61h) on the Zen 3 table:
 * 8000_0022h EAX PerfMonV2 | LbrStack | LbrAndPmcFreeze, EBX NumPerfCtrCore 6,
 * LbrV2StackSize 16, NumPerfCtrNB 4. */
static const struct fx_leaf ov_zen4[] = {
	{ 0x1, 0, 0x00a60f12, 0x00200800, 0x7ef8320b, 0x178bfbff },
	{ 0x80000000, 0, 0x80000028, FX_AMD },
	{ 0x80000001, 0, 0x00a60f12, 0x00000000, 0x75c237ff, 0x2fd3fbff },
	{ 0x80000022, 0, 0x00000007, 0x00001106, 0x00000000, 0x00000000 },
};
/* Modelled on the family 15h BKDG: FX-8150 (Bulldozer, 15h model 01h) has
 * PerfCtrExtCore (bit 23) and PerfCtrExtNB (bit 24) but no L3 counters. */
static const struct fx_leaf ov_bulldozer[] = {
	{ 0x1, 0, 0x00600f12, 0x00100800, 0x1e98220b, 0x178bfbff },
	{ 0x80000001, 0, 0x00600f12, 0x10000000, 0x01c9bfff, 0x2fd3fbff },
};

static const struct fx_model m_yonah = FX_MODEL("core duo t2400", fx_yonah);
static const struct fx_model m_conroe = FX_MODEL("core 2 e6600", fx_conroe);
static const struct fx_model m_icelake = FX_MODEL("i7-1065g7", fx_icelake);

static struct cpuid_snap S;

/* Snapshots CPU 0 of model m with overrides ov (may be NULL). */
static struct pmu_caps caps_of(const struct fx_model *m, const struct fx_leaf *ov,
			       size_t nov)
{
	struct fx_cpu c = { .apic = 0, .model = m, .over = ov, .nover = nov };

	fx_snap(&c, &S);
	return pmu_detect(&S);
}

#define CAPS(m, ov) caps_of(m, ov, ARRAY_SIZE(ov))
#define CAPS0(m) caps_of(m, NULL, 0)

#define EVTSEL(ev, um) ((uint64_t)(ev) | (uint64_t)(um) << 8 | PERFEVTSEL_USR | \
			PERFEVTSEL_OS | PERFEVTSEL_EN)

#define CHECK_EV(p, i, name_, sel, val, ctr, w)                                \
	do {                                                                   \
		CHECK((i) < (p).n);                                            \
		CHECK_STR((p).ev[i].name, name_);                              \
		CHECK_EQ_U((p).ev[i].sel_msr, sel);                            \
		CHECK_EQ_U((p).ev[i].sel_value, val);                          \
		CHECK_EQ_U((p).ev[i].ctr_msr, ctr);                            \
		CHECK_EQ_U((p).ev[i].width, w);                                \
	} while (0)

/* ---- Fake MSR file --------------------------------------------------------- */

#define FAKE_MSRS 64
static struct { uint32_t msr; uint64_t v; } fake[FAKE_MSRS];
static size_t n_fake;
static unsigned fake_writes;

static uint64_t *fake_slot(uint32_t msr)
{
	for (size_t i = 0; i < n_fake; i++)
		if (fake[i].msr == msr)
			return &fake[i].v;
	if (n_fake == FAKE_MSRS)
		return NULL;
	fake[n_fake].msr = msr;
	fake[n_fake].v = 0;
	return &fake[n_fake++].v;
}

static uint64_t fake_rd(uint32_t msr)
{
	uint64_t *p = fake_slot(msr);

	return p ? *p : 0;
}

static void fake_wr(uint32_t msr, uint64_t v)
{
	uint64_t *p = fake_slot(msr);

	if (p)
		*p = v;
	fake_writes++;
}

static void fake_reset(void)
{
	n_fake = 0;
	fake_writes = 0;
}

/* ---- Intel ------------------------------------------------------------------ */

TEST(intel_v1_core_duo)
{
	struct pmu_caps c = CAPS0(&m_yonah);
	struct pmu_plan p;

	CHECK(c.kind == PMU_INTEL_ARCH);
	CHECK_EQ_U(c.version, 1);
	CHECK_EQ_U(c.n_gp, 2);
	CHECK_EQ_U(c.gp_width, 40);
	CHECK_EQ_U(c.n_fixed, 0);
	CHECK(!c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "intel arch v1, 2 gp x 40 bit");
	/* Two GP counters: the LLC pair fills them, no room for cycles. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 2);
	CHECK_EV(p, 0, "llc_references", MSR_IA32_PERFEVTSEL0, EVTSEL(0x2E, 0x4F), MSR_IA32_PMC0, 40);
	CHECK_EV(p, 1, "llc_misses", MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0x2E, 0x41), MSR_IA32_PMC0 + 1, 40);
	CHECK_EQ_U(p.global_msr, 0);
	CHECK_EQ_U(p.global_value, 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EV(p, 0, "cycles", MSR_IA32_PERFEVTSEL0, EVTSEL(0x3C, 0), MSR_IA32_PMC0, 40);
	CHECK_EV(p, 1, "instructions", MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0xC0, 0), MSR_IA32_PMC0 + 1, 40);
}

TEST(intel_v2_core2)
{
	struct pmu_caps c = CAPS0(&m_conroe);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 2);
	CHECK_EQ_U(c.n_fixed, 3);
	CHECK_EQ_U(c.fixed_width, 40);
	CHECK(c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "intel arch v2, 2 gp x 40 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 2, "cycles", MSR_IA32_FIXED_CTR_CTRL, 0x30, MSR_IA32_FIXED_CTR0 + 1, 40);
	CHECK_EV(p, 3, "instructions", MSR_IA32_FIXED_CTR_CTRL, 0x03, MSR_IA32_FIXED_CTR0, 40);
	CHECK(p.ev[2].fixed && p.ev[3].fixed && !p.ev[0].fixed);
	CHECK_EQ_U(p.ev[2].sel_mask, 0xF0);
	CHECK_EQ_U(p.global_msr, MSR_IA32_PERF_GLOBAL_CTRL);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
}

/* Nehalem-class version 3 (the Sandy Bridge-EP fixture with HT: 4 GP). */
TEST(intel_v3_sandy_bridge)
{
	struct pmu_caps c = CAPS(&m_sandy, ov_sandy);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 3);
	CHECK_EQ_U(c.model, 0x2D);
	CHECK_STR(pmu_describe(&c), "intel arch v3, 4 gp x 48 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 3);
	CHECK_STR(p.note, "coherence via llc_misses");
	CHECK_EV(p, 0, "llc_misses", MSR_IA32_PERFEVTSEL0, EVTSEL(0x2E, 0x41), MSR_IA32_PMC0, 48);
	CHECK_EQ_U(p.global_value, 0x300000001ull);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 0);
	CHECK_STR(p.why, "intel: no architectural L1/L2 event");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 0);
	CHECK_STR(p.why, "intel: no architectural TLB event");
}

TEST(intel_v3_atom_fixed_offload)
{
	struct pmu_caps c = CAPS(&m_atom, ov_atom);
	struct pmu_plan p;

	CHECK_STR(pmu_describe(&c), "intel arch v3, 2 gp x 40 bit, 3 fixed");
	/* Both GP counters on the LLC pair, cycles and instructions fixed. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_STR(p.ev[2].name, "cycles");
	CHECK(p.ev[2].fixed);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
}

TEST(intel_v4_skylake)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	CHECK(c.kind == PMU_INTEL_ARCH);
	CHECK_EQ_U(c.version, 4);
	CHECK_EQ_U(c.n_gp, 8);
	CHECK_EQ_U(c.arch_len, 7);
	CHECK_STR(pmu_describe(&c), "intel arch v4, 8 gp x 48 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0x186, 0x434F2Eull, 0xC1, 48);
	CHECK_EV(p, 1, "llc_misses", 0x187, 0x43412Eull, 0xC2, 48);
	CHECK_EV(p, 2, "cycles", 0x38D, 0x30, 0x30A, 48);
	CHECK_EV(p, 3, "instructions", 0x38D, 0x03, 0x309, 48);
	CHECK_EQ_U(p.global_msr, 0x38F);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
	CHECK(p.note == NULL);
	for (uint32_t i = 0; i < p.n; i++)
		CHECK(p.ev[i].scope == PMU_SCOPE_THREAD);
	/* Cycles and instructions alone use only the fixed counters. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EQ_U(p.global_value, 0x300000000ull);
}

TEST(intel_v5_icelake)
{
	struct pmu_caps c = CAPS0(&m_icelake);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 5);
	CHECK_EQ_U(c.n_fixed, 4);
	CHECK_EQ_U(c.fixed_mask, 0xF);
	CHECK_EQ_U(c.arch_len, 8);
	CHECK_STR(pmu_describe(&c), "intel arch v5, 8 gp x 48 bit, 4 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
}

/* Version 5 fixed-counter bit mask: counter 1 (cycles) absent. */
TEST(intel_v5_sparse_fixed)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skl_v5_sparse);
	struct pmu_plan p;

	CHECK_EQ_U(c.fixed_mask, 0x5);
	CHECK_EQ_U(c.n_fixed, 3);
	CHECK_STR(pmu_describe(&c), "intel arch v5, 4 gp x 48 bit, 2 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EV(p, 0, "cycles", 0x186, EVTSEL(0x3C, 0), 0xC1, 48);
	CHECK(!p.ev[0].fixed);
	CHECK_EV(p, 1, "instructions", 0x38D, 0x03, 0x309, 48);
	CHECK_EQ_U(p.global_value, 0x100000001ull);
}

TEST(intel_unavailable_events)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skl_no_llc_miss);
	struct pmu_plan p;

	CHECK_EQ_U(c.arch_unavail, 0x10);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 3);
	CHECK_STR(p.ev[0].name, "llc_references");
	for (uint32_t i = 0; i < p.n; i++)
		CHECK(strcmp(p.ev[i].name, "llc_misses") != 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 0);
	CHECK_STR(p.why, "intel: llc_misses unavailable (CPUID.0AH:EBX)");

	c = CAPS(&m_skylake, ov_skl_len4);
	CHECK_EQ_U(c.arch_len, 4);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 3);
	CHECK_STR(p.ev[1].name, "cycles");
}

/* ---- AMD -------------------------------------------------------------------- */

#define L3_17H (L3_PMC_17H_SLICE_MASK | L3_PMC_17H_THREAD_MASK | PERFEVTSEL_EN)
#define L3_19H (L3_PMC_19H_EN_ALL_SLICES | L3_PMC_19H_EN_ALL_CORES | \
		L3_PMC_19H_THREAD_MASK | PERFEVTSEL_EN)

TEST(amd_zen1)
{
	struct pmu_caps c = CAPS0(&m_zen1);
	struct pmu_plan p;

	CHECK(c.kind == PMU_AMD_CORE_EXT);
	CHECK_EQ_U(c.family, 0x17);
	CHECK_EQ_U(c.n_gp, 6);
	CHECK_EQ_U(c.n_l3, 6);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0xC0010230, 0xFF04 | L3_17H, 0xC0010231, 48);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0106 | L3_17H, 0xC0010233, 48);
	CHECK(p.ev[0].scope == PMU_SCOPE_L3 && p.ev[1].scope == PMU_SCOPE_L3);
	CHECK_EV(p, 2, "cycles", 0xC0010200, EVTSEL(0x76, 0), 0xC0010201, 48);
	CHECK_EV(p, 3, "instructions", 0xC0010202, EVTSEL(0xC0, 0), 0xC0010203, 48);
	CHECK(p.ev[2].scope == PMU_SCOPE_THREAD);
	CHECK_EQ_U(p.global_msr, 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 4);
	CHECK_EV(p, 0, "coherence_fills", 0xC0010200, EVTSEL(0x43, 0x12), 0xC0010201, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010202, EVTSEL(0x64, 0x08), 0xC0010203, 48);
}

TEST(amd_zen2)
{
	struct pmu_caps c = CAPS(&m_zen1, ov_zen2);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x17);
	CHECK_EQ_U(c.model, 0x71);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 4);
	CHECK_EV(p, 0, "l1d_misses", 0xC0010200, EVTSEL(0x60, 0xC8), 0xC0010201, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010202, EVTSEL(0x64, 0x08), 0xC0010203, 48);
	CHECK(p.note == NULL);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 4);
	CHECK_EV(p, 0, "dtlb_misses", 0xC0010200, EVTSEL(0x45, 0xFF), 0xC0010201, 48);
	CHECK_EV(p, 1, "dtlb_walks", 0xC0010202, EVTSEL(0x45, 0xF0), 0xC0010203, 48);
}

TEST(amd_zen3)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x19);
	CHECK_EQ_U(c.model, 0x21);
	CHECK_EQ_U(c.version, 1);	/* 0x80000022 reads zero: no PerfMonV2 */
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0xC0010230, 0xFF04 | L3_19H, 0xC0010231, 48);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0106 | L3_19H, 0xC0010233, 48);
	CHECK_STR(p.note, "l3 counters count every core sharing the L3");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 4);
	CHECK_EV(p, 0, "coherence_fills", 0xC0010200, EVTSEL(0x43, 0x16), 0xC0010201, 48);
}

TEST(amd_zen4_perfmon_v2)
{
	struct pmu_caps c = CAPS(&m_zen3, ov_zen4);
	struct pmu_plan p;

	CHECK_EQ_U(c.model, 0x61);
	CHECK_EQ_U(c.version, 2);
	CHECK(c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "amd perfmon v2, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0104 | L3_19H, 0xC0010233, 48);
	CHECK_EQ_U(p.global_msr, 0xC0000301);
	CHECK_EQ_U(p.global_value, 0x3);	/* GP 0 and 1; L3 counters have no global bit */
}

TEST(amd_bulldozer_ext_core_pre_zen)
{
	struct pmu_caps c = CAPS(&m_zen1, ov_bulldozer);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x15);
	CHECK(c.kind == PMU_AMD_CORE_EXT);
	CHECK_EQ_U(c.n_l3, 0);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "l2_requests", 0xC0010200, EVTSEL(0x7D, 0x03), 0xC0010201, 48);
	CHECK_STR(p.note, "llc via l2_requests and l2_misses");
}

/* Family 10h: no PerfCtrExtCore, four legacy counters at C001_0000. */
TEST(amd_legacy_opteron)
{
	struct pmu_caps c = CAPS0(&m_opteron);
	struct pmu_plan p;

	CHECK(c.kind == PMU_AMD_LEGACY);
	CHECK_EQ_U(c.family, 0x10);
	CHECK_EQ_U(c.n_gp, 4);
	CHECK_EQ_U(c.n_l3, 0);
	CHECK_STR(pmu_describe(&c), "amd legacy, 4 gp");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 4);
	CHECK_EV(p, 0, "l1d_misses", 0xC0010000, EVTSEL(0x41, 0x01), 0xC0010004, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010001, EVTSEL(0x7E, 0x03), 0xC0010005, 48);
	CHECK_EV(p, 2, "cycles", 0xC0010002, EVTSEL(0x76, 0), 0xC0010006, 48);
	CHECK_EV(p, 3, "instructions", 0xC0010003, EVTSEL(0xC0, 0), 0xC0010007, 48);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 3);
	CHECK_EV(p, 0, "dtlb_misses", 0xC0010000, EVTSEL(0x46, 0x07), 0xC0010004, 48);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 3);
	CHECK_STR(p.note, "coherence via l2_misses");
}

/* ---- None ------------------------------------------------------------------- */

TEST(none_hypervisors_and_absent)
{
	struct pmu_caps c;
	struct pmu_plan p;

	c = CAPS0(&m_qemu);		/* QEMU TCG -cpu max: AMD, hypervisor */
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(pmu_describe(&c), "none");
	CHECK_STR(c.why, "hypervisor: counters are virtual or absent");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 0);
	CHECK_STR(p.why, "hypervisor: counters are virtual or absent");
	CHECK_EQ_U(p.global_msr, 0);

	c = CAPS0(&m_qemu_intel);	/* TCG, Intel vendor: leaf 0xA absent too */
	CHECK(c.kind == PMU_NONE);
	CHECK_EQ_U(c.n_gp, 0);

	c = CAPS(&m_skylake, ov_skl_kvm);	/* KVM vPMU: still none */
	CHECK(c.kind == PMU_NONE);
	CHECK_EQ_U(c.version, 0);

	c = CAPS(&m_skylake, ov_skl_leafa_zero);
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(c.why, "CPUID.0AH version 0");

	c = CAPS0(&m_skylake);		/* fixture without leaf 0xA data */
	CHECK(c.kind == PMU_NONE);

	c = CAPS0(&m_no_ext);		/* max basic leaf 2 */
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(c.why, "no CPUID leaf 0xA");
	CHECK_STR(pmu_describe(&c), "none");
}

TEST(snapshot_captures_new_leaves)
{
	fx_snap(&(struct fx_cpu)FXO(0, &m_skylake, ov_skylake), &S);
	CHECK(S.have_leafa);
	CHECK_EQ_U(S.leafa.eax, 0x07300804);
	CHECK(!S.have_ext22);		/* max extended leaf 0x80000008 */
	fx_snap(&(struct fx_cpu)FXO(0, &m_zen3, ov_zen4), &S);
	CHECK(S.have_ext22);
	CHECK_EQ_U(S.ext22.ebx, 0x1106);
	fx_snap(&(struct fx_cpu)FXC(0, &m_no_ext), &S);
	CHECK(!S.have_leafa && !S.have_ext22);
	CHECK_EQ_U(cpuid_snap_family(&S), 6);
	CHECK_EQ_U(cpuid_snap_model(&S), 7);
}

/* ---- Programming ------------------------------------------------------------ */

TEST(start_read_stop_intel)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;
	uint64_t v[PMU_MAX_EVENTS];

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB00);	/* someone's fixed counter 2 */
	fake_wr(MSR_IA32_PMC0, 1234);
	pmu_start(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERF_GLOBAL_CTRL), 0x300000003ull);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERFEVTSEL0), 0x434F2Eull);
	CHECK_EQ_U(fake_rd(MSR_IA32_PMC0), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_FIXED_CTR_CTRL), 0xB33);
	fake_wr(MSR_IA32_PMC0, 500);
	fake_wr(MSR_IA32_FIXED_CTR0, 9000);
	pmu_read(&p, true, fake_rd, v);
	CHECK_EQ_U(v[0], 500);
	CHECK_EQ_U(v[3], 9000);
	pmu_stop(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERFEVTSEL0), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_FIXED_CTR_CTRL), 0xB00);
}

TEST(start_l3_only_when_asked)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	pmu_start(&p, false, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0);
	CHECK_EQ_U(fake_rd(MSR_AMD_PERF_CTL0), EVTSEL(0x76, 0));
	CHECK_EQ_U(fake_writes, 6);	/* two core events: select 0, counter 0, select */
	pmu_start(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0xFF04 | L3_19H);
	pmu_stop(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0);
	CHECK_EQ_U(fake_rd(MSR_AMD_PERF_CTL0), 0);
}

/* A Zen 3 CCX (one L3) with four threads in a run: the L3 counter is one
 * register shared by them all. Read on every thread and summed, as before,
 * it came out four times; only the run's first CPU on the L3 reads it now. */
TEST(l3_counted_once_per_l3)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;
	uint64_t v[PMU_MAX_EVENTS], sum[PMU_MAX_EVENTS] = { 0 };
	uint32_t l3_of[4] = { 0, 0, 0, 0 };
	bool seen[2], counts[4];
	int l3 = -1;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	for (uint32_t e = 0; e < p.n; e++)
		if (p.ev[e].scope == PMU_SCOPE_L3)
			l3 = (int)e;
	CHECK(l3 >= 0);
	fake_reset();
	pmu_l3_counting(l3_of, 4, seen, 2, counts);
	CHECK(counts[0] && !counts[1] && !counts[2] && !counts[3]);
	fake_wr(p.ev[l3].ctr_msr, 1000);	/* what the L3 counted, for all four */
	for (int t = 0; t < 4; t++) {
		pmu_read(&p, counts[t], fake_rd, v);
		for (uint32_t e = 0; e < p.n; e++)
			sum[e] += v[e];
	}
	CHECK_EQ_U(sum[l3], 1000);
}

/* Which CPU of a run counts each L3: the run's first one on it, even when the
 * L3's first CPU of the machine is not in the run; none without an L3. */
TEST(l3_counting_cpu_per_run)
{
	uint32_t l3_of[7] = { 1, 1, 0, 2, 0, 1, 9 };
	bool seen[3], counts[7];

	pmu_l3_counting(l3_of, 7, seen, 3, counts);
	CHECK(counts[0] && !counts[1] && counts[2] && counts[3] && !counts[4] && !counts[5]);
	CHECK(!counts[6]);
	pmu_l3_counting(l3_of + 4, 2, seen, 3, counts);	/* a run of the machine's later CPUs */
	CHECK(counts[0] && counts[1]);
}

/* Linux's check_hw_exists: a select that is already counting belongs to the
 * firmware; a counter that drops what is written is not a counter. */
TEST(firmware_owned_counters)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), 0);
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB00);	/* fixed counter 2, not ours */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), 0);
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB03);	/* fixed counter 0 counts at CPL 0 and 3 */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_IA32_FIXED_CTR_CTRL);
	fake_reset();
	fake_wr(MSR_IA32_PERFEVTSEL0 + 1, 0x4300C0);	/* EN set on PERFEVTSEL1 */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_IA32_PERFEVTSEL0 + 1);
	fake_reset();
	fake_wr(MSR_IA32_PMC0, 77);
	CHECK(pmu_counter_holds(&p, fake_rd, fake_wr));
	CHECK_EQ_U(fake_rd(MSR_IA32_PMC0), 77);		/* put back */

	struct pmu_caps z = CAPS0(&m_zen3);
	pmu_plan(&z, PMU_GOAL_LLC, &p);
	fake_reset();
	fake_wr(MSR_AMD_L3_PMC_CFG0, PERFEVTSEL_EN);
	CHECK_EQ_U(pmu_in_use(&p, false, fake_rd), 0);	/* not this CPU's to check */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_AMD_L3_PMC_CFG0);
}

static uint64_t deaf_rd(uint32_t msr)
{
	(void)msr;
	return 0;
}

TEST(counter_that_ignores_writes)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	CHECK(!pmu_counter_holds(&p, deaf_rd, fake_wr));
}

TEST(delta_wraps_at_width)
{
	struct pmu_event e48 = { .width = 48 }, e40 = { .width = 40 };

	CHECK_EQ_U(pmu_delta(&e48, 100, 350), 250);
	CHECK_EQ_U(pmu_delta(&e48, 0xFFFFFFFFFFF0ull, 0x10), 0x20);
	CHECK_EQ_U(pmu_delta(&e40, 0xFFFFFFFFFFull, 0), 1);
	CHECK_STR(pmu_goal_name(PMU_GOAL_COHERENCE), "coherence");
	CHECK_STR(pmu_goal_name(PMU_GOAL_COUNT), "?");
}

int main(void)
{
	RUN(intel_v1_core_duo);
	RUN(intel_v2_core2);
	RUN(intel_v3_sandy_bridge);
	RUN(intel_v3_atom_fixed_offload);
	RUN(intel_v4_skylake);
	RUN(intel_v5_icelake);
	RUN(intel_v5_sparse_fixed);
	RUN(intel_unavailable_events);
	RUN(amd_zen1);
	RUN(amd_zen2);
	RUN(amd_zen3);
	RUN(amd_zen4_perfmon_v2);
	RUN(amd_bulldozer_ext_core_pre_zen);
	RUN(amd_legacy_opteron);
	RUN(none_hypervisors_and_absent);
	RUN(snapshot_captures_new_leaves);
	RUN(start_read_stop_intel);
	RUN(start_l3_only_when_asked);
	RUN(l3_counted_once_per_l3);
	RUN(l3_counting_cpu_per_run);
	RUN(firmware_owned_counters);
	RUN(counter_that_ignores_writes);
	RUN(delta_wraps_at_width);
	return check_summary("pmu");
}
