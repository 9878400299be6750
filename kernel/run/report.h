/* report.h - `result` records for workloads: the common fields and the statistics, in one shape for every workload. */
#ifndef QB_KERNEL_REPORT_H
#define QB_KERNEL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "run.h"
#include "stats.h"
#include "topo.h"

/* Start a result record: workload, variant, thread count and the CPU list.
 * Add "params" and extra fields with rec_* before report_stats(). */
struct rec *report_result_open(const char *workload, const char *variant, const struct cpuset *set);

/* The statistics over repetitions of integer ticks: unit, n, min, median,
 * mean, max, stddev, cv, and the same in nanoseconds when the TSC frequency
 * is known (null otherwise). */
void report_stats(struct rec *r, const char *unit, const struct stats *st);

/* False for a result whose check is "ok" but that carries a reason: a bug,
 * since "ok" never has a failure reason. */
bool report_check_consistent(const char *check, const char *reason);

/* Close the record with check "ok", "fail" or "skipped" (+ reason); a failed
 * check marks the run failed. An "ok" with a reason is a bug: the reason is
 * left out and an `error` record says so (the Linux twin asserts). */
void report_result_close(struct rec *r, const char *check, const char *reason);

/* lava=on: a plain line per result for LAVA's monitors test action (tools/lava/):
 * "qb-lava: <workload>-<n>-<variant>-<threads>t <pass|fail|skip> <median> <unit>",
 * n counting the run's results from 1; the median in ns where it has one, and
 * for a result without a median its timed repetitions: "<n> reps".
 * Turning it on first prints the machine's lines (report_lava_machine). */
void report_lava_lines(bool on);

/* The `done` record, the last of a run: status and reason, the CPUs found
 * and online, those lost and the memory the allocator lost (a platform
 * without them passes -1: left out), elapsed_ms since start_tsc (null
 * without a TSC frequency), and the records and errors counted. */
void report_done(bool ok, const char *reason, uint32_t found, uint32_t online, int64_t lost_cpus,
		 int64_t lost_bytes, uint64_t start_tsc);

#endif
