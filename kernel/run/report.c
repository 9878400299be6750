/* report.c - result records shared by all workloads; see report.h. */
#include "report.h"
#include "report_machine.h"
#include "stats_rec.h"
#include "memtype.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "tsc.h"
#ifdef QB_HOST_TWIN
#include <assert.h>
#endif

/* ---- Constants ------------------------------------------------------------ */
#define NS_PREFIX "ns"               /* a time measure's name and unit begin so: "ns_per_page", "ns/page" */
#define NS_LEN 2
#define CYCLES_NAME_LEN 48
#define MHZ_PER_GHZ 1000.0

/* ---- Private Variables ---------------------------------------------------- */
/* The result being written (one at a time, under the record lock): its
 * figure and what a measure found implausible. */
static struct {
	struct stats st;
	const char *of;
	bool noisy;
	char implausible[200];
	double clock_mhz;            /* report_clock_set: > 0 when known */
	const char *clock_why;
} cur;

/* ---- Public Functions ----------------------------------------------------- */
struct rec *report_result_open(const char *workload, const char *variant, const struct cpuset *set)
{
	struct rec *r = console_rec_open("result");
	memset(&cur, 0, sizeof(cur));
	rec_str(r, "workload", workload);
	rec_str(r, "variant", variant);
	rec_u64(r, "threads", set ? set->n : 0);
	rec_arr_begin(r, "cpus");
	for (uint32_t i = 0; set && i < set->n; i++)
		rec_u64(r, 0, set->cpu[i]);
	rec_arr_end(r);
	rec_str(r, "mem_type", memtype_result_type(set ? set->cpu : 0, set ? set->n : 0)); /* of its buffers */
	return r;
}

void report_stats(struct rec *r, const char *unit, const struct stats *st)
{
	rec_str(r, "unit", unit);
	stats_rec(r, st);
	if (!strcmp(unit, "ticks"))
		stats_rec_ns(r, st, tsc_hz());
}

void report_figure_set(const struct stats *st, const char *of, bool noisy)
{
	cur.of = st && st->n ? of : 0;
	if (cur.of)
		cur.st = *st;
	cur.noisy = noisy;
}

const struct stats *report_figure(void)
{
	return cur.of ? &cur.st : 0;
}

bool report_figure_noisy(void)
{
	return cur.noisy;
}

void report_clock_set(double mhz, const char *why)
{
	cur.clock_mhz = mhz > 0 ? mhz : 0;
	cur.clock_why = mhz > 0 ? 0 : why;
}

double report_clock_mhz(void)
{
	return cur.clock_mhz;
}

double report_ns_scale(double per)
{
	return tsc_hz() && per > 0 ? 1e9 / ((double)tsc_hz() * per) : 0;
}

double report_gbps_scale(double bytes)
{
	return tsc_hz() && bytes > 0 ? bytes * (double)tsc_hz() / 1e9 : 0;
}

double report_measure_value(const struct report_measure *m, double t)
{
	if (!m->scale)
		return -1;
	if (m->inverse)
		return t > 0 ? m->scale / t : -1;
	return m->scale * t;
}

/* Decimals that keep three significant digits of a measure (fmt has no %g). */
static int measure_decimals(double v)
{
	return v >= 100 ? 1 : v >= 1 ? 3 : v >= 0.001 ? 6 : 9;
}

/* Decimals that keep a scale's significant digits (at least 9 of them, up to
 * what a record can write): a reader multiplies every sample by it. */
static int scale_decimals(double v)
{
	int d = 9;
	for (double x = v; x > 0 && x < 1 && d < REC_MAX_DECIMALS; x *= 10)
		d++;
	return v >= 1e6 ? 1 : v >= 1 ? 6 : d;
}

/* One entry of "measures": m's figure at scale, named name in unit. Returns its median (negative: none). */
static double write_measure(struct rec *r, const struct report_measure *m, const char *name, const char *unit,
			    double scale, const struct stats *st)
{
	struct report_measure at = *m;
	at.scale = scale;
	double med = report_measure_value(&at, st->median);
	double a = report_measure_value(&at, st->q1), b = report_measure_value(&at, st->q3);
	double lo = at.inverse ? b : a, hi = at.inverse ? a : b; /* a rate's q1 comes from the slower time */
	rec_obj_begin(r, name);
	rec_str(r, "unit", unit);
	if (med < 0) { /* a rate of a zero time: nothing to say */
		rec_null(r, "median");
		rec_null(r, "q1");
		rec_null(r, "q3");
	} else {
		rec_f64(r, "median", med, measure_decimals(med));
		rec_f64(r, "q1", lo < 0 ? med : lo, measure_decimals(lo));
		rec_f64(r, "q3", hi < 0 ? med : hi, measure_decimals(hi));
	}
	rec_f64(r, "scale", scale, scale_decimals(scale));
	if (at.inverse)
		rec_bool(r, "inverse", true);
	rec_obj_end(r);
	return med;
}

