/* flushprobe.h - a flush done on a set of CPUs through the runner, and the probe that tells what it did to working sets warmed on other CPUs: the measuring half of the run's flush check (kernel/run/flushcheck.h), and the flush the flush workload times (workloads/flush.c). Written once for both platforms.
 *
 * A probe round is one run_on over the flushing CPUs and the probing ones
 * together, three columns in it, each the same steps: each probing CPU (one
 * per cache domain) warms its own set with a chase; they meet; the
 * column's flush runs; they meet again; each probing CPU chases its set,
 * timed. The columns: the method first (its flushing CPUs meet the probes
 * to flush, and rest once they have), then the warm reference (no flush),
 * then the cold one (each probe CLFLUSHes its own set). The references and
 * the flush thus take the same path, inside one job, through the same
 * waits: the runner's posting and waking (once, before any warming) is in
 * no column, and nothing that disturbs the caches in a wait is taken for
 * the flush's work. Between its columns no CPU rests, so a probing vCPU is
 * never halted where its host could run something else on its core.
 *
 * A probing CPU notes what took it away during the round: a gap between
 * two of its TSC reads while it waited (FLUSHPROBE_GAP_NS or more), a piece
 * of a timed chase longer than any memory latency explains, and where the
 * platform counts them (kernel/run/disturb.h) an SMI, a context switch, a
 * migration or a page fault. Such a round is disturbed: the flush check
 * discards its round. */
#ifndef QB_KERNEL_FLUSHPROBE_H
#define QB_KERNEL_FLUSHPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include "flushset.h"
#include "run.h"

#define FLUSHPROBE_MAX_DOMAINS FLUSHSET_MAX_DOMAINS
#define FLUSHPROBE_GAP_NS 100000        /* a gap this long disturbs a round: longer than a timer interrupt or a
                                         * hypervisor's routine exit (10-80 us, 99.9% of this project's bhyve
                                         * guest's gaps), shorter than the time slice another task gets (ms) */
#define FLUSHPROBE_PIECE_LINES 64       /* the timed chase reads the TSC every this many lines */
#define FLUSHPROBE_LINE_MAX_NS 500      /* no line of a chase takes longer from memory: a longer piece is a gap */
#define FLUSHPROBE_UNKNOWN_GHZ 3        /* ticks per ns assumed where the TSC's frequency is unknown */

/* How a flush is done on each CPU by flushprobe_flush and the probe. */
enum flushprobe_kind {
	FLUSHPROBE_WAY,                  /* run_flush_here(way) */
	FLUSHPROBE_READ,                 /* an eviction read of buf (evict_read) */
	FLUSHPROBE_CLFLUSH,              /* CLFLUSH (CLFLUSHOPT with clflushopt) of buf, then MFENCE */
	FLUSHPROBE_NOTHING,              /* the warm reference: the same run, no flush */
};
struct flushprobe_how {
	enum flushprobe_kind kind;
	enum run_flush_way way;
	const volatile uint64_t *buf;
	uint64_t bytes;
	bool clflushopt;
};

/* A flush on every CPU of set, released together: each CPU times its own
 * flush, from its release to its end, and *slowest is the slowest CPU's
 * ticks, the timer's overhead removed. The same span for every method. */
enum run_status flushprobe_flush(const struct cpuset *set, const struct flushprobe_how *how, uint64_t *slowest);

/* bytes from the page allocator in whole 2 MiB pages where there are some
 * (the kernel maps RAM so, and the twin then gets transparent huge pages: a
 * 4 KiB mapping would add page walks to a chase or an eviction read), else in
 * 4 KiB pages; *pages is how many 4 KiB pages are held. 0 without memory. */
uint64_t flushprobe_alloc(uint64_t bytes, int node, uint64_t *pages);

/* ---- The probe ---------------------------------------------------------------- */

/* One probing CPU and the set it warms and chases. */
struct flushprobe_domain {
	uint32_t cpu;                    /* dense CPU number */
	int node;                        /* its NUMA node: where its set is */
	volatile uint64_t *set;
	uint64_t phys, pages, lines;
	uint32_t counted;                /* disturb causes counted on it (bit k: enum gaps_cause k) */
};

struct flushprobe {
	uint32_t n;                      /* domains */
	struct flushprobe_domain dom[FLUSHPROBE_MAX_DOMAINS];
	uint64_t set_bytes;
	uint64_t gap_ticks;              /* FLUSHPROBE_GAP_NS in ticks */
	uint64_t piece_ticks;            /* the longest a chase's piece may take undisturbed */
	const char *why;                 /* set-up failed: why (NULL when it did not) */
};

/* What a round found on one domain. */
struct flushprobe_out {
	uint64_t warm, cold, after;      /* the timed chases, the timer's overhead removed: no flush, CLFLUSH, the method */
	bool wrong;                      /* a chase did not read every line once: a broken set */
	bool disturbed;                  /* something took the probing CPU away (see above) */
	uint64_t longest_wait_gap;       /* ticks: the longest gap between two of its reads while it waited */
	uint64_t longest_piece;          /* ticks: its chases' longest piece */
	uint32_t moved;                  /* the disturb causes that moved during the round */
};

/* Set up a probe per CPU of probes (at most FLUSHPROBE_MAX_DOMAINS; nodes[i]
 * is probes->cpu[i]'s node), each with its own set_bytes set on its node
 * (any node where that one has none), laid as a chase (chase_make), and its
 * counters opened on its CPU (disturb_open). False with p->why on a failure;
 * nothing is then held. */
bool flushprobe_setup(struct flushprobe *p, const struct cpuset *probes, const int *nodes, uint64_t set_bytes);

/* Give back what flushprobe_setup took, counters and sets. */
void flushprobe_teardown(struct flushprobe *p);

/* One round over p's probes and the CPUs of flushers, the method being how,
 * bounded by timeout_ms: out[d] for every domain d, *slowest the slowest
 * flushing CPU's own flush. RUN_OK, or the run's failure (a CPU that waited
 * past the bound for the others: RUN_OVERRUN). */
enum run_status flushprobe_round(struct flushprobe *p, const struct cpuset *flushers, const struct flushprobe_how *how,
				 uint64_t timeout_ms, struct flushprobe_out *out, uint64_t *slowest);

#endif
