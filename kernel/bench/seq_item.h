/* seq_item.h - the framework's side of the workload interface (kernel/bench/workload.h): the plan being made, the configuration under way, the walk over one workload's configurations. Private to kernel/bench.
 *
 * Part of the sequence (sequence.h): sequence.c calibrates, fits and keeps
 * the budget; seq_item.c keeps each configuration's own description (its
 * wl_cfg), the configurations a machine lacks (wl_absent) in their place,
 * and walks a table workload's items, writing what the budget and the plan
 * decide (skipped, absent) so that no workload writes it. */
#ifndef QB_BENCH_SEQ_ITEM_H
#define QB_BENCH_SEQ_ITEM_H

#include <stdbool.h>
#include <stdint.h>
#include "plan.h"
#include "workload.h"

#define SEQ_MAX_ABSENT 256           /* configurations a machine lacks, all workloads together */

/* The plan being made by one workload's plan(). */
struct wl_plan {
	struct plan *p;
	uint16_t w;                  /* the workload's index in the run's table */
	const struct workload *wl;
	uint32_t first;              /* its first item */
};

/* A configuration under way (it), or a calibration run (it NULL, outer
 * NULL), or repetitions inside a step of one (outer set). */
struct wl_item {
	const struct workload *wl;
	const struct wl_ctx *x;
	struct plan_item *it;
	const struct wl_cfg *cfg;
	const struct wl_kind *kind;
	struct wl_item *outer;
	uint64_t units;              /* a calibration's or an inner item's units and repetitions */
	uint32_t reps;
	uint32_t started;            /* wl_rep calls that said yes, the warm-up included */
	uint32_t results;            /* results written (for the outer item) */
};

/* A new run's plan: no configurations kept, no absent ones. */
void seq_item_reset(void);

/* Workload w's plan() into p: its groups named, then its configurations. */
void seq_item_plan(struct plan *p, uint16_t w, const struct workload *wl, const struct wl_ctx *x);

/* Walk workload w's configurations in plan order (a table workload): each
 * begun (seq_item_begin), skipped with the plan's or the deadline's or a
 * set-up's reason, or run by its kind; the absent ones in their place;
 * set-ups and tear-downs; the workload's finish last. */
void seq_item_walk(struct plan *p, uint16_t w, const struct workload *wl, const struct wl_ctx *x);

#endif
