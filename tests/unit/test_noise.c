/* test_noise.c - host tests of per-repetition noise accounting: detection
 * from recorded CPUID tables (Intel SDM vol. 2A leaf 6), flags from
 * synthetic samples, unavailable fields that stay unavailable, and the
 * statistics over all and over clean repetitions. */
#include "check.h"
#include "msr.h"
#include "noise.h"
#include "topo_fixtures.h"

/* ---- CPUID tables ---------------------------------------------------------- */

/* Leaf 6 of a Xeon E5-2637 (Sandy Bridge-EP): DTS, Turbo, ARAT, PLN, ECMD,
 * PTM (no HWP); ECX APERF/MPERF and EPB. */
static const struct fx_leaf ov_sandy6[] = {
	{ 0x6, 0, 0x00000077, 0x00000002, 0x00000009, 0 },
};
/* Intel Core 2 Duo E6600 (family 6 model 0Fh): DTS and APERF/MPERF but no
 * SMI counter (before Nehalem). */
static const struct fx_leaf ov_conroe[] = {
	{ 0x1, 0, 0x000006f6, 0x00020800, 0x0000e3bd, 0xbfebfbff },
	{ 0x6, 0, 0x00000001, 0x00000002, 0x00000001, 0 },
};

static struct cpuid_snap S;

static struct noise_caps caps_of(const struct fx_model *m, const struct fx_leaf *ov,
				 size_t nov)
{
	struct fx_cpu c = { .apic = 0, .model = m, .over = ov, .nover = nov };

	fx_snap(&c, &S);
	return noise_detect(&S);
}

#define CAPS(m, ov) caps_of(m, ov, ARRAY_SIZE(ov))
#define CAPS0(m) caps_of(m, NULL, 0)

#define TSC_HZ 3000000000ull	/* 3 GHz */
#define REP_TICKS 3000000ull	/* a 1 ms repetition */

/* A sample pair for a 1 ms repetition at ratio aperf/mperf = num/den. */
static void pair(struct noise_sample *b, struct noise_sample *a, uint64_t num,
		 uint64_t den)
{
	*b = (struct noise_sample){ .tsc = 1000000, .aperf = 5000, .mperf = 7000, .smi = 41 };
	*a = *b;
	a->tsc += REP_TICKS;
	a->mperf += REP_TICKS;
	a->aperf += REP_TICKS / den * num;
}

/* ---- Detection -------------------------------------------------------------- */

TEST(detect_intel_skylake)
{
	struct noise_caps c = CAPS0(&m_skylake);

	CHECK(c.tsc && c.aperf && c.smi && c.therm && c.pkg_therm);
	CHECK(c.smi_why == NULL);
	/* PLN and HWP are both set on the i5-6600: power, current and
	 * cross-domain limits join the thermal, PROCHOT and critical bits. */
	CHECK_EQ_U(c.therm_status, 0x5415);
	CHECK_EQ_U(c.therm_log, 0xA82A);
	CHECK_EQ_U(c.pkg_status, 0x415);
	CHECK_EQ_U(c.pkg_log, 0x82A);

	c = CAPS(&m_sandy, ov_sandy6);
	CHECK(c.smi && c.aperf && c.therm && c.pkg_therm);
	CHECK_EQ_U(c.therm_status, 0x415);		/* no HWP */

	c = CAPS(&m_skylake, ov_conroe);
	CHECK(c.aperf && c.therm && !c.pkg_therm);
	CHECK(!c.smi);
	CHECK_STR(c.smi_why, "model not in the MSR_SMI_COUNT list");

	c = CAPS0(&m_atom);				/* Bonnell: leaf 6 reads 0 here */
	CHECK(c.tsc && !c.aperf && !c.smi && !c.therm);
}

