/* gaps.h - the noise workload's loop, written once for both platforms: spin reading the clock, and keep every gap between two consecutive reads that is far longer than the loop's own minimum iteration (after rtla's hwnoise/osnoise and the FWQ/FTQ benchmarks).
 *
 * One CPU spins until a planned end, reading the TSC fenced as every timer
 * is (tsc_start: LFENCE; RDTSC; LFENCE). An iteration that took threshold
 * ticks or more (GAPS_FACTOR x this CPU's own minimum iteration, base) is a
 * gap: it is counted, its time lost beyond one ordinary iteration is
 * summed, the longest is kept with when it ended, and it goes into the
 * run's histogram in powers of two from the run's least minimum. Beside
 * them, rtla's absolute thresholds (1 us and 5 us, GAPS_OVER_NS): every
 * iteration that long or longer is counted and its whole length summed, as
 * osnoise's run_osnoise() sums each sample at or over its threshold.
 *
 * After every gap (and every GAPS_REBASE_NS of calm loop) the loop asks the
 * platform's counters (SMIs, interrupts, context switches, migrations,
 * faults) what moved since they were last read: a gap of attr_threshold
 * ticks or more is named by what moved between the read before it and the
 * read right after it, so that an event of another gap, or of a calm
 * stretch long before it, is never credited to it. That bookkeeping is
 * timed: its calibrated cost (gaps_book_time) is left out of the observed
 * time, and a stretch that took the larger of threshold and that cost again
 * beyond it is a stall, a gap of its own as long as the excess plus one
 * ordinary iteration, all of the excess lost.
 *
 * The clock and the counters come through struct gaps_ops, so that unit
 * tests drive the same loop with a fake clock; a NULL clock is the fenced
 * TSC, inlined.
 *
 * Layer: measure (kernel/measure/tsc.h). */
#ifndef QB_KERNEL_GAPS_H
#define QB_KERNEL_GAPS_H

#include <stdbool.h>
#include <stdint.h>

#define GAPS_FACTOR 4                  /* a gap: an iteration 4 times the CPU's own minimum or longer */
#define GAPS_HIST_MAX 48               /* histogram buckets at most (1 tick x 2^47 is 39 h at 1 GHz) */
#define GAPS_HIST_TOP_NS 100000000ull  /* the last bucket starts at the first edge at or past 100 ms */
#define GAPS_ATTR_NS_DEFAULT 1000      /* gaps of 1 us or more are attributed (noise_attr_ns=) */
#define GAPS_MIN_ITERS 4096            /* iterations the calibration times (gaps_loop_time) */
#define GAPS_TIME_BINS 1024            /* gaps_loop_time's histogram: 1 .. 1023 ticks, and longer */
#define GAPS_OVER 2                    /* rtla's thresholds: gaps_over_ns */
#define GAPS_REBASE_NS 1000000ull      /* the counters are read afresh after this much calm loop */
#define GAPS_BOOK_CALLS 9              /* timed bookkeeping calls; their median is its cost */
#define GAPS_STALLS_MAX 16             /* stalls noted in a row at most; then the stretch is left out whole */

/* rtla's thresholds, in ns: hwnoise/osnoise's default (1 us) and osnoise's
 * old default (5 us, tracing_thresh 0). */
extern const uint64_t gaps_over_ns[GAPS_OVER];

/* What can explain a gap, as the platform counts it (gaps_ops.counts). */
enum gaps_cause {
	GAPS_SMI,                      /* bare metal: MSR_SMI_COUNT */
	GAPS_INTERRUPT,                /* Linux: the irq tracepoints of the thread */
	GAPS_SWITCH,                   /* Linux: context switches of the thread */
	GAPS_MIGRATION,                /* Linux: the thread found on another CPU */
	GAPS_FAULT,                    /* Linux: page faults of the thread */
	GAPS_CAUSES
};

