/* test_mstate.c - host tests of the turbo and prefetcher controls: detection
 * from recorded CPUID tables (Intel SDM vol. 2A leaf 6; AMD APM vol. 3
 * 8000_0007h), the plans for each option, and apply/restore on a fake MSR
 * file where restore must put back exactly the bits apply changed. */
#include "check.h"
#include "msr.h"
#include "mstate.h"
#include "topo_fixtures.h"

/* ---- CPUID tables ---------------------------------------------------------- */

/* Leaf 6 of a Xeon E5-2637 (Sandy Bridge-EP): DTS, Turbo, ARAT, PLN, ECMD,
 * PTM; ECX APERF/MPERF and EPB. */
static const struct fx_leaf ov_sandy6[] = {
	{ 0x6, 0, 0x00000077, 0x00000002, 0x00000009, 0 },
};
/* The i5-6600 with turbo disabled in firmware: IA32_MISC_ENABLE[38] set,
 * so leaf 6 EAX[1] reads 0 (SDM vol. 2A, leaf 6). */
static const struct fx_leaf ov_skl_turbo_hidden[] = {
	{ 0x6, 0, 0x000027f5, 0x00000002, 0x00000009, 0 },
};
/* Intel Celeron N3350 (Apollo Lake, Goldmont, family 6 model 5Ch). */
static const struct fx_leaf ov_goldmont[] = {
	{ 0x1, 0, 0x000506c9, 0x00020800, 0x4ff8ebbf, 0xbfebfbff },
	{ 0x6, 0, 0x00000077, 0x00000002, 0x00000009, 0 },
};
/* Intel Core i7-4770 (Haswell, family 6 model 3Ch). */
static const struct fx_leaf ov_haswell[] = {
	{ 0x1, 0, 0x000306c3, 0x00100800, 0x7ffafbff, 0xbfebfbff },
	{ 0x6, 0, 0x00000077, 0x00000002, 0x00000009, 0 },
};

static struct cpuid_snap S;

static struct mstate_caps caps_of(const struct fx_model *m, const struct fx_leaf *ov,
				  size_t nov)
{
	struct fx_cpu c = { .apic = 0, .model = m, .over = ov, .nover = nov };

	fx_snap(&c, &S);
	return mstate_detect(&S);
}

#define CAPS(m, ov) caps_of(m, ov, ARRAY_SIZE(ov))
#define CAPS0(m) caps_of(m, NULL, 0)

/* ---- Fake MSR file --------------------------------------------------------- */

#define FAKE_MSRS 16
static struct { uint32_t msr; uint64_t v; } fake[FAKE_MSRS];
static size_t n_fake;
static unsigned fake_writes, fake_reads;

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

	fake_reads++;
	return p ? *p : 0;
}

static void fake_wr(uint32_t msr, uint64_t v)
{
	uint64_t *p = fake_slot(msr);

	if (p)
		*p = v;
	fake_writes++;
}

/* Sets an MSR without counting it as a write of the code under test. */
static void fake_set(uint32_t msr, uint64_t v)
{
	*fake_slot(msr) = v;
}

static void fake_reset(void)
{
	n_fake = 0;
	fake_writes = fake_reads = 0;
}

#define MISC_ENABLE_BOOT 0x0000000000850089ull	/* fast strings, EIST, ... */

/* ---- Detection -------------------------------------------------------------- */

TEST(detect_intel_listed_model)
{
	struct mstate_caps c = CAPS(&m_sandy, ov_sandy6);

	CHECK(c.vendor == CPU_VENDOR_INTEL);
	CHECK_EQ_U(c.model, 0x2D);
	CHECK(!c.hypervisor);
	CHECK_EQ_U(c.turbo.msr, MSR_IA32_MISC_ENABLE);
	CHECK_EQ_U(c.turbo.disable_bits, 1ull << 38);
	CHECK(c.turbo_reported);
	CHECK_EQ_U(c.prefetch.msr, MSR_MISC_FEATURE_CONTROL);
	CHECK_EQ_U(c.prefetch.disable_bits, 0xF);
	CHECK_STR(c.uarch, "sandy bridge-ep");

	c = CAPS(&m_skylake, ov_haswell);
	CHECK_EQ_U(c.model, 0x3C);
	CHECK_EQ_U(c.prefetch.disable_bits, 0xF);
	CHECK_STR(c.uarch, "haswell");

	c = CAPS(&m_skylake, ov_goldmont);
	CHECK_EQ_U(c.prefetch.disable_bits, 0x5);	/* bits 1 and 3 reserved */
	CHECK_STR(c.uarch, "goldmont");
}