TEST(detect_amd_aperf_no_smi)
{
	struct noise_caps c = CAPS0(&m_zen3);

	CHECK(c.tsc && c.aperf);
	CHECK(!c.smi);
	CHECK_STR(c.smi_why, "no SMI counter on this vendor");
	CHECK(!c.therm && !c.pkg_therm);		/* leaf 6 EAX is ARAT only */
	CHECK_EQ_U(c.therm_status, 0);
}

TEST(detect_qemu_tsc_only)
{
	struct noise_caps c = CAPS0(&m_qemu);

	CHECK(c.tsc);
	CHECK(!c.aperf && !c.smi && !c.therm && !c.pkg_therm);
	c = CAPS0(&m_qemu_intel);			/* TCG with an Intel vendor: family 15h */
	CHECK(c.tsc && !c.aperf && !c.therm);
	CHECK(!c.smi);
	CHECK_STR(c.smi_why, "no SMI counter known for this family");
}

/* ---- Flags -------------------------------------------------------------------- */

TEST(clean_repetition)
{
	struct noise_caps c = CAPS0(&m_skylake);
	struct noise_sample b, a;
	struct noise_rep r;

	pair(&b, &a, 1, 1);
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.flagged);
	CHECK_EQ_U(r.flags, 0);
	CHECK_EQ_U(r.tsc_ticks, REP_TICKS);
	CHECK(r.have_freq && r.have_smi && r.have_therm && r.have_pkg_therm);
	CHECK(r.freq_mhz > 2999.999 && r.freq_mhz < 3000.001);
	CHECK_EQ_U(r.smis, 0);
	CHECK(!r.throttled);

	/* 0.5 % slow stays within the tolerance. */
	pair(&b, &a, 199, 200);
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.flagged);
	CHECK(r.freq_dev < -0.004 && r.freq_dev > -0.006);
}

TEST(flag_smi)
{
	struct noise_caps c = CAPS0(&m_skylake);
	struct noise_sample b, a;
	struct noise_rep r;

	pair(&b, &a, 1, 1);
	a.smi = b.smi + 1;
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(r.flagged);
	CHECK_EQ_U(r.flags, NOISE_FLAG_SMI);
	CHECK_EQ_U(r.smis, 1);
	b.smi = 0xFFFFFFFFull;				/* the 32-bit count wraps */
	a.smi = 1;
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.smis, 2);
	CHECK_STR(noise_flag_name(NOISE_FLAG_SMI), "smi");
}

TEST(flag_frequency_drop)
{
	struct noise_caps c = CAPS0(&m_zen3);
	struct noise_sample b, a;
	struct noise_rep r;

	pair(&b, &a, 49, 50);				/* 2 % slow */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(r.flagged);
	CHECK_EQ_U(r.flags, NOISE_FLAG_FREQ);
	CHECK(r.freq_mhz > 2939.9 && r.freq_mhz < 2940.1);
	pair(&b, &a, 51, 50);				/* 2 % fast */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.flags, NOISE_FLAG_FREQ);
	noise_delta(&c, &b, &a, TSC_HZ, 0.0, &r);	/* no reference: no check */
	CHECK(!r.flagged);
	CHECK(r.have_freq);
	CHECK(!r.have_smi);				/* AMD */
	CHECK_STR(noise_flag_name(NOISE_FLAG_FREQ), "freq");
}

TEST(flag_throttle)
{
	struct noise_caps c = CAPS0(&m_skylake);
	struct noise_sample b, a;
	struct noise_rep r;

	pair(&b, &a, 1, 1);
	a.therm = THERM_STATUS_THERMAL_LOG;		/* new log bit */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.flags, NOISE_FLAG_THROTTLE);
	CHECK_EQ_U(r.therm_bits, THERM_STATUS_THERMAL_LOG);

	b.therm = a.therm = THERM_STATUS_THERMAL_LOG;	/* old, uncleared log */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.flagged);

	b.therm = THERM_STATUS_PROCHOT;			/* asserted at the start */
	a.therm = 0;
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.therm_bits, THERM_STATUS_PROCHOT);
	CHECK(r.throttled);

	b.therm = a.therm = 0;
	a.pkg_therm = THERM_STATUS_POWER_LIMIT_LOG;	/* package power limit */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.flags, NOISE_FLAG_THROTTLE);
	CHECK_EQ_U(r.pkg_therm_bits, THERM_STATUS_POWER_LIMIT_LOG);

	a.pkg_therm = 0;
	a.therm = 1u << 7 | 0x7Fu << 16;		/* threshold #1 log, readout */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.flagged);
	CHECK_STR(noise_flag_name(NOISE_FLAG_THROTTLE), "throttle");
}

