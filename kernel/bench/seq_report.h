/* seq_report.h - the plan as people and tools read it: the plan's text, its `plan` and `plan_configs` records, and durations as people write them.
 *
 * Part of the sequence (kernel/bench/sequence.h), which decides; this only
 * says what was decided. */
#ifndef QB_BENCH_SEQ_REPORT_H
#define QB_BENCH_SEQ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "plan.h"

/* How the estimates are made, and what they cannot foresee (the plan record's `estimates`). */
#define SEQ_ESTIMATES_NOTE                                                                                     \
	"each configuration's cost per unit of work timed here, just now, on a short run of it; per repetition "    \
	"the barrier and flush, per workload its set-up, and printing at the serial port's measured speed; the "   \
	"run refits the rest at the pace it really goes"
#define SEQ_UNFORESEEN_NOTE                                                                                    \
	"load from outside after calibration (other guests, the host, an emulator's other threads), frequency "    \
	"and thermal changes, SMIs, and costs that do not scale with the work as timed (caches filling, pages "     \
	"first touched)"

/* "1h02m", "3m07s", "12s": s seconds as people write a duration. */
void seq_dur(char *buf, size_t cap, double s);

/* The run's workloads by index, as the plan numbers them (before any report). */
void seq_report_names(const char *const *names, unsigned n);

/* What the plan of the run's workloads (bit i: the table's i-th) says: the text
 * (every configuration with plan_only) and the `plan` record, then the
 * `plan_configs` records. samples says what became of the samples; slow is
 * slow= (0: not set). */
void seq_report_plan(const struct plan *p, uint32_t workloads, bool plan_only, const char *samples, uint32_t slow,
		     double calibration_spread);

/* After a refit that changed something: a line and a `plan_refit` record
 * (when the run now ends, at what pace, and the workloads now skipped whole). */
void seq_report_refit(const struct plan *p, double spent_s, double before_s, uint32_t skipped_before,
		      uint32_t first, const char *where);

#endif