TEST(detect_intel_unlisted_and_old)
{
	struct mstate_caps c = CAPS0(&m_skylake);	/* model 5Eh: not in the disclosure */

	CHECK_EQ_U(c.turbo.msr, MSR_IA32_MISC_ENABLE);
	CHECK(c.turbo_reported);
	CHECK_EQ_U(c.prefetch.msr, 0);
	CHECK_STR(c.prefetch.why, "unavailable: model not in Intel's prefetcher-control disclosure");
	CHECK(c.uarch == NULL);

	c = CAPS(&m_skylake, ov_skl_turbo_hidden);
	CHECK_EQ_U(c.turbo.msr, MSR_IA32_MISC_ENABLE);
	CHECK(!c.turbo_reported);

	c = CAPS0(&m_atom);				/* Bonnell, model 1Ch */
	CHECK_EQ_U(c.prefetch.msr, 0);

	c = CAPS0(&m_no_ext);				/* max basic leaf 2 */
	CHECK_EQ_U(c.turbo.msr, 0);
	CHECK_STR(c.turbo.why, "unavailable: no CPUID leaf 6");
}

TEST(detect_amd)
{
	struct mstate_caps c = CAPS0(&m_zen3);

	CHECK_EQ_U(c.turbo.msr, MSR_AMD_HWCR);
	CHECK_EQ_U(c.turbo.disable_bits, 1ull << 25);
	CHECK_EQ_U(c.prefetch.msr, MSR_AMD_PREFETCH_CONTROL);
	CHECK_EQ_U(c.prefetch.disable_bits, 0x2F);

	c = CAPS0(&m_zen1);				/* family 17h: CPB, no prefetch MSR */
	CHECK_EQ_U(c.turbo.msr, MSR_AMD_HWCR);
	CHECK_EQ_U(c.prefetch.msr, 0);
	CHECK_STR(c.prefetch.why, "unavailable: no documented prefetch control for this family");

	c = CAPS0(&m_opteron);				/* family 10h Shanghai: no CPB */
	CHECK_EQ_U(c.turbo.msr, 0);
	CHECK_STR(c.turbo.why, "unavailable: no core performance boost (CPUID 8000_0007h:EDX[9])");

	c = CAPS0(&m_hygon);				/* no 8000_0007h at all */
	CHECK_EQ_U(c.turbo.msr, 0);
	CHECK_EQ_U(c.prefetch.msr, 0);
}

TEST(detect_hypervisor)
{
	const struct fx_model *ms[] = { &m_qemu, &m_qemu_intel, &m_qemu_epyc };

	for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
		struct mstate_caps c = CAPS0(ms[i]);

		CHECK(c.hypervisor);
		CHECK_EQ_U(c.turbo.msr, 0);
		CHECK_EQ_U(c.prefetch.msr, 0);
		CHECK_STR(c.turbo.why, "unavailable: not applicable under a hypervisor");
		CHECK_STR(c.prefetch.why, "unavailable: not applicable under a hypervisor");
	}
}

/* ---- Plans ------------------------------------------------------------------ */