/* A fake IA32_THERM_STATUS with the SDM's write semantics: status bits and
 * the digital readout are read-only, a log bit written 0 clears and written
 * 1 stays (R/WC0). */
static uint64_t fake_therm_write(uint64_t now, uint64_t written)
{
	return (now & ~THERM_STATUS_LOG_BITS) | (now & written & THERM_STATUS_LOG_BITS);
}

/* One event at boot used to blind the detector for the whole run: the log
 * stayed set, so no later repetition saw a "new" log bit. Cleared before
 * each repetition, the second event is seen. */
TEST(log_cleared_before_each_repetition)
{
	struct noise_caps c = CAPS0(&m_skylake);
	struct noise_sample b, a;
	struct noise_rep r;
	uint64_t msr = THERM_STATUS_THERMAL_LOG | THERM_STATUS_THRESHOLD1_LOG | 0x3Full << 16, w = 0;

	CHECK(noise_log_clear(&c, false, msr, &w));
	msr = fake_therm_write(msr, w);
	CHECK_EQ_U(msr & THERM_STATUS_THERMAL_LOG, 0);		/* ours: cleared */
	CHECK(msr & THERM_STATUS_THRESHOLD1_LOG);		/* not watched: kept */
	CHECK_EQ_U(msr >> 16 & 0x7F, 0x3F);			/* readout untouched */
	CHECK(!noise_log_clear(&c, false, msr, &w));		/* nothing left to clear */

	pair(&b, &a, 1, 1);
	b.therm = msr;
	a.therm = msr | THERM_STATUS_THERMAL_LOG;		/* the second event */
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK_EQ_U(r.flags, NOISE_FLAG_THROTTLE);

	uint64_t pkg = THERM_STATUS_POWER_LIMIT_LOG | THERM_STATUS_POWER_LIMIT;
	CHECK(noise_log_clear(&c, true, pkg, &w));
	CHECK_EQ_U(w & THERM_STATUS_POWER_LIMIT_LOG, 0);
	struct noise_caps q = CAPS0(&m_qemu);				/* no thermal MSRs */
	CHECK(!noise_log_clear(&q, false, ~0ull, &w));
}

TEST(flag_tsc_backwards)
{
	struct noise_caps c = CAPS0(&m_qemu);
	struct noise_sample b = { .tsc = 5000 }, a = { .tsc = 4000 };
	struct noise_rep r;

	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(r.flagged);
	CHECK(r.tsc_backwards);
	CHECK_EQ_U(r.flags, NOISE_FLAG_TSC_BACKWARDS);
	CHECK_EQ_U(r.tsc_ticks, 0);
	CHECK_STR(noise_flag_name(NOISE_FLAG_TSC_BACKWARDS), "tsc_backwards");
	CHECK_STR(noise_flag_name(3), "?");
}

/* Fields the CPU lacks stay unavailable whatever the samples hold (QEMU TCG
 * reads unknown MSRs as 0, or anything). */
