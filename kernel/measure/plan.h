/* plan.h - the run's plan: every configuration of every workload, what one unit of its work costs, and what the fit decided for it.
 *
 * Pure: the workloads enumerate their configurations and calibrate them
 * (each workload's plan function); this unit only decides.
 * A configuration's time is once_s + (reps + 1) x (units x unit_s +
 * rep_fixed_s): `reps` timed repetitions after one untimed warm-up, each
 * doing `units` of work (iterations of every thread at once, passes, or
 * sampled pairs), plus what it prints at the serial port's speed; a
 * workload adds its set-up (filling its buffers) once. Everything is
 * multiplied by `pace`, how much slower than calibrated the run has gone so
 * far (1 until the run measures otherwise).
 *
 * The fit (plan_fit.h) gives every workload and every group of experiments in
 * it a fair share of the budget.
 * Nothing is ever shrunk below its minimum: it runs at the minimum or not at all. */
#ifndef QB_KERNEL_PLAN_H
#define QB_KERNEL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define PLAN_MAX_ITEMS 2048
#define PLAN_MAX_WORKLOADS 16
#define PLAN_MAX_GROUPS 8
#define PLAN_GROUP_LEN 16
#define PLAN_NAME_LEN 56
#define PLAN_MIN_REPS 5          /* fewer repetitions give no usable median and spread */
#define PLAN_WHY_LEN 112
#define PLAN_RESERVE 0.10        /* of what is left of the budget, kept for what the model misses */
#define PLAN_PACE_MIN 0.25       /* pace is kept within these: a wild measure does not empty the plan */
#define PLAN_PACE_MAX 64.0

/* What a unit of a configuration is. */
enum plan_unit {
	PLAN_UNIT_ITERS,         /* iterations, done by every thread at once: scalable */
	PLAN_UNIT_PASSES,        /* whole passes over a fixed buffer: not scalable */
	PLAN_UNIT_PAIRS,         /* sampled CPU pairs of a matrix: scalable */
};

/* One configuration. The workload fills the first block, plan_fit the second. */
struct plan_item {
	uint16_t workload;               /* index in the run's workload table (< PLAN_MAX_WORKLOADS) */
	uint8_t unit;                    /* enum plan_unit */
	uint8_t group;                   /* its fair-share group in the workload (< PLAN_MAX_GROUPS, named by plan_group;
					    the `plan` record's "kinds") */
	uint8_t row;                     /* the workload's table row (kernel/bench/workload.h's wl_kind) that runs it */
	bool essential;                  /* part of the workload's smallest meaningful form */
	char name[PLAN_NAME_LEN];        /* "packed 4 threads compact", for the plan */
	uint32_t param[4];               /* the workload's own description */
	double unit_s;                   /* calibrated wall seconds of one unit */
	double unit_spread_s;            /* how far two timings of a unit differed (0: timed once) */
	double rep_fixed_s;              /* wall seconds per repetition besides the units */
	double once_s;                   /* wall seconds per configuration besides its repetitions */
	uint64_t want_units, min_units;  /* units per repetition: as asked, and the fewest that mean something */
	uint32_t want_reps;              /* timed repetitions as asked (0: one measurement with its own samples) */
	uint32_t out_bytes;              /* what it prints: records and text */
	uint32_t out_per_unit;           /* and per unit (a matrix's values per pair) */

	uint64_t units;                  /* decided */
	uint32_t reps;
	bool skip;
	bool least;                      /* in its workload's least form: never dropped while the workload runs */
	char why[PLAN_WHY_LEN];          /* when skip */
	double planned_s;                /* the time it is planned to take */
	double spent_s;                  /* the time it took (the sequence sets it): refits share what is left fairly */
};

/* How one fair-share group of a workload was fitted. */
struct plan_group_fit {
	char name[PLAN_GROUP_LEN];        /* "sweep", "" when the workload named none */
	uint32_t n;                      /* configurations of this group (from `first` on) */
	double least_s, want_s;          /* its least form, and everything as asked */
	double share_s, planned_s;       /* what the fit gave it, and what it is planned to take */
	double scale;                    /* the factor on its scalable units (1: as asked) */
	uint32_t reps_cap;               /* the cap on its repetitions (0: none) */
	uint32_t dropped;                /* configurations dropped to fit */
};

