/* gaps.h - the noise workload's loop, written once for both platforms: spin reading the clock, and keep every gap between two consecutive reads that is far longer than the loop's own minimum iteration (after rtla's hwnoise/osnoise and the FWQ/FTQ benchmarks).
 *
 * One CPU spins until a planned end, reading the TSC fenced as every timer
 * is (tsc_start: LFENCE; RDTSC; LFENCE). An iteration that took threshold
 * ticks or more is a gap: it is counted, its time lost beyond one ordinary
 * iteration is summed, the longest is kept with when it ended, and it goes
 * into a histogram in powers of two from the loop's minimum. A gap of
 * attr_threshold ticks or more is attributed: only then, after it, does the
 * loop ask the platform's counters (SMIs, interrupts, context switches,
 * migrations, faults) what moved since they were last read, so that
 * reading them never disturbs the loop. The time spent recording a gap and
 * reading counters is left out of the observed time, not counted as noise.
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

#define GAPS_FACTOR 4                  /* a gap: an iteration 4 times the loop's minimum or longer */
#define GAPS_HIST_MAX 48               /* histogram buckets at most (1 tick x 2^47 is 39 h at 1 GHz) */
#define GAPS_HIST_TOP_NS 100000000ull  /* the last bucket starts at the first edge at or past 100 ms */
#define GAPS_ATTR_NS_DEFAULT 1000      /* gaps of 1 us or more are attributed (noise_attr_ns=) */
#define GAPS_MIN_ITERS 4096            /* iterations the calibration times (gaps_loop_time) */
#define GAPS_TIME_BINS 1024            /* gaps_loop_time's histogram: 1 .. 1023 ticks, and longer */

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

/* How one run of the loop judges its iterations (in clock ticks). */
struct gaps_cfg {
	uint64_t base;                 /* the loop's minimum iteration: lost time is a gap beyond it */
	uint64_t threshold;            /* an iteration this long or longer is a gap */
	uint64_t attr_threshold;       /* a gap this long or longer is attributed */
	uint32_t hist_n;               /* buckets: [base x 2^k, base x 2^(k+1)), the last open-ended */
	uint64_t end;                  /* stop at the first read at or past this clock value */
};

/* What one CPU saw. */
struct gaps_cpu {
	uint64_t first, last;          /* the loop's first and last clock read */
	uint64_t iters;                /* iterations timed */
	uint64_t min;                  /* its fastest iteration that advanced the clock (0: none did) */
	uint64_t count;                /* gaps */
	uint64_t lost;                 /* ticks lost: each gap's length beyond base, summed */
	uint64_t excluded;             /* ticks spent recording gaps and reading counters: not observed */
	uint64_t longest, longest_at;  /* the longest gap, and the clock read that ended it */
	uint64_t backwards;            /* reads earlier than the one before (counted, not gaps) */
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

/* A run's settings from the loop's minimum iteration (base): threshold
 * GAPS_FACTOR x base, the attribution threshold (never below the
 * threshold), and as many buckets as reach
 * top_ticks (GAPS_HIST_TOP_NS in ticks), at most GAPS_HIST_MAX. end is the
 * caller's. */
void gaps_setup(struct gaps_cfg *cfg, uint64_t loop_min, uint64_t attr_ticks, uint64_t top_ticks);

/* Spin on the calling CPU until the clock reaches cfg->end, into *c (cleared first). */
void gaps_spin(struct gaps_cpu *c, const struct gaps_cfg *cfg, const struct gaps_ops *ops);

/* The ticks the loop observed: last - first, less what was excluded. */
uint64_t gaps_observed(const struct gaps_cpu *c);

/* The time lost per second of observed loop, in parts per million; -1
 * when nothing was observed (a statistic of nothing: print it as none). */
double gaps_ppm(const struct gaps_cpu *c);

/* The lower edge of bucket k, in ticks: base x 2^k. */
uint64_t gaps_edge(const struct gaps_cfg *cfg, uint32_t k);

/* Add one CPU's histogram into a run's (atomically: CPUs merge at once). */
void gaps_merge(uint64_t *run_hist, const struct gaps_cpu *c, uint32_t hist_n);

#endif
