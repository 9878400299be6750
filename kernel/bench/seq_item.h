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
#include "report.h"
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
	struct report_mark mark;     /* what its results close as (seq_item_fields) */
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

/* ---- The configuration under way (sequence.c), for the walk and the wl_* services ---- */

/* A configuration starts: the last one's time is taken into the pace, the
 * plan is refitted if the run is off its pace (so read it->skip, units and
 * reps after this), and it gets its deadline. */
void seq_item_begin(const struct plan_item *it);

/* Before each repetition of the configuration begun, the untimed warm-up
 * first: whether it fits before the deadline. Always true without a budget. */
bool seq_rep_fits(void);

/* Before each step of a configuration that can stop between steps (the counter matrix's pairs). */
bool seq_step_fits(void);

/* Right after seq_item_begin, for a one-shot that cannot stop halfway:
 * whether its planned time fits what the run has left. */
bool seq_once_fits(void);

/* Why the configuration under way stopped or did not start ("" if it did not). */
const char *seq_stop_reason(void);

/* The configuration stopped early with fewer repetitions (or steps) than a statistic needs. */
bool seq_item_short(void);

/* The bound for one repetition of it now: its planned time x
 * SEQ_BOUND_MARGIN, at least SEQ_BOUND_FLOOR_MS, or run_timeout_ms= when
 * given; never past the run's end. */
uint64_t seq_timeout_ms(const struct plan_item *it);

/* Between repetitions of a long configuration: progress text when due. */
void seq_tick(void);

/* Into a record of configuration it (the one under way): "planned_s"
 * against "measured_s" (since seq_item_begin), and for a configuration
 * with repetitions "reps_planned", "reps_kept" and, when its deadline
 * stopped it, "stopped" (why); and into *m what its results close as: one
 * that would close "ok" with fewer than a statistic needs closes `short`
 * (none at all: `skipped`), one whose bound the budget's end cut as the
 * budget's, with the reason. */
void seq_item_fields(struct rec *r, const struct plan_item *it, struct report_mark *m);

/* A skipped configuration's reason, e.g. for its `skipped` result. */
static inline const char *seq_skip_reason(const struct plan_item *it)
{
	return it->why[0] ? it->why : "skipped by the plan";
}

/* The line that ends the run's text and its summary screen, after every workload. */
void seq_final_line(const char *line);

#endif
