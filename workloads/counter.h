/* counter.h - shared parts of the counter workload (counter.c, counter_matrix.c). */
#ifndef QB_WORKLOADS_COUNTER_H
#define QB_WORKLOADS_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include "workload.h"

#define COUNTER_KIND_MATRIX 3         /* a plan item's param[0]: the matrix (counter.c's item kinds) */

/* One packed two-thread configuration on s (the matrix's pair): its warm-up
 * and reps timed repetitions of iters increments each, as far as the
 * deadline of `it` allows. *tpi: the figure's ticks per increment; false
 * on a failed check (*overrun: it stopped at its bound). */
bool counter_pair(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t iters, uint32_t reps,
		  const struct plan_item *it, double *tpi, bool *overrun);

/* Seconds per increment of the packed pair on s, from calibration runs
 * growing from `units` to at most max; *fixed and *spread as the counter's
 * configurations have them (plan.h's rep_fixed_s, unit_spread_s). */
double counter_pair_per_unit(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t units, uint64_t max,
			     double *fixed, double *spread);

/* Add the matrix to the plan (kind `kind`), its pairs calibrated on the
 * machine's two farthest CPUs; nothing on one CPU. */
void counter_matrix_plan(const struct wl_ctx *ctx, uint8_t kind, uint64_t want_iters);

/* Measure the matrix as planned: an even sample of the CPUs covering
 * it->units pairs, every pair until the deadline; a `matrix` record (and
 * `matrix_row` records past 64 CPUs). */
void counter_matrix_run(const struct wl_ctx *ctx, const struct plan_item *it, uint64_t want_iters);

#endif
