/* report.h - `result` records for workloads: the common fields and the statistics, in one shape for every workload. */
#ifndef QB_KERNEL_REPORT_H
#define QB_KERNEL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "run.h"
#include "limits.h"
#include "stats.h"
#include "topo.h"

/* Start a result record: workload, variant, thread count and the CPU list.
 * Add "params" and extra fields with rec_* before report_stats(). */
struct rec *report_result_open(const char *workload, const char *variant, const struct cpuset *set);

/* The statistics over repetitions of integer ticks: unit, n, min, q1,
 * median, q3, mean, max, stddev, cv, and the same in nanoseconds when the TSC
 * frequency is known (null otherwise). A statistic of nothing is null. */
void report_stats(struct rec *r, const char *unit, const struct stats *st);

/* ---- The figure and its measures (docs/records.md, `result`) ------------------ */

/* The statistics that stand for the result being written: its clean
 * repetitions unless it is noisy, else all of them (reps_report sets it), or
 * the one span a result was measured over (of "all"). of NULL: no figure.
 * Kept until the result is closed. */
void report_figure_set(const struct stats *st, const char *of, bool noisy);

/* The figure's statistics (NULL when none) and whether it is noisy. */
const struct stats *report_figure(void);
bool report_figure_noisy(void);

/* The result's core clock in MHz, for its cycles measures and its
 * "clock_mhz": the median of its repetitions' (APERF/MPERF on bare metal;
 * perf's msr PMU, else cycles against ref-cycles, on Linux); mhz <= 0: none,
 * and why (its "clock_note"). reps.c sets it (reps_report,
 * reps_report_noise, reps_span_figure, reps_report_span); forgotten at the
 * next report_result_open. */
void report_clock_set(double mhz, const char *why);

/* The clock set for the result being written, 0 when none. */
double report_clock_mhz(void);

/* One measure of a result in the unit its experiment speaks: from a figure
 * in ticks t, the value is scale x t, or scale / t for a rate (inverse). The
 * figure's median is checked against limit (LIMIT_NONE: not checked), a
 * per-core ceiling multiplied by cores. */
struct report_measure {
	const char *name;       /* "ns_per_increment" */
	const char *unit;       /* "ns/increment" */
	double scale;           /* from report_ns_scale / report_gbps_scale */
	bool inverse;
	enum limit_id limit;
	double cores;
};

/* Scale of "ns per unit of work" for a figure in ticks of `per` units: 1e9 /
 * (tsc_hz x per); 0 when the TSC frequency or per is unknown. */
double report_ns_scale(double per);

/* Scale of "GB/s" for a figure in ticks that moved `bytes` (inverse): bytes x
 * tsc_hz / 1e9; 0 when unknown. */
double report_gbps_scale(double bytes);

/* Write "measures" (each measure's unit, median, q1, q3, scale) from the
 * figure; then, when the result's clock is known (report_clock_set), a
 * cycles measure for each time measure ("ns_per_page", "ns/page" ->
 * "cycles_per_page", "cycles/page": its scale times the clock in GHz);
 * or "measures": null and "measures_note" (no TSC frequency, no
 * figure). A median past its limit makes report_result_close fail the
 * result with the limit's reason. Returns the first measure's median, or a
 * negative value when there is none. */
double report_measures(struct rec *r, const struct report_measure *m, unsigned n);

/* The primary measure's value at ticks t, as report_measures wrote it: for
 * the text a workload prints. Negative when there is none. */
double report_measure_value(const struct report_measure *m, double t);

/* False for a result whose check is "ok" but that carries a reason: a bug,
 * since "ok" never has a failure reason. */
bool report_check_consistent(const char *check, const char *reason);

/* What the framework (kernel/bench) decided of a result before it closes:
 * one that would close "ok" closes as ok_as ("short": the budget's deadline
 * stopped it with fewer repetitions than a statistic needs; "skipped": it
 * never started) with ok_why; one that would close "overrun" against a bound
 * that the budget's end had cut closes as overrun_as ("short" with
 * repetitions kept, "skipped" without) with overrun_why: the budget stopped
 * it, as it stops any other. An overrun against the repetition's own bound
 * stays an overrun. NULL fields: no change. */
struct report_mark {
	const char *ok_as, *ok_why;
	const char *overrun_as, *overrun_why;
};

/* Close the record with "clock_mhz" (null, with "clock_note", when the
 * clock is unknown) and check "ok", "fail", "overrun" or "skipped" (+
 * reason); a failed check marks the run failed (a short one does not). An
 * "ok" result whose figure broke a physical limit (report_measures) is
 * closed as "fail" with the limit's reason. An "ok" with a reason is a bug:
 * the reason is left out and an `error` record says so (the Linux twin
 * asserts). */
void report_result_close(struct rec *r, const char *check, const char *reason);

/* The same, with the framework's mark (m NULL: none). */
void report_result_close_marked(struct rec *r, const char *check, const char *reason, const struct report_mark *m);

/* lava=on: a plain line per result for LAVA's monitors test action (tools/lava/):
 * "qb-lava: <workload>-<n>-<variant>-<threads>t <pass|fail|skip> <median> <unit>",
 * n counting the run's results from 1; the median in ns where it has one, and
 * for a result without a median its timed repetitions: "<n> reps". A short
 * result is a fail with "(short)" after its unit.
 * Turning it on first prints the machine's lines (report_lava_machine). */
void report_lava_lines(bool on);

/* The CPUs as the boot and done records count them: each CPU found is in
 * exactly one of online (running the run: on bare metal, halted at its end
 * too), parked (left out on purpose: cpus=), not started (it did not check
 * in within the start bound, checked in after it and parked itself, or
 * never got a slot) and lost (stopped answering in a run), so that found
 * is their sum. known false: the run stopped before the CPUs were counted. */
struct report_cpus {
	bool known;
	uint32_t found, online, parked, not_started, lost;
};

/* cpus_found, cpus_online, cpus_parked, cpus_not_started and cpus_lost (nulls when not known). */
void report_cpu_counts(struct rec *r, const struct report_cpus *c);

/* The `done` record, the last of a run: status and reason, the CPUs
 * (report_cpu_counts), the memory the allocator lost and the RAM left out
 * of the page tables (a platform without them passes -1: left out),
 * elapsed_ms since start_tsc (null without a TSC frequency), and the
 * records and errors counted. */
void report_done(bool ok, const char *reason, const struct report_cpus *cpus, int64_t lost_bytes,
		 int64_t unmapped_bytes, uint64_t start_tsc);

#endif
