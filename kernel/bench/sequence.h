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
 * The configuration under way and its deadline are the framework's own
 * (seq_item.h); a workload sees them only through the wl_* services. */
#ifndef QB_BENCH_SEQUENCE_H
#define QB_BENCH_SEQUENCE_H

#include <stdbool.h>
#include <stdint.h>
#include "plan.h"
#include "record.h"
#include "workload.h"

#define SEQ_BOUND_MARGIN 4           /* a run_on may take this many times its planned time */
#define SEQ_BOUND_FLOOR_MS 5000      /* and at least this long: emulators stall for seconds (both capped by the budget's end) */
#define SEQ_PROGRESS_MS 5000         /* progress text at most this often */
#define SEQ_QUICK_REPS 5             /* repetitions of a configuration without reps= (5: the fewest on which a rank test can call a difference at 0.05) */
#define SEQ_FULL_REPS 10
#define SEQ_SLOW_MAX 16              /* slow=: the most a repetition is slowed */

struct seq_run {
	struct wl_ctx ctx;           /* what every workload gets, read only */
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

#endif
