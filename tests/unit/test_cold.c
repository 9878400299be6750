/* test_cold.c - the coldness scale and the verdict on a flush (kernel/measure/cold.c): effective at 25% and over, ineffective under it, "cannot tell: no visible caches" wherever CLFLUSH itself makes no measurable difference (too small a gap at the median, or quartiles that overlap), and nothing judged without a reference or a figure. The statistics are computed from samples by the real stats.c. */
#include "check.h"
#include "cold.h"
#include "lib.h"

/* ---- Helpers ---------------------------------------------------------------- */
/* Statistics of n samples. */
static struct stats st(const uint64_t *v, size_t n)
{
	static uint64_t scratch[16];
	struct stats s;
	stats_compute(v, n, scratch, &s);
	return s;
}

static const uint64_t warm_v[7] = { 100, 101, 99, 100, 102, 100, 98 };
static const uint64_t cold_v[7] = { 1000, 1010, 990, 1005, 995, 1000, 1020 };

/* ---- Tests ------------------------------------------------------------------ */
TEST(effective_and_ineffective)
{
	struct stats w = st(warm_v, 7), c = st(cold_v, 7);
	struct cold_judgement j;
	cold_judge(&w, &c, 1000, &j);
	CHECK_EQ_U(j.scale, COLD_SCALE_OK);
	CHECK(j.pct > 99.9 && j.pct < 100.1);
	CHECK_STR(cold_verdict_name(j.verdict), "effective");
	/* 25% is the line: 100 + 0.25 x 900 = 325 ticks */
	cold_judge(&w, &c, 325, &j);
	CHECK_STR(cold_verdict_name(j.verdict), "effective");
	cold_judge(&w, &c, 324, &j);
	CHECK_STR(cold_verdict_name(j.verdict), "ineffective");
	/* a WBINVD that does nothing: as warm as the warm pass, never "-0" */
	cold_judge(&w, &c, 99.99, &j);
	CHECK_EQ_U(j.verdict, COLD_INEFFECTIVE);
	CHECK(j.pct == 0 && !__builtin_signbit(j.pct));
	/* colder than the reference is still effective */
	cold_judge(&w, &c, 1500, &j);
	CHECK(j.verdict == COLD_EFFECTIVE && j.pct > 100);
}

/* No visible caches: CLFLUSH makes no difference, whatever the method did. */
TEST(cannot_tell)
{
	struct stats w = st(warm_v, 7);
	static const uint64_t same[7] = { 101, 99, 100, 103, 100, 97, 100 };
	struct stats c = st(same, 7);
	struct cold_judgement j;
	cold_judge(&w, &c, 100, &j);
	CHECK_EQ_U(j.scale, COLD_GAP_SMALL);
	CHECK_STR(cold_verdict_name(j.verdict), "cannot tell: no visible caches");
	CHECK(j.pct == 0);
	/* faster than warm */
	static const uint64_t faster[7] = { 90, 91, 89, 90, 92, 90, 88 };
	c = st(faster, 7);
	cold_judge(&w, &c, 100, &j);
	CHECK_EQ_U(j.scale, COLD_REF_FASTER);
	CHECK_EQ_U(j.verdict, COLD_CANNOT_TELL);
	/* medians 60% apart, but a noisy host: the cold quartile 1 is under the warm quartile 3 */
	static const uint64_t noisy_w[7] = { 90, 100, 100, 100, 180, 190, 200 };
	static const uint64_t noisy_c[7] = { 95, 100, 160, 160, 170, 220, 230 };
	w = st(noisy_w, 7);
	c = st(noisy_c, 7);
	CHECK(c.median > w.median * COLD_GAP_MIN);
	cold_judge(&w, &c, 100, &j);
	CHECK_EQ_U(j.scale, COLD_REF_OVERLAP);
	CHECK_EQ_U(j.verdict, COLD_CANNOT_TELL);
}

/* Nothing to judge: a reference not measured, or the method's figure missing. */
TEST(not_checked)
{
	struct stats w = st(warm_v, 7), c = st(cold_v, 7), none = { 0 };
	struct cold_judgement j;
	cold_judge(&none, &c, 500, &j);
	CHECK(j.scale == COLD_NO_WARM && j.verdict == COLD_NOT_CHECKED);
	cold_judge(&w, &none, 500, &j);
	CHECK(j.scale == COLD_NO_COLD && j.verdict == COLD_NOT_CHECKED);
	cold_judge(&w, &c, -1, &j);
	CHECK(j.scale == COLD_SCALE_OK && j.verdict == COLD_NOT_CHECKED);
	CHECK_STR(cold_verdict_name(j.verdict), "not checked");
}

/* cold_pct_note: what happened, in words; nothing with a scale. */
TEST(notes)
{
	char buf[200];
	struct stats w = st(warm_v, 7), c = st(cold_v, 7), none = { 0 };
	struct cold_judgement j;
	cold_judge(&w, &c, 500, &j);
	cold_scale_note(&j, &w, &c, "clflush", buf, sizeof(buf));
	CHECK_STR(buf, "");
	cold_judge(&w, &none, 500, &j);
	cold_scale_note(&j, &w, &none, "clflush", buf, sizeof(buf));
	CHECK_STR(buf, "no cold reference (clflush) was measured");
	static const uint64_t same[7] = { 102, 102, 102, 102, 102, 102, 102 };
	struct stats s = st(same, 7);
	cold_judge(&w, &s, 100, &j);
	cold_scale_note(&j, &w, &s, "clflush", buf, sizeof(buf));
	CHECK_STR(buf, "the cold reference pass (clflush, 102 ticks) was only 2.0% slower than the warm one (100 ticks), "
		       "under 50%: no scale (cannot tell: no visible caches)");
	CHECK(strlen(buf) < sizeof(buf) - 1);
}

int main(void)
{
	RUN(effective_and_ineffective);
	RUN(cannot_tell);
	RUN(not_checked);
	RUN(notes);
	return check_summary("cold");
}
