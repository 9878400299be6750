/* reps.h - the repetitions of one measured configuration: each thread's ticks, what the hardware did, and the result's statistics over all and over clean repetitions.
 *
 * A repetition is flagged when any of its threads saw an SMI, throttling, a
 * TSC that went backwards, or a frequency more than 1% away from the
 * configuration's first repetition. Every result then carries statistics
 * over all repetitions and over the clean ones, with the counts of each, the
 * noise seen, and the performance counters' medians. What the CPU does not
 * offer is written as "unavailable", never as 0. */
#ifndef QB_KERNEL_REPS_H
#define QB_KERNEL_REPS_H

#include <stdbool.h>
#include <stdint.h>
#include "instr.h"
#include "qb_limits.h"
#include "record.h"
#include "stats.h"

#define REPS_MAX 256

struct reps {
	uint32_t threads, n;
	uint64_t slowest[REPS_MAX];             /* per repetition: the slowest thread, overhead removed */
	bool flagged[REPS_MAX];
	uint32_t flags;                         /* union of NOISE_FLAG_* seen */
	uint32_t flagged_by[NOISE_FLAG_COUNT];  /* repetitions flagged for each NOISE_FLAG_* bit */
	bool have_freq, have_smi, have_therm, have_sched;
	double ref_mhz, freq_min, freq_max;
	uint64_t smis;
	uint32_t pmu_n;                         /* counters read in every repetition (0: none) */
	uint64_t pmu[REPS_MAX][PMU_MAX_EVENTS]; /* per repetition: summed over threads */
	struct stats stats;                     /* over all repetitions, after reps_stats() */
	struct stats clean;                     /* over the unflagged ones, after reps_stats() */
	uint32_t n_clean;                       /* unflagged repetitions, after reps_stats() */
	bool noisy;                             /* fewer than half are clean, after reps_stats() */
	bool have_irq, have_faults;             /* Linux twin: interrupts, page faults counted per repetition */
	uint32_t irq_missed;                    /* threads x repetitions whose interrupts were not counted */
	uint64_t irqs, faults;                  /* summed over threads and repetitions */
	uint32_t n_freq;                        /* repetitions whose clock was read */
	uint64_t freq_khz[REPS_MAX];            /* their clocks (the threads' mean), in kHz */
	/* Per thread and repetition, in storage sized for the machine's CPUs
	 * (reps_set_storage): 2 MiB for 1024 CPUs is not kept in the image. */
	uint64_t (*thread)[REPS_MAX];
};

/* Where the per-thread repetitions go: room for `threads` threads (the
 * platform allocates it once the CPUs are known). Without it, one thread. */
void reps_set_storage(uint64_t (*buf)[REPS_MAX], uint32_t threads);

/* samples=on (the default): reps_report adds "samples", every repetition's
 * ticks (the slowest thread's, overhead removed, in order), and
 * "samples_flagged", the indices of the flagged ones. A record then grows by
 * up to REPS_MAX numbers; samples=off, or a budget that cannot afford them,
 * leaves them out. */
void reps_keep_samples(bool on);
bool reps_samples_on(void);

/* The workload under way measures page faults itself (first-touch): a
 * repetition's faults are counted, not flagged. The sequence sets it per
 * workload. */
void reps_faults_measured(bool on);

/* The median of the repetitions' core clocks in MHz (0 when none was read),
 * and why there is none. */
double reps_clock_mhz(const struct reps *r);
const char *reps_clock_why(void);

/* What the results reported since the last reps_tally_take said about
 * noise: for a workload's summary line on the screen. */
struct reps_tally {
	uint32_t results;            /* reps_report calls */
	uint32_t flagged;            /* results with a flagged repetition */
	uint32_t noisy;              /* results whose figure is noisy (fewer than half clean) */
	uint32_t unchecked;          /* results where no real detector ran (the TSC check alone) */
	double max_cv;               /* the largest cv over all repetitions */
};

/* Return the tally so far and start a new one. */
struct reps_tally reps_tally_take(void);

/* Start collecting a configuration run on `threads` threads (the one shared log). */
struct reps *reps_begin(uint32_t threads);

/* Add one timed repetition: each thread's raw ticks (the timer overhead is
 * subtracted here) and, if not NULL, what instr_end saw on each thread. */
void reps_add(struct reps *r, const uint64_t *ticks, const struct instr_thread *instr);

/* Statistics of the slowest thread over all repetitions (also kept in
 * r->stats), and over the clean ones (r->clean, r->n_clean, r->noisy). */
const struct stats *reps_stats(struct reps *r);

/* The result's figure: the clean repetitions' statistics, unless fewer than
 * half of the repetitions are clean (noisy): then all of them. n is 0 when
 * nothing was timed. What workloads derive their fields from. */
const struct stats *reps_figure(struct reps *r);

/* Median ticks of one thread over the figure's repetitions. */
double reps_thread_median(struct reps *r, uint32_t t);

/* Write unit, the statistics over all repetitions, "clean" (the same over
 * unflagged ones, with counts and the detectors that really ran), "noisy"
 * (false, or the clean count and the flags that fired), "figure" ("clean",
 * "all" or null), "samples" and "samples_flagged" (samples=on), "noise" and
 * "counters" into a result record, and make the figure and the median clock
 * the result's (report_figure_set, report_clock_set) for report_measures. */
void reps_report(struct rec *rec, struct reps *r);

/* "noisy" and "figure" for a result measured over one span (no
 * repetitions): noisy when the span was flagged. Sets the result's figure,
 * and its clock from the span's (it not NULL). */
void reps_span_figure(struct rec *rec, const struct stats *st, const struct instr_thread *it);

/* "samples" of a one-span result: at most REPS_MAX of its n values, evenly
 * strided, with "samples_stride" (samples=on). */
void reps_span_samples(struct rec *rec, const uint64_t *v, uint64_t n);

/* Only "noise" and "counters" of the repetitions (for a result whose
 * statistics are of something else measured in the same repetitions); sets
 * the result's clock (report_clock_set) to theirs. */
void reps_report_noise(struct rec *rec, struct reps *r);

/* The "noise" and "counters" of a single measured span (no repetitions). */
void reps_report_span(struct rec *rec, const struct instr_thread *it);

#endif
