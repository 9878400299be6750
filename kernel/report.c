/* report.c - result records shared by all workloads; see report.h. */
#include "report.h"
#include "console.h"
#include "finish.h"
#include "lib.h"
#include "tsc.h"

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
	return r;
}

void report_stats(struct rec *r, const char *unit, const struct stats *st)
{
	rec_str(r, "unit", unit);
	rec_u64(r, "n", st->n);
	rec_u64(r, "min", st->min);
	rec_f64(r, "median", st->median, 1);
	rec_f64(r, "mean", st->mean, 1);
	rec_u64(r, "max", st->max);
	rec_f64(r, "stddev", st->stddev, 1);
	rec_f64(r, "cv", st->cv, 4);
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

void report_result_close(struct rec *r, const char *check, const char *reason)
{
	rec_str(r, "check", check);
	if (reason)
		rec_str(r, "reason", reason);
	console_rec_emit(r);
	if (!strcmp(check, "fail"))
		finish_mark_failed("a result check failed");
}
