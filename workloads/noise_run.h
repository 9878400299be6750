/* noise_run.h - the noise workload's two halves: the run on every CPU (noise_run.c) and its result, per-CPU records and lines (noise_report.c). */
#ifndef QB_WORKLOADS_NOISE_RUN_H
#define QB_WORKLOADS_NOISE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "gaps.h"
#include "plan.h"
#include "reps.h"
#include "workload.h"

#define NOISE_FULL_LEAST_S 10.0        /* the full profile's loop is short below this */

/* One run of the loop on a set of CPUs, and what each CPU saw. */
struct noise_run {
	const struct cpuset *set;
	struct gaps_cfg cfg;           /* cfg.end unused: each CPU spins `ticks` from its own first read */
	uint64_t ticks;                /* the loop's planned length on each CPU */
	double seconds;
	uint64_t attr_ns;              /* noise_attr_ns= as asked */
	struct gaps_cpu *cpu;          /* per thread, in the set's order */
	uint32_t *mask;                /* per thread: the causes its platform counted (bit k: enum gaps_cause k) */
	uint64_t hist[GAPS_HIST_MAX];  /* every CPU's histogram, merged */
	uint64_t *scratch;             /* room for 2 x set->n values */
};

/* The `result` record (workload "noise", variant "tsc-gaps"), a `noise_cpu`
 * record per CPU, the text, the summary line and the run's last line. ok
 * false: the run failed (why); the result then fails too. */
void noise_report(const struct wl_ctx *ctx, const struct plan_item *it, struct noise_run *nr, struct reps *log,
		  bool ok, const char *why);

/* The same records for a loop that did not run: the result skipped with why. */
void noise_report_skipped(const struct wl_ctx *ctx, const char *why);

#endif
