/* noise_run.h - the noise workload's parts: the run on every CPU (noise_run.c), its result and per-CPU records (noise_report.c), and its text, summary and last lines (noise_text.c). */
#ifndef QB_WORKLOADS_NOISE_RUN_H
#define QB_WORKLOADS_NOISE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "gaps.h"
#include "plan.h"
#include "reps.h"
#include "workload.h"

#define NOISE_FULL_LEAST_S 10.0        /* the full profile's loop is short below this */
#define NOISE_LINE_LEN 320             /* the run's last line: a count per cause */

/* One run of the loop on a set of CPUs, and what each CPU saw. */
struct noise_run {
	const struct cpuset *set;
	struct gaps_cfg cfg;           /* what the CPUs share; each sets its own base (gaps_setup_cpu), its
					* bookkeeping's cost, and its end: `ticks` from its own first read */
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
void noise_report(struct wl_item *c, struct noise_run *nr, struct reps *log, bool ok, const char *why);

/* ticks of the TSC in ns (0 when its frequency is unknown). */
double noise_ns(uint64_t ticks);

/* The causes counted on every CPU of the run (every: true) or on some (false). */
uint32_t noise_masks(const struct noise_run *nr, bool every);

/* The text line of the run's t-th CPU (the first few CPUs only). */
void noise_cpu_line(const struct noise_run *nr, uint32_t t);

/* The run's summary line (screen and serial) and its last line, from the
 * CPUs summed in s: the pooled ppm first, rtla's thresholds, what caused
 * the long gaps, and under a hypervisor whose noise it is. */
void noise_lines(const struct wl_ctx *ctx, const struct noise_run *nr, const struct gaps_sum *s);

/* The last line of a run that measured nothing: why. */
void noise_not_measured(const char *why);

#endif
