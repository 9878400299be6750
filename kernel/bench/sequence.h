/* sequence.h - a run's workloads in order: each calibrates its configurations into the plan, the plan is fitted to the time budget and shown, then the plan is walked, each configuration against its deadline, with progress. Shared by the kernel and the Linux twin.
 *
 * Part of the framework (Layer 9: bench, kernel/bench/workload.h), below the
 * workloads, which it never names: kernel/start/main.c and
 * tools/twin/main.c hand it the table (seq_run.table) and call seq_go. A
 * table workload (kinds and one plan()) only declares; the sequence walks
 * its configurations (seq_item.c) and the wl_* services keep each one to
 * its deadline. The budget is a wall-clock deadline for the whole run
 * (kernel/measure/deadline.h): each configuration gets a fair part of what
 * is left when it begins, its repetitions stop when the next would pass it,
 * and the plan is refitted at the pace the run really goes (between
 * workloads, and inside one when the pace is off by a quarter).
 *
 * LEGACY: the seq_item_* and seq_*_fits calls below are what a workload
 * that walks the plan itself (struct workload's legacy_plan/legacy_run)
 * calls; the wl_* services are built on them. They leave the public
 * interface with the last such workload. */
#ifndef QB_BENCH_SEQUENCE_H
#define QB_BENCH_SEQUENCE_H

#include <stdbool.h>
#include <stdint.h>
#include "plan.h"
#include "record.h"
#include "workload.h"

#define SEQ_BOUND_MARGIN 4           /* a run_on may take this many times its planned time */
#define SEQ_BOUND_FLOOR_MS 5000      /* and at least this long: emulators stall for seconds (both capped by the budget's end) */
#define SEQ_CALIB_TIMEOUT_MS WL_CALIB_TIMEOUT_MS /* bound for a calibration run, whose cost is not yet known */
#define SEQ_CALIB_TARGET_S WL_CALIB_TARGET_S     /* a calibration run lasts at least this where its work can grow */
#define SEQ_PROGRESS_MS 5000         /* progress text at most this often */
#define SEQ_QUICK_REPS 5             /* repetitions of a configuration without reps= (5: the fewest on which a rank test can call a difference at 0.05) */
#define SEQ_FULL_REPS 10
#define SEQ_SLOW_MAX 16              /* slow=: the most a repetition is slowed */

struct seq_run {
	struct wl_ctx ctx;           /* what every workload gets; plan and index are set here */
	const struct workload *const *table; /* the run's workloads, in order (start's registry) */
	unsigned n_table;
	uint32_t workloads;          /* bit i: table[i] runs */
	double budget_s;             /* wall-clock seconds for the whole run; 0: none */
	bool plan_only;              /* plan=: show the plan and stop */
	uint64_t start_tsc;          /* when the run started: the budget counts from here */
	double serial_bytes_per_s;   /* what printing costs (0: nothing slow) */
	uint64_t run_timeout_ms;     /* run_timeout_ms=: one bound for every run (0: from the plan) */
	uint32_t slow;               /* slow=: debug, every repetition made this many times as long (0, 1: not) */
	void (*after_workload)(void); /* the platform's, after each workload's records (NULL: none) */
	uint64_t (*clock)(void);     /* the run's clock in TSC ticks (NULL: tsc_read; a test injects its own) */
};

/* A run as the options ask for it: profile, reps, flush, iterations,
 * selftest, workloads, budget, plan, bounds and slow. Zeroes the rest of *s,
 * which the platform then fills: ctx's machine (online, topo, cpu_of_topo,
 * bsp_cpuid, nodes, platform, has_*), start_tsc and serial_bytes_per_s. */
struct options;
void seq_from_options(struct seq_run *s, const struct options *o);

/* Calibrate, fit, emit the `plan` record and the plan text, then (unless
 * plan_only) run every chosen workload with a `workload` record after each. */
void seq_go(struct seq_run *s);

/* ---- For the workloads -------------------------------------------------------- */

/* A configuration starts: the last one's time is taken into the pace, the
 * plan is refitted if the run is off its pace (so check it->skip, units and
 * reps after this), it gets its deadline, and run_default_timeout_ms
 * becomes its bound. */
void seq_item_begin(const struct wl_ctx *ctx, const struct plan_item *it);

/* Before each repetition of the configuration begun, the untimed warm-up
 * first: whether it fits before the deadline. False: stop there (the
 * result then says how many were kept, and why). Always true outside a
 * configuration (calibration) and without a budget. */
bool seq_rep_fits(void);

/* Before each step of a one-shot configuration that can stop between steps
 * (the counter matrix's pairs). */
bool seq_step_fits(void);

/* Right after seq_item_begin, for a one-shot that cannot stop halfway (a
 * first-touch copy): whether its planned time fits what the run has left.
 * False: do not start it; report it skipped with seq_stop_reason(). */
bool seq_once_fits(void);

/* Why the configuration under way stopped or did not start ("" if it did not). */
const char *seq_stop_reason(void);

/* The plan skipped this workload whole (its least form does not fit): do
 * no set-up, and report every configuration skipped with seq_skip_reason. */
bool seq_workload_skipped(const struct wl_ctx *ctx);

/* The configuration stopped early with fewer repetitions (or steps) than a statistic needs. */
bool seq_item_short(void);

/* The bound for one repetition of it now: its planned time x
 * SEQ_BOUND_MARGIN, at least SEQ_BOUND_FLOOR_MS, or run_timeout_ms= when
 * given; never past the run's end. */
uint64_t seq_timeout_ms(const struct plan_item *it);

/* Between repetitions of a long configuration: progress text when due. */
void seq_tick(void);

/* Into a result record of configuration it (NULL: the one under way):
 * "planned_s" against "measured_s" (since seq_item_begin), and for a configuration with repetitions "reps_planned",
 * "reps_kept" and, when its deadline stopped it, "stopped" (why). A result
 * that would close "ok" with fewer than a statistic needs closes `short`
 * (none at all: `skipped`), with the reason. */
void seq_item_report(struct rec *r, const struct plan_item *it);

/* The same short/skipped mark for another result of the configuration
 * (selftest's start-skew), without the plan's fields. */
void seq_item_mark(void);

/* A skipped configuration's reason, e.g. for its `skipped` result. */
static inline const char *seq_skip_reason(const struct plan_item *it)
{
	return it->why[0] ? it->why : "skipped by the plan";
}

/* The line that ends the run's text and its summary screen, after every
 * workload (the noise workload's: "noise: 0.4 ppm, longest gap 2.1 us, ..."). */
void seq_final_line(const char *line);

/* Ticks to seconds (0 without a TSC frequency). */
double seq_seconds(uint64_t ticks);

#endif
