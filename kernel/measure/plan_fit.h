/* plan_fit.h - fits the plan to the time budget: a fair share for every workload and every kind of experiment in it.
 *
 * Each configuration belongs to an experiment `kind` of its
 * workload (counter: sweep, pairs, matrix), and the `essential` ones make
 * the workload's smallest meaningful form (counter: packed and padded at 1
 * and at all threads). The least form of a kind is its essential items at
 * their minimum units and repetitions, and at least one item (the cheapest)
 * when none is essential; a workload's is its kinds' and its set-up. When
 * the budget cannot hold everything as asked, plan_fit:
 *   1. gives every workload its least form, then shares the rest by water
 *      filling: each gets what it asks or an equal level, whichever is less;
 *      a workload is skipped whole only when the least forms of all do not
 *      fit (the dearest least form first), with the reason;
 *   2. shares each workload's part among its kinds the same way;
 *   3. fits each kind into its share: the units of its scalable
 *      configurations by one factor (a matrix's pairs by its square root),
 *      then its repetitions by one cap (never below PLAN_MIN_REPS), then
 *      its dearest configurations that are not in the least form are
 *      dropped, each with the reason;
 *   4. gives what rounding left over back to the kinds and workloads that
 *      still want more.
 */
#ifndef QB_KERNEL_PLAN_FIT_H
#define QB_KERNEL_PLAN_FIT_H

#include "plan.h"

/* Decide units, reps and skips so that spent_s plus every set-up and item
 * fits what the budget leaves (plan_available_s). Returns the number of
 * items skipped. */
uint32_t plan_fit(struct plan *p);

/*
 * Between workloads: items before `first` have run, spent_s seconds of the
 * budget are gone and the run went at `pace` (clamped to PLAN_PACE_MIN ..
 * PLAN_PACE_MAX). Fits the items from `first` on into what is left, as
 * plan_fit does (shrinking them when the run is behind its plan, giving time
 * back when it is ahead), and returns the number skipped.
 */
uint32_t plan_refit(struct plan *p, uint32_t first, double spent_s, double pace);

#endif
