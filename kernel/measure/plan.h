/* plan.h - the run's plan: every configuration of every workload, what one unit of its work costs, and how much of it fits the time budget.
 *
 * Pure: the workloads enumerate their configurations and calibrate them
 * (each workload's plan function); this unit only decides.
 * A configuration's time is (reps + 1) x (units x unit_s + rep_fixed_s):
 * `reps` timed repetitions after one untimed warm-up, each doing `units` of
 * work (iterations of every thread at once, passes, or sampled pairs),
 * plus what it prints at the serial port's speed.
 *
 * When the budget cannot hold everything as asked, plan_fit gives way in
 * this order, and says which step it took:
 *   1. the units of every scalable configuration by one common factor f (a
 *      matrix's sampled pairs by the square root of f, so that the CPUs it
 *      covers fall with f), never below each one's minimum (the work that
 *      still measures something);
 *   2. the repetitions, never below PLAN_MIN_REPS;
 *   3. whole configurations, the dearest first, each skipped with the reason.
 * Nothing is ever shrunk below its minimum: it runs at the minimum or not at all. */
#ifndef QB_KERNEL_PLAN_H
#define QB_KERNEL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define PLAN_MAX_ITEMS 2048
#define PLAN_NAME_LEN 56
#define PLAN_MIN_REPS 5          /* fewer repetitions give no usable median and spread */
#define PLAN_WHY_LEN 96
#define PLAN_RESERVE 0.10        /* of the budget, kept for what the model misses (refits between workloads use it too) */

/* What a unit of a configuration is. */
enum plan_unit {
	PLAN_UNIT_ITERS,         /* iterations, done by every thread at once: scalable */
	PLAN_UNIT_PASSES,        /* whole passes over a fixed buffer: not scalable */
	PLAN_UNIT_PAIRS,         /* sampled CPU pairs of a matrix: scalable */
};

/* One configuration. The workload fills the first block, plan_fit the second. */
struct plan_item {
	uint16_t workload;               /* index in the run's workload table */
	uint8_t unit;                    /* enum plan_unit */
	char name[PLAN_NAME_LEN];        /* "packed 4 threads compact", for the plan */
	uint32_t param[4];               /* the workload's own description */
	double unit_s;                   /* calibrated wall seconds of one unit */
	double rep_fixed_s;              /* wall seconds per repetition besides the units */
	uint64_t want_units, min_units;  /* units per repetition: as asked, and the fewest that mean something */
	uint32_t want_reps;              /* timed repetitions as asked (>= PLAN_MIN_REPS unless asked fewer) */
	uint32_t out_bytes;              /* what it prints: records and text */

	uint64_t units;                  /* decided */
	uint32_t reps;
	bool skip;
	char why[PLAN_WHY_LEN];          /* when skip */
	double planned_s;                /* the time it is planned to take */
};

/* The whole plan. Large: keep it static. */
struct plan {
	double budget_s;                 /* 0: no budget, everything as asked */
	double spent_s;                  /* already gone before the first workload (boot, calibration) */
	double serial_bytes_per_s;       /* 0: printing is free (no serial port) */
	uint32_t bytes_per_rep;          /* printed per timed repetition (samples=on), besides out_bytes */
	uint32_t n;
	uint32_t first;                  /* items before this one have run: plan_fit leaves them alone */
	uint32_t n_skipped;
	double scale;                    /* the common factor on scalable units (1: as asked) */
	uint32_t reps_cap;               /* the cap put on repetitions (0: none) */
	double estimated_s;              /* spent_s + every item's planned_s */
	const char *how;                 /* "as asked", "units scaled", "repetitions lowered", "configurations skipped",
					    "no budget" */
	uint32_t n_lost;                 /* items past PLAN_MAX_ITEMS, not planned (reported) */
	struct plan_item item[PLAN_MAX_ITEMS];
};

/* Start an empty plan for a budget (0: none). */
void plan_reset(struct plan *p, double budget_s, double serial_bytes_per_s);

/* A new item for workload w, zeroed but for its name; NULL (and counted in
 * n_lost) when the plan is full. */
struct plan_item *plan_add(struct plan *p, uint16_t workload, const char *name);

/* Seconds one item takes with these units and repetitions (warm-up included). */
double plan_item_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps);

/* Seconds of one repetition of an item as decided: what a run_on of it should take. */
double plan_rep_seconds(const struct plan_item *it);

/* Decide units, reps and skips so that spent_s plus every item fits
 * budget_s less PLAN_RESERVE. Returns the number of items skipped. */
uint32_t plan_fit(struct plan *p);

/*
 * Between workloads: items before `first` have run, and spent_s seconds of
 * the budget are gone. Fits the items from `first` on into what is left, as
 * plan_fit does (shrinking them when the run is behind its plan, giving time
 * back when it is ahead), and returns the number skipped. The budget is kept
 * however the estimates erred.
 */
uint32_t plan_refit(struct plan *p, uint32_t first, double spent_s);

/* The next item of workload w after *cursor (start with *cursor = 0); NULL
 * at the end. The workloads walk their items in the order they added them. */
struct plan_item *plan_next(struct plan *p, uint16_t workload, uint32_t *cursor);

/* Planned seconds of one workload's items, and how many it has (and skipped). */
double plan_workload_seconds(const struct plan *p, uint16_t workload, uint32_t *n, uint32_t *skipped);

#endif