TEST(plan_options)
{
	struct mstate_caps c = CAPS(&m_sandy, ov_sandy6);
	struct mstate_plan p;

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p), 2);
	CHECK_EQ_U(p.w[0].msr, MSR_IA32_MISC_ENABLE);
	CHECK_EQ_U(p.w[0].mask, 1ull << 38);
	CHECK_EQ_U(p.w[0].value, 1ull << 38);
	CHECK_STR(p.w[0].what, "turbo off");
	CHECK_EQ_U(p.w[1].msr, MSR_MISC_FEATURE_CONTROL);
	CHECK_EQ_U(p.w[1].mask, 0xF);
	CHECK_EQ_U(p.w[1].value, 0xF);
	CHECK_STR(p.turbo_status, "set");
	CHECK_STR(p.prefetch_status, "set");

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_ON, MSTATE_PREFETCH_ON, false, &p), 2);
	CHECK_EQ_U(p.w[0].value, 0);
	CHECK_EQ_U(p.w[1].value, 0);
	CHECK_STR(p.w[1].what, "prefetch on");

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_KEEP, MSTATE_PREFETCH_KEEP, false, &p), 0);
	CHECK_STR(p.turbo_status, "kept");
	CHECK_STR(p.prefetch_status, "kept");

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, true, &p), 0);
	CHECK_STR(p.turbo_status, "safe mode: no MSR writes");
	CHECK_STR(p.prefetch_status, "safe mode: no MSR writes");

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_KEEP, MSTATE_PREFETCH_OFF, false, &p), 1);
	CHECK_EQ_U(p.w[0].msr, MSR_MISC_FEATURE_CONTROL);
}

TEST(plan_unavailable_and_hidden_turbo)
{
	struct mstate_caps c = CAPS0(&m_qemu);
	struct mstate_plan p;

	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p), 0);
	CHECK_STR(p.turbo_status, "unavailable: not applicable under a hypervisor");
	CHECK_STR(p.prefetch_status, "unavailable: not applicable under a hypervisor");

	c = CAPS0(&m_skylake);
	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p), 1);
	CHECK_STR(p.turbo_status, "set");
	CHECK_STR(p.prefetch_status,
		  "unavailable: model not in Intel's prefetcher-control disclosure");

	/* Turbo hidden by MISC_ENABLE[38]: off writes nothing, on clears it. */
	c = CAPS(&m_skylake, ov_skl_turbo_hidden);
	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_KEEP, false, &p), 0);
	CHECK_STR(p.turbo_status, "already off (CPUID.06H:EAX[1] = 0)");
	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_ON, MSTATE_PREFETCH_KEEP, false, &p), 1);
	CHECK_EQ_U(p.w[0].value, 0);

	c = CAPS0(&m_zen3);
	CHECK_EQ_U(mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p), 2);
	CHECK_EQ_U(p.w[0].msr, MSR_AMD_HWCR);
	CHECK_EQ_U(p.w[0].value, 1ull << 25);
	CHECK_EQ_U(p.w[1].msr, MSR_AMD_PREFETCH_CONTROL);
	CHECK_EQ_U(p.w[1].value, 0x2F);
	CHECK_STR(mstate_turbo_name(MSTATE_TURBO_OFF), "off");
	CHECK_STR(mstate_prefetch_name(MSTATE_PREFETCH_KEEP), "keep");
}

/* ---- Apply and restore ------------------------------------------------------ */

TEST(restore_puts_back_only_changed_bits)
{
	struct mstate_caps c = CAPS(&m_sandy, ov_sandy6);
	struct mstate_plan p;
	struct mstate_saved sv;

	mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p);
	fake_reset();
	fake_set(MSR_IA32_MISC_ENABLE, MISC_ENABLE_BOOT);
	fake_set(MSR_MISC_FEATURE_CONTROL, 0x5);	/* firmware disabled two */
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	CHECK_EQ_U(fake_writes, 2);
	CHECK_EQ_U(sv.msr_writes, 2);
	CHECK_EQ_U(fake_rd(MSR_IA32_MISC_ENABLE), MISC_ENABLE_BOOT | 1ull << 38);
	CHECK_EQ_U(fake_rd(MSR_MISC_FEATURE_CONTROL), 0xF);
	CHECK_EQ_U(sv.e[1].changed, 0xA);		/* only the two it set */

	/* Meanwhile someone else flips other bits of the same MSRs. */
	fake_set(MSR_IA32_MISC_ENABLE, fake_rd(MSR_IA32_MISC_ENABLE) ^ (1ull << 16));
	fake_set(MSR_MISC_FEATURE_CONTROL, fake_rd(MSR_MISC_FEATURE_CONTROL) | 0x10);
	mstate_restore(&sv, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_IA32_MISC_ENABLE), MISC_ENABLE_BOOT ^ (1ull << 16));
	CHECK_EQ_U(fake_rd(MSR_MISC_FEATURE_CONTROL), 0x15);
	CHECK_EQ_U(fake_writes, 4);
	CHECK_EQ_U(sv.msr_writes, 4);

	/* A second restore has nothing left to do. */
	mstate_restore(&sv, fake_rd, fake_wr);
	CHECK_EQ_U(fake_writes, 4);
}