/* The platform's clock and counters for the calling CPU. */
struct gaps_ops {
	uint64_t (*clock)(void *arg);  /* NULL: the fenced TSC (tsc_start) */
	/* Fill v[k] for every cause k in mask, counting since any fixed
	 * point; false when they could not be read this time. */
	bool (*counts)(void *arg, uint64_t v[GAPS_CAUSES]);
	uint32_t mask;                 /* bit k: counts fills cause k (0: nothing is counted) */
	void *arg;
};

/* How one CPU's run of the loop judges its iterations (in clock ticks):
 * gaps_setup fills what the run shares, gaps_setup_cpu this CPU's own,
 * gaps_book_time its bookkeeping's cost. */
struct gaps_cfg {
	uint64_t base;                 /* this CPU's minimum iteration: lost time is a gap beyond it */
	uint64_t threshold;            /* GAPS_FACTOR x base: an iteration this long or longer is a gap */
	uint64_t attr_ticks;           /* the attribution threshold as asked */
	uint64_t attr_threshold;       /* a gap this long or longer is attributed: attr_ticks, at least threshold */
	uint64_t over[GAPS_OVER];      /* gaps_over_ns in ticks (0: the clock's rate is unknown) */
	uint64_t trigger;              /* an iteration this long is noted: threshold, or over[0] if shorter */
	uint64_t rebase;               /* GAPS_REBASE_NS in ticks (0: never read on a calm stretch) */
	uint64_t book;                 /* the bookkeeping's cost after a gap (gaps_book_time; 0: not timed) */
	uint64_t hist_base;            /* the run's least minimum: bucket k is [hist_base x 2^k, x 2^(k+1)) */
	uint32_t hist_n;               /* buckets, the last open-ended */
	uint64_t end;                  /* stop at the first read at or past this clock value */
};

/* What one CPU saw. */
struct gaps_cpu {
	uint64_t first, last;          /* the loop's first and last clock read */
	uint64_t base, threshold, book; /* its cfg's, for the records */
	uint64_t iters;                /* iterations timed */
	uint64_t min;                  /* its fastest iteration that advanced the clock (0: none did) */
	uint64_t count;                /* gaps (stalls among them) */
	uint64_t lost;                 /* ticks lost: each gap's length beyond base, summed */
	uint64_t excluded;             /* ticks of bookkeeping at its cost: not observed */
	uint64_t stalls, stall_lost;   /* bookkeeping stretches that were gaps, and their excess */
	uint64_t longest, longest_at;  /* the longest gap, and the clock read that ended it */
	uint64_t over_count[GAPS_OVER]; /* iterations (gaps and stalls) of over[k] ticks or more */
	uint64_t over_lost[GAPS_OVER]; /* their whole lengths, summed (rtla's sum_noise) */
	uint64_t over_longest;         /* the longest iteration noted (at or over trigger) */
	uint64_t backwards;            /* reads earlier than the one before (counted, not gaps) */
	uint64_t reads;                /* counter reads (after gaps, and on calm stretches) */
	uint64_t attributed;           /* gaps of attr_threshold or more */
	uint64_t cause[GAPS_CAUSES];   /* attributed gaps during which each counter moved */
	uint64_t unexplained;          /* attributed gaps during which no counter moved */
	uint64_t unread;               /* attributed gaps whose counters could not be read */
	uint64_t hist[GAPS_HIST_MAX];
	uint64_t seen[GAPS_CAUSES];    /* the counters at their last read */
	bool have_seen;
};

/* The name of a cause in records ("smi", "interrupts", "context_switches", "migrations", "faults"). */
const char *gaps_cause_name(enum gaps_cause k);

/* n iterations of the loop timed: their quantiles, over the iterations that
 * advanced the clock (a clock that moves in steps, or an emulator's, reads
 * the same value twice; 0 ticks is no iteration's length). Each is at least 1. */
struct gaps_loop {
	uint64_t min;                  /* the fastest */
	uint64_t p1, p5, median;       /* the 1st and 5th percentiles, the median */
	uint32_t n, zero;              /* iterations that advanced the clock, and those that did not */
};
void gaps_loop_time(const struct gaps_ops *ops, uint32_t n, struct gaps_loop *out);