/* One workload's part of the budget. */
struct plan_share {
	double setup_s;                  /* once, before its first configuration (plan_set_setup) */
	double calibration_s;            /* what timing its configurations took (the sequence's) */
	double least_s, want_s;          /* its least form and everything as asked, set-up included */
	double share_s, planned_s;       /* what the fit gave it, and what it is planned to take */
	bool skip;                       /* skipped whole: even its least form does not fit */
	char why[PLAN_WHY_LEN];
	struct plan_group_fit group[PLAN_MAX_GROUPS];
};

/* The whole plan. Large: keep it static. */
struct plan {
	double budget_s;                 /* 0: no budget, everything as asked */
	double spent_s;                  /* already gone before the first workload (boot, calibration) */
	double end_reserve_s;            /* kept at the end of the budget for the last records and saving */
	double serial_bytes_per_s;       /* 0: printing is free (no serial port) */
	double pace;                     /* measured over planned time so far (1: as calibrated) */
	uint32_t bytes_per_rep;          /* printed per timed repetition (samples=on), besides out_bytes */
	uint32_t n;
	uint32_t first;                  /* items before this one have run: plan_fit leaves them alone */
	uint32_t setup_done;             /* bit w: workload w's set-up has run (the sequence sets it) */
	uint32_t n_skipped;              /* items skipped, dropped or in a skipped workload */
	uint32_t n_workloads_skipped;
	double scale;                    /* the smallest factor any group put on its units (1: as asked) */
	uint32_t reps_cap;               /* the lowest repetition cap of any group (0: none) */
	double estimated_s;              /* spent_s + every set-up and item still to come */
	const char *how;                 /* "as asked", "units scaled", "repetitions lowered", "configurations
					    dropped", "workloads skipped", "no budget" */
	uint32_t n_lost;                 /* items past PLAN_MAX_ITEMS, not planned (reported) */
	struct plan_share share[PLAN_MAX_WORKLOADS];
	struct plan_item item[PLAN_MAX_ITEMS];
};

/* Start an empty plan for a budget (0: none). */
void plan_reset(struct plan *p, double budget_s, double serial_bytes_per_s);

/* A new item for workload w, zeroed but for its name; NULL (and counted in
 * n_lost) when the plan is full. */
struct plan_item *plan_add(struct plan *p, uint16_t workload, const char *name);

/* Name group g of workload w ("sweep"): for the plan's text and record (its "kinds"). */
void plan_group(struct plan *p, uint16_t workload, uint8_t group, const char *name);

/* Workload w's set-up before its first configuration, in seconds at pace 1. */
void plan_set_setup(struct plan *p, uint16_t workload, double seconds);

/* Seconds one item takes with these units and repetitions (warm-up included), at the plan's pace. */
double plan_item_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps);

/* The same at pace 1: what the calibration says. */
double plan_item_base_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps);

/* Seconds of one repetition of an item as decided, at the plan's pace: what a run_on of it should take. */
double plan_rep_seconds(const struct plan *p, const struct plan_item *it);

/* The fewest timed repetitions that still make a statistic of it:
 * min(PLAN_MIN_REPS, what was asked). */
uint32_t plan_least_reps(const struct plan_item *it);

/* Seconds the fit may fill: (budget - end_reserve - spent) x (1 - PLAN_RESERVE):
 * a tenth of what is left is kept for what the model misses, at every refit. */
double plan_available_s(const struct plan *p);

/* The next item of workload w after *cursor (start with *cursor = 0); NULL
 * at the end, in the order they were added (the plan's reports walk them so;
 * the run walks the whole plan, kernel/bench/seq_item.c). */
struct plan_item *plan_next(struct plan *p, uint16_t workload, uint32_t *cursor);

/* Planned seconds of one workload's items and set-up, and how many it has (and skipped). */
double plan_workload_seconds(const struct plan *p, uint16_t workload, uint32_t *n, uint32_t *skipped);

/* How far the calibration's own timings disagree, as a fraction of the
 * plan: over the configurations from `first` on that were timed twice, the
 * difference between their two timings times the units and repetitions
 * planned, over what the plan gives them; negative when none was. */
double plan_calibration_spread(const struct plan *p);

/* Planned seconds from item `from` on (it included), with the set-up of
 * every workload still to begin (no item before `from`, not in setup_done). */
double plan_left_s(const struct plan *p, uint32_t from);

#endif
