/* report.c - result records shared by all workloads; see report.h. */
#include "report.h"
#include "report_machine.h"
#include "stats_rec.h"
#include "memtype.h"
#include "console.h"
#include "finish.h"
#include "lib.h"
#include "tsc.h"
#ifdef QB_HOST_TWIN
#include <assert.h>
#endif

struct rec *report_result_open(const char *workload, const char *variant, const struct cpuset *set)
{
	struct rec *r = console_rec_open("result");
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
	if (tsc_hz() && !strcmp(unit, "ticks")) {
		rec_f64(r, "min_ns", stats_ticks_to_ns((double)st->min, tsc_hz()), 1);
		rec_f64(r, "median_ns", stats_ticks_to_ns(st->median, tsc_hz()), 1);
		rec_f64(r, "mean_ns", stats_ticks_to_ns(st->mean, tsc_hz()), 1);
		rec_f64(r, "max_ns", stats_ticks_to_ns((double)st->max, tsc_hz()), 1);
	} else if (!strcmp(unit, "ticks")) {
		rec_null(r, "min_ns");
		rec_null(r, "median_ns");
		rec_null(r, "mean_ns");
		rec_null(r, "max_ns");
	}
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
 * "qb-lava: counter-3-padded-2t pass 12.5 ns". Every line has a measurement,
 * because a LAVA server drops a test case whose monitor matched none (it
 * stores the dispatcher's "null" as a number and fails): one without a median
 * (skipped, or failed before one) gives its timed repetitions, "n reps". */
static void lava_line(const struct rec *r, const char *check)
{
	static char text[8192]; /* under the record lock */
	char wl[32], var[48], thr[12], med[32], unit[16];
	size_t n = r->len < sizeof(text) - 1 ? r->len : sizeof(text) - 1;
	memcpy(text, r->buf, n);
	text[n] = 0;
	if (!rec_field(text, "workload", wl, sizeof(wl)) || !rec_field(text, "variant", var, sizeof(var)) ||
	    !rec_field(text, "threads", thr, sizeof(thr)))
		return;
	bool ns = rec_field(text, "median_ns", med, sizeof(med)) && strcmp(med, "null");
	bool have = ns || (rec_field(text, "median", med, sizeof(med)) && strcmp(med, "null") &&
			   rec_field(text, "unit", unit, sizeof(unit)));
	if (!have) {
		if (!rec_field(text, "n", med, sizeof(med)) || !strcmp(med, "null"))
			memcpy(med, "0", 2);
		memcpy(unit, "reps", 5);
	}
	const char *res = !strcmp(check, "ok") ? "pass" : !strcmp(check, "skipped") ? "skip" : "fail";
	kprintf("qb-lava: %s-%u-%s-%st %s %s %s\n", wl, ++lava_seq, var, thr, res, med, ns ? "ns" : unit);
}

void report_result_close(struct rec *r, const char *check, const char *reason)
{
	bool consistent = report_check_consistent(check, reason);
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


void report_done(bool ok, const char *reason, uint32_t found, uint32_t online, int64_t lost_cpus,
		 int64_t lost_bytes, uint64_t start_tsc)
{
	struct rec *r = console_rec_open("done");
	rec_str(r, "status", ok ? "ok" : "fail");
	if (!ok && reason)
		rec_str(r, "reason", reason);
	rec_u64(r, "cpus_found", found);
	rec_u64(r, "cpus_online", online);
	if (lost_cpus >= 0)
		rec_u64(r, "cpus_lost", (uint64_t)lost_cpus);
	if (lost_bytes >= 0)
		rec_u64(r, "memory_lost_bytes", (uint64_t)lost_bytes); /* frees the allocator could not keep */
	if (tsc_hz())
		rec_u64(r, "elapsed_ms", tsc_to_us(tsc_read() - start_tsc) / 1000);
	else
		rec_null(r, "elapsed_ms");
	rec_u64(r, "records", console_records() + 1);
	rec_u64(r, "errors", console_errors());
	console_rec_emit(r);
}
