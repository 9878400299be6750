/* test_reps.c - host tests of kernel/run/reps.c, the repetition log behind every
 * result record: each configuration starts from a clean log (flags and
 * sources of the previous one must not leak into it), a flagged repetition
 * is left out of "clean", and "detectors" names only the detectors that ran. */
#include "check.h"
#include "record.h"
#include "report.h"
#include "reps.h"
#include "tsc.h"

/* ---- Stubs: the timer, the report helpers and instr ------------------------- */
static const char *therm_note;

uint64_t tsc_overhead(void)
{
	return 10;
}

void report_stats(struct rec *r, const char *unit, const struct stats *st)
{
	rec_str(r, "unit", unit);
	rec_u64(r, "n", st->n);
	rec_f64(r, "median", st->median, 1);
}

const char *instr_source_why(enum instr_source k)
{
	(void)k;
	return 0;
}

const char *instr_pmu_name(unsigned k)
{
	(void)k;
	return "?";
}

const char *instr_pmu_note(void)
{
	return 0;
}

const char *instr_pmu_why(void)
{
	return "none";
}

const char *instr_therm_note(void)
{
	return therm_note;
}

/* ---- Helpers ---------------------------------------------------------------- */
static char buf[8192];

static const char *report(struct reps *r)
{
	struct rec rec;
	size_t len;
	rec_begin(&rec, buf, sizeof(buf), "result");
	reps_report(&rec, r);
	return rec_finish(&rec, &len);
}

static void add(struct reps *r, uint64_t ticks, uint32_t flags, bool therm, bool sched)
{
	uint64_t t[2] = { ticks, ticks };
	struct instr_thread it[2];
	memset(it, 0, sizeof(it));
	it[1].noise.flags = flags;
	it[1].noise.have_therm = therm;
	it[1].noise.have_sched = sched;
	reps_add(r, t, it);
}

/* ---- Tests ------------------------------------------------------------------ */
TEST(flagged_repetition_left_out_of_clean)
{
	struct reps *r = reps_begin(2);
	add(r, 110, 0, true, false);
	add(r, 1010, NOISE_FLAG_THROTTLE, true, false);
	add(r, 120, 0, true, false);
	const char *s = report(r);
	CHECK(strstr(s, "\"clean\":{\"reps\":2,\"flagged\":1,"));
	CHECK(strstr(s, "\"detectors\":[\"thermal\",\"tsc_backwards\"]"));
	CHECK(strstr(s, "\"throttled_reps\":1"));
	CHECK(strstr(s, "\"flags\":[\"throttle\"]"));
}

/* A configuration after a noisy one starts clean: the log is shared, and
 * before this test's fix its flags, counts and sources carried over. */
TEST(next_configuration_starts_clean)
{
	struct reps *r = reps_begin(2);
	add(r, 110, NOISE_FLAG_SMI | NOISE_FLAG_SWITCH, true, true);
	report(r);
	r = reps_begin(2);
	add(r, 110, 0, false, false);
	add(r, 120, 0, false, false);
	const char *s = report(r);
	CHECK(strstr(s, "\"clean\":{\"reps\":2,\"flagged\":0,"));
	CHECK(strstr(s, "\"detectors\":[\"tsc_backwards\"]"));
	CHECK(strstr(s, "\"flags\":[]"));
	CHECK(!strstr(s, "switched_reps"));
	CHECK(strstr(s, "\"throttled_reps\":\"unavailable\""));
}

TEST(twin_detectors_and_safe_mode_note)
{
	struct reps *r = reps_begin(2);
	add(r, 110, NOISE_FLAG_MIGRATION, false, true);
	add(r, 110, 0, false, true);
	const char *s = report(r);
	CHECK(strstr(s, "\"detectors\":[\"context_switches\",\"migrations\",\"tsc_backwards\"]"));
	CHECK(strstr(s, "\"switched_reps\":0,\"migrated_reps\":1"));
	therm_note = "undetectable after the first event";
	r = reps_begin(2);
	add(r, 110, 0, true, false);
	s = report(r);
	CHECK(strstr(s, "\"thermal_note\":\"undetectable after the first event\""));
	therm_note = 0;
}

TEST(samples_when_asked)
{
	struct reps *r = reps_begin(2);
	add(r, 110, 0, false, false);
	add(r, 150, 0, false, false);
	CHECK(!strstr(report(r), "samples"));
	reps_keep_samples(true);
	CHECK(strstr(report(r), "\"samples\":[100,140]"));	/* the timer's 10 ticks removed */
	reps_keep_samples(false);
}

int main(void)
{
	static uint64_t room[2][REPS_MAX];
	reps_set_storage(room, 2);
	RUN(flagged_repetition_left_out_of_clean);
	RUN(next_configuration_starts_clean);
	RUN(twin_detectors_and_safe_mode_note);
	RUN(samples_when_asked);
	return check_summary("reps");
}