TEST(no_write_when_nothing_changes)
{
	struct mstate_caps c = CAPS(&m_sandy, ov_sandy6);
	struct mstate_plan p;
	struct mstate_saved sv;

	/* turbo=on and prefetch=on when both are already on. */
	mstate_plan(&c, MSTATE_TURBO_ON, MSTATE_PREFETCH_ON, false, &p);
	fake_reset();
	fake_set(MSR_IA32_MISC_ENABLE, MISC_ENABLE_BOOT);
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	CHECK_EQ_U(fake_writes, 0);
	CHECK_EQ_U(sv.msr_writes, 0);
	mstate_restore(&sv, fake_rd, fake_wr);
	CHECK_EQ_U(fake_writes, 0);

	/* keep, safe and unavailable plan nothing: no write, no read. */
	fake_reset();
	mstate_plan(&c, MSTATE_TURBO_KEEP, MSTATE_PREFETCH_KEEP, false, &p);
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, true, &p);
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	mstate_restore(&sv, fake_rd, fake_wr);
	c = CAPS0(&m_qemu);
	mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_OFF, false, &p);
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	mstate_restore(&sv, fake_rd, fake_wr);
	CHECK_EQ_U(fake_writes, 0);
	CHECK_EQ_U(fake_reads, 0);
	CHECK_EQ_U(sv.msr_writes, 0);
}

TEST(restore_skips_bits_already_back)
{
	struct mstate_caps c = CAPS0(&m_zen3);
	struct mstate_plan p;
	struct mstate_saved sv;

	mstate_plan(&c, MSTATE_TURBO_OFF, MSTATE_PREFETCH_KEEP, false, &p);
	fake_reset();
	fake_set(MSR_AMD_HWCR, 0x0000000001000010ull);
	mstate_apply(&p, fake_rd, fake_wr, &sv);
	CHECK_EQ_U(fake_rd(MSR_AMD_HWCR), 0x0000000003000010ull);
	/* Firmware (an SMI handler, say) clears CpbDis again before the end. */
	fake_set(MSR_AMD_HWCR, 0x0000000001000010ull);
	mstate_restore(&sv, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_HWCR), 0x0000000001000010ull);
	CHECK_EQ_U(sv.msr_writes, 1);			/* the apply only */
}

/* Two SMT siblings share MSR 0x1A4: the first changes it, the second finds
 * nothing to change, and the first's restore puts it back. */
TEST(siblings_share_a_core_msr)
{
	struct mstate_caps c = CAPS(&m_sandy, ov_sandy6);
	struct mstate_plan p;
	struct mstate_saved a, b;

	mstate_plan(&c, MSTATE_TURBO_KEEP, MSTATE_PREFETCH_OFF, false, &p);
	fake_reset();
	mstate_apply(&p, fake_rd, fake_wr, &a);
	mstate_apply(&p, fake_rd, fake_wr, &b);
	CHECK_EQ_U(a.msr_writes, 1);
	CHECK_EQ_U(b.msr_writes, 0);
	mstate_restore(&b, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_MISC_FEATURE_CONTROL), 0xF);
	mstate_restore(&a, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_MISC_FEATURE_CONTROL), 0);
	CHECK_EQ_U(fake_writes, 2);
}

int main(void)
{
	RUN(detect_intel_listed_model);
	RUN(detect_intel_unlisted_and_old);
	RUN(detect_amd);
	RUN(detect_hypervisor);
	RUN(plan_options);
	RUN(plan_unavailable_and_hidden_turbo);
	RUN(restore_puts_back_only_changed_bits);
	RUN(no_write_when_nothing_changes);
	RUN(restore_skips_bits_already_back);
	RUN(siblings_share_a_core_msr);
	return check_summary("mstate");
}