double report_measures(struct rec *r, const struct report_measure *m, unsigned n)
{
	const struct stats *st = report_figure();
	const char *why = !st ? "no figure: nothing was measured" : !tsc_hz() ? "the TSC frequency is unknown" : 0;
	for (unsigned i = 0; !why && i < n; i++)
		if (!m[i].scale)
			why = "the measure's scale is unknown";
	if (why) {
		rec_null(r, "measures");
		rec_str(r, "measures_note", why);
		return -1;
	}
	double first = -1;
	rec_obj_begin(r, "measures");
	for (unsigned i = 0; i < n; i++) {
		double med = write_measure(r, &m[i], m[i].name, m[i].unit, m[i].scale, st);
		if (i == 0)
			first = med;
		if (med >= 0 && !cur.implausible[0])
			limits_check(m[i].limit, med, m[i].cores, cur.implausible, sizeof(cur.implausible));
	}
	/* The same figures in core cycles, at the result's own clock (never checked against a limit). */
	for (unsigned i = 0; cur.clock_mhz > 0 && i < n; i++) {
		char name[CYCLES_NAME_LEN], unit[CYCLES_NAME_LEN];
		if (m[i].inverse || strncmp(m[i].name, NS_PREFIX, NS_LEN) || strncmp(m[i].unit, NS_PREFIX, NS_LEN))
			continue;
		fmt_snprintf(name, sizeof(name), "cycles%s", m[i].name + NS_LEN);
		fmt_snprintf(unit, sizeof(unit), "cycles%s", m[i].unit + NS_LEN);
		write_measure(r, &m[i], name, unit, m[i].scale * cur.clock_mhz / MHZ_PER_GHZ, st);
	}
	rec_obj_end(r);
	return first;
}

bool report_check_consistent(const char *check, const char *reason)
{
	return strcmp(check, "ok") != 0 || reason == 0;
}

static bool lava_lines;
static unsigned lava_seq;

void report_lava_lines(bool on)
{
	lava_lines = on;
	if (on)
		report_lava_machine();
}

/* The qb-lava: line of a result (lava=on), from the record being closed:
 * "qb-lava: counter-3-padded-2t pass 1.234 ns/increment": the figure in its
 * measure's unit, "(noisy)" after the unit when the figure is all
 * repetitions under the noisy mark; the noise workload's, its pooled ppm
 * (every view's headline). Without a measure, the median in ns or in
 * its own unit. Every line has a measurement, because a LAVA server drops a
 * test case whose monitor matched none (it stores the dispatcher's "null" as
 * a number and fails): one without a median (skipped, or failed before one)
 * gives its timed repetitions, "n reps". */
/* The noise workload's headline, its pooled gaps.ppm (every CPU's time lost
 * over every CPU's time observed), not its measure's median over the CPUs:
 * false for any other result, or where it is null. */
static bool pooled_noise(const char *text, char *med, size_t mcap, char *unit, size_t ucap)
{
	static const char anchor[] = "\"gaps\":{";
	const size_t alen = sizeof(anchor) - 1;
	const char *g = text;
	while (*g && strncmp(g, anchor, alen))
		g++;
	if (!*g || !rec_field(g + alen, "ppm", med, mcap) || !strcmp(med, "null") || ucap < sizeof("ppm"))
		return false;
	memcpy(unit, "ppm", sizeof("ppm"));
	return true;
}

