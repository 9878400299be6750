/* sequence.h - a run's workloads in order: each calibrates its configurations into the plan, the plan is fitted to the time budget and shown, then each workload runs as planned, with progress. Shared by the kernel and the Linux twin.
 *
 * Above the workloads (it walks wl_all), below nothing: kernel/start/main.c and
 * tools/twin/main.c call seq_go; the workloads call the seq_item_* helpers
 * while they run. */
#ifndef QB_WORKLOADS_SEQUENCE_H
#define QB_WORKLOADS_SEQUENCE_H

#include <stdbool.h>
#include <stdint.h>
#include "plan.h"
#include "record.h"
#include "workload.h"

#define SEQ_BOUND_MARGIN 4           /* a run_on may take this many times its planned time */
#define SEQ_BOUND_FLOOR_MS 5000      /* and at least this long: emulators stall for seconds */
#define SEQ_CALIB_TIMEOUT_MS 10000   /* bound for a calibration run, whose cost is not yet known */
#define SEQ_PROGRESS_MS 5000         /* progress text at most this often */
#define SEQ_QUICK_REPS 5             /* repetitions of a configuration without reps= (5: the fewest on which a rank test can call a difference at 0.05) */
#define SEQ_FULL_REPS 10

struct seq_run {
	struct wl_ctx ctx;           /* what every workload gets; plan and index are set here */
	uint32_t workloads;          /* bit i: wl_all[i] runs */
	double budget_s;             /* wall-clock seconds for the whole run; 0: none */
	bool plan_only;              /* plan=: show the plan and stop */
	uint64_t start_tsc;          /* when the run started: the budget counts from here */
	double serial_bytes_per_s;   /* what printing costs (0: nothing slow) */
	uint64_t run_timeout_ms;     /* run_timeout_ms=: one bound for every run (0: from the plan) */
	void (*after_workload)(void); /* the platform's, after each workload's records (NULL: none) */
};

/* A run as the options ask for it: profile, reps, flush, iterations,
 * selftest, workloads, budget, plan and bounds. Zeroes the rest of *s, which
 * the platform then fills: ctx's machine (online, topo, cpu_of_topo,
 * bsp_cpuid, nodes, platform, has_*), start_tsc and serial_bytes_per_s. */
struct options;
void seq_from_options(struct seq_run *s, const struct options *o);

/* Calibrate, fit, emit the `plan` record and the plan text, then (unless
 * plan_only) run every chosen workload with a `workload` record after each. */
void seq_go(struct seq_run *s);

/* ---- For the workloads -------------------------------------------------------- */

/* A configuration starts: progress, and run_default_timeout_ms becomes its bound. */
void seq_item_begin(const struct wl_ctx *ctx, const struct plan_item *it);

/* The bound for one repetition of it: its planned time x SEQ_BOUND_MARGIN, at
 * least SEQ_BOUND_FLOOR_MS, or run_timeout_ms= when given. */
uint64_t seq_timeout_ms(const struct plan_item *it);

/* Between repetitions of a long configuration: progress text when due. */
void seq_tick(void);

/* Into a result record: "planned_s" against "measured_s" (since seq_item_begin). */
void seq_item_report(struct rec *r, const struct plan_item *it);

/* A skipped configuration's reason, e.g. for its `skipped` result. */
static inline const char *seq_skip_reason(const struct plan_item *it)
{
	return it->why[0] ? it->why : "skipped by the plan";
}

/* Ticks to seconds (0 without a TSC frequency). */
double seq_seconds(uint64_t ticks);

/* Seconds of the fastest of `tries` empty runs on set (with RUN_FLUSH if
 * flush): the fixed cost of one repetition. */
double seq_calibrate_fixed(const struct cpuset *set, bool flush, unsigned tries);

#endif
