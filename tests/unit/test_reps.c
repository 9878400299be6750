/* test_reps.c - host tests of kernel/run/reps.c, the repetition log behind every
 * result record: each configuration starts from a clean log (flags and
 * sources of the previous one must not leak into it), a flagged repetition
 * is left out of "clean", and "detectors" names only the detectors that ran. */
#include "check.h"
#include "disturb.h"
#include "record.h"
#include "report.h"
#include "reps.h"
#include "stats_rec.h"
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
	stats_rec(r, st);
}

/* What reps_report made the result's figure. */
static struct {
	struct stats st;
	const char *of;
	bool noisy, set;
} fig;

void report_figure_set(const struct stats *st, const char *of, bool noisy)
{
	fig.st = *st;
	fig.of = of;
	fig.noisy = noisy;
	fig.set = true;
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

/* The result's clock as reps.c set it (report_clock_set). */
static struct {
	double mhz;
	const char *why;
	int calls;
} clock;

void report_clock_set(double mhz, const char *why)
{
	clock.mhz = mhz;
	clock.why = why;
	clock.calls++;
}

/* The twin without irq tracepoints: a configuration's interrupts, when a test gives them. */
static bool config_irqs;
static bool irq_tracepoints;               /* the twin with them: interrupts counted per thread */

uint32_t disturb_causes(void)
{
	return irq_tracepoints ? 1u << GAPS_INTERRUPT : 0;
}

void disturb_config_begin(void)
{
}

bool disturb_config_interrupts(uint64_t *n, const char **how)
{
	*n = 42;
	*how = "per configuration from /proc/interrupts";
	return config_irqs;
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
	add(r, 150, NOISE_FLAG_SMI, false, false);
	reps_keep_samples(false);
	CHECK(!strstr(report(r), "samples"));
	reps_keep_samples(true);
	const char *s = report(r);
	CHECK(strstr(s, "\"samples\":[100,140],\"samples_flagged\":[1]"));	/* the timer's 10 ticks removed */
}

/* Clean first: the figure is the clean repetitions' unless fewer than half
 * are clean; then all of them, under the noisy mark with what fired. */
TEST(figure_clean_unless_noisy)
{
	struct reps *r = reps_begin(2);
	add(r, 110, 0, true, true);
	add(r, 5010, NOISE_FLAG_SWITCH, true, true);
	add(r, 130, 0, true, true);
	fig.set = false;
	const char *s = report(r);
	CHECK(strstr(s, "\"noisy\":false,\"figure\":\"clean\""));
	CHECK(fig.set && !strcmp(fig.of, "clean") && !fig.noisy);
	CHECK(fig.st.n == 2 && fig.st.median == 110);	/* (100 + 120) / 2: the flagged 5000 left out */
	CHECK(reps_figure(r)->median == 110);
	CHECK(reps_thread_median(r, 0) == 110);

	r = reps_begin(2);
	add(r, 110, 0, true, true);
	add(r, 5010, NOISE_FLAG_SWITCH, true, true);
	add(r, 6010, NOISE_FLAG_SWITCH | NOISE_FLAG_MIGRATION, true, true);
	s = report(r);
	CHECK(strstr(s, "\"noisy\":{\"clean\":1,\"reps\":3,\"flags\":[\"context_switch\",\"migration\"]},"
			"\"figure\":\"all\""));
	CHECK(!strcmp(fig.of, "all") && fig.noisy && fig.st.n == 3 && fig.st.median == 5000);
	CHECK(reps_figure(r)->median == 5000);
	CHECK(reps_thread_median(r, 0) == 5000);
}

/* Half clean is not noisy: "fewer than half". */
TEST(half_clean_is_not_noisy)
{
	struct reps *r = reps_begin(2);
	add(r, 110, 0, true, true);
	add(r, 5010, NOISE_FLAG_SMI, true, true);
	const char *s = report(r);
	CHECK(strstr(s, "\"noisy\":false,\"figure\":\"clean\""));
	CHECK(fig.st.n == 1 && fig.st.median == 100);
}

/* Nothing timed: no statistic is a number, and there is no figure. */
TEST(nothing_timed_is_null)
{
	struct reps *r = reps_begin(2);
	const char *s = report(r);
	CHECK(strstr(s, "\"clean\":{\"reps\":0,\"flagged\":0,"));
	CHECK(strstr(s, "\"n\":0,\"min\":null,\"q1\":null,\"median\":null,\"q3\":null,\"mean\":null,"
			"\"max\":null,\"stddev\":null,\"cv\":null}"));
	CHECK(strstr(s, "\"noisy\":false,\"figure\":null"));
	CHECK(!strstr(s, ":0.0"));

	/* Every repetition flagged: clean is empty (null), the figure all of them. */
	r = reps_begin(2);
	add(r, 110, NOISE_FLAG_SMI, true, true);
	add(r, 120, NOISE_FLAG_SMI, true, true);
	s = report(r);
	CHECK(strstr(s, "\"clean\":{\"reps\":0,\"flagged\":2,"));
	CHECK(strstr(s, "\"median\":null"));
	CHECK(strstr(s, "\"figure\":\"all\""));
}

/* A one-span result (first-touch per page): noisy only when the span was flagged. */
TEST(span_figure)
{
	char b2[512];
	struct rec rec;
	size_t len;
	uint64_t v[3] = { 5, 7, 9 }, scratch[3];
	struct stats st;
	struct instr_thread it;
	memset(&it, 0, sizeof(it));
	stats_compute(v, 3, scratch, &st);
	rec_begin(&rec, b2, sizeof(b2), "result");
	reps_span_figure(&rec, &st, &it);
	const char *s = rec_finish(&rec, &len);
	CHECK(strstr(s, "\"noisy\":false,\"figure\":\"all\""));
	CHECK(!strcmp(fig.of, "all") && fig.st.median == 7);
	it.noise.flags = NOISE_FLAG_SMI;
	rec_begin(&rec, b2, sizeof(b2), "result");
	reps_span_figure(&rec, &st, &it);
	s = rec_finish(&rec, &len);
	CHECK(strstr(s, "\"noisy\":{\"clean\":0,\"reps\":1,\"flags\":[\"smi\"]}"));
}

/* Span samples: at most REPS_MAX of them, evenly strided. */
TEST(span_samples_strided)
{
	static char big[16384];
	static uint64_t v[1000];
	struct rec rec;
	size_t len;
	for (unsigned i = 0; i < 1000; i++)
		v[i] = i;
	reps_keep_samples(true);
	rec_begin(&rec, big, sizeof(big), "result");
	reps_span_samples(&rec, v, 1000);
	const char *s = rec_finish(&rec, &len);
	CHECK(strstr(s, "\"samples\":[0,4,8,"));
	CHECK(strstr(s, ",996],\"samples_stride\":4"));
	rec_begin(&rec, big, sizeof(big), "result");
	reps_span_samples(&rec, v, 3);
	s = rec_finish(&rec, &len);
	CHECK(strstr(s, "\"samples\":[0,1,2],\"samples_stride\":1"));
}

/* Each repetition's clock with a per-thread frequency f[t] (0: not read). */
static void add_clock(struct reps *r, double f0, double f1)
{
	uint64_t t[2] = { 110, 110 };
	struct instr_thread it[2];
	memset(it, 0, sizeof(it));
	it[0].noise.have_freq = f0 > 0;
	it[0].noise.freq_mhz = f0;
	it[1].noise.have_freq = f1 > 0;
	it[1].noise.freq_mhz = f1;
	reps_add(r, t, it);
}

/* A result's clock is the median of its repetitions' (each the mean of its
 * threads' APERF/MPERF clocks); none read: none, with why. */
TEST(clock_is_the_median_repetition)
{
	struct reps *r = reps_begin(2);
	add_clock(r, 3000, 3200);                   /* 3100 */
	add_clock(r, 2000, 2000);                   /* 2000: flagged (more than 1% from the first), still a clock */
	add_clock(r, 3050, 3150);                   /* 3100 */
	add_clock(r, 3300, 3500);                   /* 3400 */
	add_clock(r, 2999, 0);                      /* one thread read: 2999 */
	CHECK(reps_clock_mhz(r) > 3099.999 && reps_clock_mhz(r) < 3100.001);
	clock.calls = 0;
	report(r);
	CHECK_EQ_U(clock.calls, 1);
	CHECK(clock.mhz > 3099.999 && clock.mhz < 3100.001);
	/* Even count: the mean of the middle two, to the kHz. */
	r = reps_begin(2);
	add_clock(r, 2400.5, 2400.5);
	add_clock(r, 2401.5, 2401.5);
	CHECK(reps_clock_mhz(r) > 2400.999 && reps_clock_mhz(r) < 2401.001);
	/* No repetition read it: 0, and the reason from the CPU (CPUID lists no APERF/MPERF here). */
	r = reps_begin(2);
	add(r, 110, 0, false, false);
	report(r);
	CHECK(clock.mhz == 0);
	CHECK_STR(clock.why, "unavailable: no APERF/MPERF readings (CPUID.06H:ECX[0] clear, or MPERF did not count)");
	CHECK_STR(reps_clock_why(), clock.why);
}

/* Interrupts and faults in the twin's repetitions flag them; where the
 * workload measures faults they are counted, not flagged; without irq
 * tracepoints the configuration's interrupts are given, said as such. */
TEST(interrupts_and_faults)
{
	uint64_t t[2] = { 110, 110 };
	struct instr_thread it[2];
	memset(it, 0, sizeof(it));
	for (int k = 0; k < 2; k++) {
		it[k].noise.have_irq = it[k].noise.have_faults = true;
		it[k].noise.have_sched = true;
	}
	struct reps *r = reps_begin(2);
	reps_add(r, t, it);                         /* quiet */
	it[1].noise.irqs = 3;
	it[1].noise.flags = NOISE_FLAG_INTERRUPT;
	reps_add(r, t, it);
	it[1].noise.irqs = 0;
	it[0].noise.faults = 2;
	it[0].noise.flags = NOISE_FLAG_FAULT;
	it[1].noise.flags = 0;
	reps_add(r, t, it);
	const char *s = report(r);
	CHECK(strstr(s, "\"detectors\":[\"context_switches\",\"migrations\",\"interrupts\",\"faults\",\"tsc_backwards\"]"));
	CHECK(strstr(s, "\"interrupts\":3,\"interrupted_reps\":1,\"faults\":2,\"faulted_reps\":1"));
	CHECK(strstr(s, "\"flags\":[\"interrupt\",\"fault\"]"));
	CHECK(strstr(s, "\"clean\":{\"reps\":1,\"flagged\":2,"));
	/* first-touch: faults are what it measures. */
	reps_faults_measured(true);
	r = reps_begin(2);
	reps_add(r, t, it);
	s = report(r);
	CHECK(strstr(s, "\"faults\":2,\"faulted_reps\":0,\"faults_note\":\"not flagged: this workload measures page faults\""));
	CHECK(strstr(s, "\"clean\":{\"reps\":1,\"flagged\":0,"));
	CHECK(!strstr(s, "\"faults\",\"tsc"));
	reps_faults_measured(false);
	/* No tracepoints: the configuration's interrupts from /proc/interrupts. */
	for (int k = 0; k < 2; k++)
		it[k].noise.have_irq = false;
	config_irqs = true;
	r = reps_begin(2);
	reps_add(r, t, it);
	s = report(r);
	CHECK(strstr(s, "\"interrupts_config\":42,\"interrupts_note\":\"per configuration from /proc/interrupts\""));
	CHECK(!strstr(s, "interrupted_reps"));
	config_irqs = false;
}

/* Tracepoints on the system, but one thread could not count (its group not
 * opened: the open-file limit): the others' sum would be an undercount, so
 * interrupts are null with why, and not among the detectors. */
TEST(interrupts_of_some_threads_are_none)
{
	uint64_t t[2] = { 110, 110 };
	struct instr_thread it[2];
	memset(it, 0, sizeof(it));
	for (int k = 0; k < 2; k++)
		it[k].noise.have_sched = it[k].noise.have_faults = true;
	it[0].noise.have_irq = true;
	it[0].noise.irqs = 5;
	irq_tracepoints = true;
	struct reps *r = reps_begin(2);
	reps_add(r, t, it);
	const char *s = report(r);
	CHECK(strstr(s, "\"detectors\":[\"context_switches\",\"migrations\",\"faults\",\"tsc_backwards\"]"));
	CHECK(strstr(s, "\"interrupts\":null,\"interrupts_note\":\"not counted: a thread's irq tracepoints"));
	CHECK(!strstr(s, "\"interrupts\":5"));
	/* Every thread counted: the sum. */
	it[1].noise.have_irq = true;
	r = reps_begin(2);
	reps_add(r, t, it);
	s = report(r);
	CHECK(strstr(s, "\"interrupts\":5,\"interrupted_reps\":0"));
	irq_tracepoints = false;
}

int main(void)
{
	static uint64_t room[2][REPS_MAX];
	reps_set_storage(room, 2);
	RUN(flagged_repetition_left_out_of_clean);
	RUN(next_configuration_starts_clean);
	RUN(twin_detectors_and_safe_mode_note);
	RUN(samples_when_asked);
	RUN(figure_clean_unless_noisy);
	RUN(half_clean_is_not_noisy);
	RUN(nothing_timed_is_null);
	RUN(span_figure);
	RUN(span_samples_strided);
	RUN(clock_is_the_median_repetition);
	RUN(interrupts_and_faults);
	RUN(interrupts_of_some_threads_are_none);
	return check_summary("reps");
}