/* What the run's CPUs share, from the clock's rate hz (ticks a second; 0:
 * unknown, then over[] and rebase are 0): the histogram from hist_base (the
 * least minimum over the CPUs) to the first edge at or past
 * GAPS_HIST_TOP_NS, at most GAPS_HIST_MAX buckets; the attribution
 * threshold attr_ns; rtla's thresholds; the calm stretch after which the
 * counters are read. Then this CPU's own as if hist_base were its minimum
 * (gaps_setup_cpu). end is the caller's. */
void gaps_setup(struct gaps_cfg *cfg, uint64_t hist_base, uint64_t attr_ns, uint64_t hz);

/* This CPU's own: base (its minimum iteration; 0 counts as 1), threshold
 * GAPS_FACTOR x base, the attribution threshold (never below the
 * threshold) and the trigger. */
void gaps_setup_cpu(struct gaps_cfg *cfg, uint64_t loop_min);

/* On the calling CPU, with its counters open: the cost of the bookkeeping
 * after an attributed gap (count, bin, read the counters, read the clock),
 * the median of GAPS_BOOK_CALLS timed calls, into cfg->book. */
void gaps_book_time(struct gaps_cfg *cfg, const struct gaps_ops *ops);

/* Spin on the calling CPU until the clock reaches cfg->end, into *c (cleared first). */
void gaps_spin(struct gaps_cpu *c, const struct gaps_cfg *cfg, const struct gaps_ops *ops);

/* The ticks the loop observed: last - first, less the bookkeeping excluded. */
uint64_t gaps_observed(const struct gaps_cpu *c);

/* The time lost per second of observed loop, in parts per million; -1
 * when nothing was observed (a statistic of nothing: print it as none). */
double gaps_ppm(const struct gaps_cpu *c);

/* The same at rtla's threshold k (gaps_over_ns[k]): whole gap lengths over
 * the observed time; -1 when nothing was observed. */
double gaps_over_ppm(const struct gaps_cpu *c, uint32_t k);

/* The lower edge of bucket k, in ticks: hist_base x 2^k. */
uint64_t gaps_edge(const struct gaps_cfg *cfg, uint32_t k);

/* Add one CPU's histogram into a run's (atomically: CPUs merge at once). */
void gaps_merge(uint64_t *run_hist, const struct gaps_cpu *c, uint32_t hist_n);

/* The run's CPUs together: every CPU's ticks pooled, beside the mean and
 * the largest of their own ratios. */
struct gaps_sum {
	uint32_t cpus, observed_cpus;  /* CPUs added, and those that observed any time */
	uint64_t observed, lost;       /* ticks, summed over the CPUs */
	uint64_t count, stalls, stall_lost, attributed, unexplained, unread;
	uint64_t cause[GAPS_CAUSES];
	uint64_t over_count[GAPS_OVER], over_lost[GAPS_OVER];
	uint64_t longest, over_longest; /* the longest gap, and the longest iteration noted */
	uint32_t longest_cpu;          /* which added CPU (0-based) had the longest gap */
	uint64_t base_min, base_max, book_min, book_max;
	double ppm_sum, ppm_max;       /* of the CPUs' own ppm, where they observed time */
};
void gaps_sum_add(struct gaps_sum *s, const struct gaps_cpu *c); /* s zeroed before the first */

/* The pooled ppm: all CPUs' ticks lost over all their ticks observed, x
 * 10^6 (lost time over observed CPU-seconds); -1 when nothing was observed. */
double gaps_sum_ppm(const struct gaps_sum *s);

/* The mean of the CPUs' own ppm, over those that observed time; -1 without one. */
double gaps_sum_ppm_mean(const struct gaps_sum *s);

/* The pooled ppm at rtla's threshold k; -1 when nothing was observed. */
double gaps_sum_over_ppm(const struct gaps_sum *s, uint32_t k);

#endif