TEST(unavailable_stays_unavailable)
{
	struct noise_caps c = CAPS0(&m_qemu);
	struct noise_sample b, a;
	struct noise_rep r;

	pair(&b, &a, 1, 2);
	a.smi = b.smi + 7;
	a.therm = a.pkg_therm = ~0ull;
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.have_freq && !r.have_smi && !r.have_therm && !r.have_pkg_therm);
	CHECK(!r.flagged);
	CHECK_EQ_U(r.tsc_ticks, REP_TICKS);

	/* APERF present, but no TSC frequency or an MPERF that did not move. */
	c = CAPS0(&m_skylake);
	pair(&b, &a, 1, 1);
	noise_delta(&c, &b, &a, 0, 3000.0, &r);
	CHECK(!r.have_freq);
	CHECK(!r.flagged);
	a.mperf = b.mperf;
	noise_delta(&c, &b, &a, TSC_HZ, 3000.0, &r);
	CHECK(!r.have_freq);
	CHECK(r.have_smi);
}

/* ---- Statistics --------------------------------------------------------------- */

TEST(stats_all_clean)
{
	static const uint64_t v[] = { 10, 20, 30, 40, 50 };
	static const bool fl[5] = { false };
	uint64_t scratch[10];
	struct noise_summary s;

	noise_stats(v, fl, 5, scratch, &s);
	CHECK_EQ_U(s.n_all, 5);
	CHECK_EQ_U(s.n_clean, 5);
	CHECK_EQ_U(s.n_flagged, 0);
	CHECK_EQ_U(s.all.n, 5);
	CHECK_EQ_U(s.clean.n, 5);
	CHECK(s.all.median == 30.0 && s.clean.median == 30.0);
	CHECK(s.all.mean == s.clean.mean);
	CHECK(s.all.stddev == s.clean.stddev);
}

TEST(stats_some_flagged)
{
	static const uint64_t v[] = { 10, 20, 30, 1000, 40 };
	static const bool fl[] = { false, false, false, true, false };
	uint64_t scratch[10];
	struct noise_summary s;

	noise_stats(v, fl, 5, scratch, &s);
	CHECK_EQ_U(s.n_all, 5);
	CHECK_EQ_U(s.n_clean, 4);
	CHECK_EQ_U(s.n_flagged, 1);
	CHECK_EQ_U(s.all.max, 1000);
	CHECK(s.all.median == 30.0);
	CHECK_EQ_U(s.clean.n, 4);
	CHECK_EQ_U(s.clean.min, 10);
	CHECK_EQ_U(s.clean.max, 40);
	CHECK(s.clean.median == 25.0);
	CHECK(s.clean.mean == 25.0);
	CHECK_EQ_U(v[3], 1000);				/* input untouched */
}

TEST(stats_all_flagged_and_empty)
{
	static const uint64_t v[] = { 7, 9, 8 };
	static const bool fl[] = { true, true, true };
	uint64_t scratch[6];
	struct noise_summary s;

	noise_stats(v, fl, 3, scratch, &s);
	CHECK_EQ_U(s.n_clean, 0);
	CHECK_EQ_U(s.n_flagged, 3);
	CHECK_EQ_U(s.all.n, 3);
	CHECK_EQ_U(s.all.min, 7);
	CHECK(s.all.median == 8.0);
	CHECK_EQ_U(s.clean.n, 0);			/* empty but defined */
	CHECK_EQ_U(s.clean.min, 0);
	CHECK_EQ_U(s.clean.max, 0);
	CHECK(s.clean.mean == 0.0 && s.clean.median == 0.0 && s.clean.stddev == 0.0);

	noise_stats(v, fl, 0, scratch, &s);
	CHECK_EQ_U(s.n_all, 0);
	CHECK_EQ_U(s.all.n, 0);
}

int main(void)
{
	RUN(detect_intel_skylake);
	RUN(detect_amd_aperf_no_smi);
	RUN(detect_qemu_tsc_only);
	RUN(clean_repetition);
	RUN(flag_smi);
	RUN(flag_frequency_drop);
	RUN(flag_throttle);
	RUN(log_cleared_before_each_repetition);
	RUN(flag_tsc_backwards);
	RUN(unavailable_stays_unavailable);
	RUN(stats_all_clean);
	RUN(stats_some_flagged);
	RUN(stats_all_flagged_and_empty);
	return check_summary("noise");
}