static void lava_line(const struct rec *r, const char *check)
{
	char wl[32], var[48], thr[12], med[32], unit[40];
	if (r->len >= r->cap)
		return; /* overflowed: it is replaced by an error record */
	char *text = r->buf;
	text[r->len] = 0; /* read in place, not copied (64 KiB saved): the next field overwrites it */
	if (!rec_field(text, "workload", wl, sizeof(wl)) || !rec_field(text, "variant", var, sizeof(var)) ||
	    !rec_field(text, "threads", thr, sizeof(thr)))
		return;
	bool noisy = false;
	bool have = pooled_noise(text, med, sizeof(med), unit, sizeof(unit)) ||
		    rec_primary_measure(text, med, sizeof(med), unit, sizeof(unit), &noisy);
	if (!have && rec_field(text, "median_ns", med, sizeof(med)) && strcmp(med, "null")) {
		memcpy(unit, "ns", 3);
		have = true;
	}
	if (!have)
		have = rec_field(text, "median", med, sizeof(med)) && strcmp(med, "null") &&
		       rec_field(text, "unit", unit, sizeof(unit));
	if (!have) {
		if (!rec_field(text, "n", med, sizeof(med)) || !strcmp(med, "null"))
			memcpy(med, "0", 2);
		memcpy(unit, "reps", 5);
	}
	/* A short result is not a full measurement: LAVA's fail, its figure marked "(short)". */
	bool is_short = !strcmp(check, "short");
	const char *res = !strcmp(check, "ok") ? "pass" : !strcmp(check, "skipped") ? "skip" : "fail";
	kprintf("qb-lava: %s-%u-%s-%st %s %s %s%s%s\n", wl, ++lava_seq, var, thr, res, med, unit, noisy ? "(noisy)" : "",
		is_short ? "(short)" : "");
}

void report_result_close(struct rec *r, const char *check, const char *reason)
{
	report_result_close_marked(r, check, reason, 0);
}

void report_result_close_marked(struct rec *r, const char *check, const char *reason, const struct report_mark *m)
{
	if (!strcmp(check, "ok") && cur.implausible[0]) { /* past what any machine can do */
		check = "fail";
		reason = cur.implausible;
	}
	if (m && !strcmp(check, "ok") && m->ok_as) { /* the budget cut it short (or it never started) */
		check = m->ok_as;
		reason = m->ok_why;
	}
	if (m && !strcmp(check, "overrun") && m->overrun_as) { /* its bound was the budget's end */
		check = m->overrun_as;
		reason = m->overrun_why;
	}
	bool consistent = report_check_consistent(check, reason);
	if (cur.clock_mhz > 0) {
		rec_f64(r, "clock_mhz", cur.clock_mhz, 1);
	} else {
		rec_null(r, "clock_mhz");
		rec_str(r, "clock_note", cur.clock_why ? cur.clock_why
				       : !strcmp(check, "skipped") ? "not measured: the result was skipped"
				       : "not measured: no repetition of this result read the clock");
	}
#ifdef QB_HOST_TWIN
	assert(consistent && "an ok result carries a failure reason");
#endif
	rec_str(r, "check", check);
	if (reason && consistent)
		rec_str(r, "reason", reason);
	if (lava_lines)
		lava_line(r, check);
	console_rec_emit(r);
	if (!consistent) /* a bug in the workload: the reason is dropped, and said */
		console_error("report", "bug: a result with check ok carried the reason \"%s\" (dropped)", reason);
	if (!strcmp(check, "fail"))
		finish_mark_failed("a result check failed");
}


void report_cpu_counts(struct rec *r, const struct report_cpus *c)
{
	static const char *const keys[] = { "cpus_found", "cpus_online", "cpus_parked", "cpus_not_started", "cpus_lost" };
	const uint32_t v[] = { c->found, c->online, c->parked, c->not_started, c->lost };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (c->known)
			rec_u64(r, keys[i], v[i]);
		else /* the run stopped before the CPUs were counted (bad options): unknown, not none */
			rec_null(r, keys[i]);
	}
}

void report_done(bool ok, const char *reason, const struct report_cpus *cpus, int64_t lost_bytes,
		 int64_t unmapped_bytes, uint64_t start_tsc)
{
	struct rec *r = console_rec_open("done");
	rec_str(r, "status", ok ? "ok" : "fail");
	if (!ok && reason)
		rec_str(r, "reason", reason);
	report_cpu_counts(r, cpus);
	if (lost_bytes >= 0)
		rec_u64(r, "memory_lost_bytes", (uint64_t)lost_bytes); /* frees the allocator could not keep */
	if (unmapped_bytes >= 0)
		rec_u64(r, "unmapped_ram_bytes", (uint64_t)unmapped_bytes); /* RAM the run could not use (paging) */
	if (tsc_hz())
		rec_u64(r, "elapsed_ms", tsc_to_us(tsc_read() - start_tsc) / 1000);
	else
		rec_null(r, "elapsed_ms");
	rec_u64(r, "records", console_records() + 1);
	rec_u64(r, "errors", console_errors());
	console_rec_emit(r);
}
