/* counter.h - shared parts of the counter workload (counter.c, counter_matrix.c). */
#ifndef QB_WORKLOADS_COUNTER_H
#define QB_WORKLOADS_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include "workload.h"

/* The kinds of configuration (counter.c's table). */
enum counter_row { C_SWEEP, C_BASE, C_PAIR, C_MATRIX, C_ROWS };

/* One packed two-thread configuration on s (the matrix's pair): its warm-up
 * and timed repetitions as c (an inner item of the matrix) gives them.
 * *tpi: the figure's ticks per increment; false on a failed check
 * (*overrun: it stopped at its bound). */
bool counter_pair(struct wl_item *c, const struct cpuset *s, double *tpi, bool *overrun);

/* Seconds per increment of the packed pair on s, from calibration runs
 * growing from `units` to at most max; *fixed and *spread as the counter's
 * configurations have them (plan.h's rep_fixed_s, unit_spread_s). */
double counter_pair_per_unit(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t units, uint64_t max,
			     double *fixed, double *spread);

/* Add the matrix to the plan (kind `kind`, fair-share group `group`), its
 * pairs calibrated on the machine's two farthest CPUs; nothing on one CPU. */
void counter_matrix_plan(const struct wl_ctx *ctx, struct wl_plan *p, unsigned kind, uint8_t group,
			 uint64_t want_iters);

/* Measure the matrix as planned: an even sample of the CPUs covering
 * wl_units(c) pairs, every pair until the deadline; a `matrix` record (and
 * `matrix_row` records past 64 CPUs). */
void counter_matrix_run(struct wl_item *c);

#endif
