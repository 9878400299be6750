/* deadline.h - the budget as a deadline: when each configuration must end, whether another repetition fits, and how fast the run really goes.
 *
 * Pure: seconds since the run's start in, decisions out (workloads/sequence.c
 * reads the clock, tests/unit/test_deadline.c drives it with a simulated
 * one). The run's work must end at end_s (the budget less what the last
 * records and the save need). A configuration that begins gets its planned
 * time scaled by (time left) / (planned time of everything left): a run that
 * fell behind shrinks every remaining configuration in proportion, one
 * ahead relaxes them. Before each repetition the configuration asks whether
 * one more fits before its deadline, judged by the larger of the planned
 * repetition and the last measured one; the warm-up and one timed
 * repetition need only fit before the run's end, so that a configuration
 * that starts keeps at least one figure, and the repetitions up to the
 * fewest a statistic needs may take DEADLINE_LEAST_SLACK times its time. */
#ifndef QB_KERNEL_DEADLINE_H
#define QB_KERNEL_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#define DEADLINE_WHY_LEN 128
#define DEADLINE_BOUND_MIN_S 0.001      /* the least bound a run_on gets, even at the end */
#define DEADLINE_ONCE_SLACK 2.0         /* a one-shot may take this many times its scaled time */
#define DEADLINE_LEAST_SLACK 2.0        /* the repetitions (or steps) up to the least a statistic needs may
					   take this many times the configuration's scaled time, when that
					   reaches the least: stopped there, it would be short, and what is
					   left absorbs the difference */
#define DEADLINE_PACE_MIN_S 1.0         /* planned seconds run (or twice that measured) before a pace is believed */
#define DEADLINE_PACE_OFF 1.5           /* a pace this far behind the plan's calls for a refit inside a workload */
#define DEADLINE_PACE_NUDGE 1.25        /* between workloads, this far (either way) is taken in */
#define DEADLINE_PACE_WINDOW_S 8.0      /* the pace is of about the last this many seconds of work */
#define DEADLINE_PACE_MIN_ITEMS 3       /* configurations run before a pace is believed: one can be mistimed */

struct deadline {
	double end_s;                    /* the run's work ends here; <= 0: no budget, no deadlines */
	/* The configuration under way. */
	double item_start_s, item_end_s;
	double planned_s;                /* its planned time */
	double rep_s;                    /* one repetition as planned */
	double behind;                   /* how much slower than its plan the run goes now (>= 1) */
	double tail_s;                   /* what it does after its repetitions (its result, printing) */
	double last_check_s;             /* when the last repetition began */
	double last_rep_s;               /* the last repetition as measured (0: none yet) */
	uint32_t reps, least_reps;       /* timed repetitions planned, and the fewest for a statistic (a
					    one-shot: the fewest steps) */
	uint32_t started;                /* repetitions begun, the warm-up counted */
	uint32_t units_done, units;      /* a one-shot's units (a matrix's pairs) */
	bool stopped;                    /* the deadline stopped it */
	char why[DEADLINE_WHY_LEN];
	/* The pace since the last refit: what ran, against what the calibration planned for it. */
	double paced_planned_s, paced_measured_s;
	uint32_t paced_items;
};

/* A run whose work must end at end_s seconds (<= 0: no budget). */
void deadline_start(struct deadline *d, double end_s);

/* A configuration begins at now: planned_s its planned time, left_s the
 * planned time of everything left (it included), rep_s one repetition, all
 * at the plan's pace plan_pace; reps and least_reps its planned repetitions
 * and the fewest that make a statistic (a one-shot: reps 0, `units` its
 * steps and least_reps the fewest that still mean something). Where the run goes slower than the plan's
 * pace (deadline_pace), its estimates are scaled up by as much. */
void deadline_item(struct deadline *d, double now, double planned_s, double left_s, double rep_s, uint32_t reps,
		   uint32_t least_reps, uint32_t units, double plan_pace);

/* Before each repetition (the warm-up first): whether it fits. When it does
 * not, the configuration is stopped and why says so. */
bool deadline_rep_fits(struct deadline *d, double now);

/* Before each unit of a one-shot that can stop between units (a matrix's
 * pairs): whether the next fits before the configuration's deadline. */
bool deadline_unit_fits(struct deadline *d, double now);

/* Before a one-shot that cannot stop halfway: whether est_s seconds fit
 * (before the run's end, and within DEADLINE_ONCE_SLACK x its deadline). */
bool deadline_once_fits(struct deadline *d, double now, double est_s);

/* Timed repetitions kept so far (the warm-up not counted). */
uint32_t deadline_reps_kept(const struct deadline *d);

/* Stopped with fewer repetitions (or units) than a statistic needs: the
 * result is `short` (or, with none at all, not started). */
bool deadline_short(const struct deadline *d);

/* A run_on bound of bound_s, capped by the time left until the run's end
 * (at least DEADLINE_BOUND_MIN_S). */
double deadline_bound_s(const struct deadline *d, double now, double bound_s);

/* What ran: planned_s as calibrated (pace 1) took measured_s. */
void deadline_pace_add(struct deadline *d, double planned_s, double measured_s);

/* Measured over planned, of about the last DEADLINE_PACE_WINDOW_S seconds
 * of work; `otherwise` until DEADLINE_PACE_MIN_ITEMS configurations and
 * DEADLINE_PACE_MIN_S planned seconds (or twice that measured) have run. */
double deadline_pace(const struct deadline *d, double otherwise);

/* Whether the pace measured differs from plan_pace by a factor of `by` or
 * more, either way (DEADLINE_PACE_OFF, DEADLINE_PACE_NUDGE). */
bool deadline_pace_off(const struct deadline *d, double plan_pace, double by);

/* Forget the pace measured (a new run). */
void deadline_pace_reset(struct deadline *d);

#endif
