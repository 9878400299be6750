/* flushcheck.h - every flush gets a verdict, and a fallback: at the start of a run each flush the run will use is tried on a working set and judged on the flush workload's scale (kernel/measure/cold.h); where the run's own flush is ineffective the run's flush becomes an eviction read, the workloads CLFLUSH their own data as always, and every result names the flush it got. Written once for both platforms.
 *
 * A hypervisor may ignore WBINVD (KVM does unless the guest has non-coherent
 * DMA): the chase after it is then as fast as the warm one, and the
 * repetitions that relied on it would start warm. Where CLFLUSH of the set
 * itself makes no measurable difference (an emulator without caches, QEMU
 * TCG), the verdict is "cannot tell: no visible caches", and nothing is
 * claimed or changed. */
#ifndef QB_KERNEL_FLUSHCHECK_H
#define QB_KERNEL_FLUSHCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "run.h"
#include "topo.h"

#define FLUSHCHECK_ROUNDS 7             /* timed rounds of the probe, after one untimed */
#define FLUSHCHECK_QUICK_SET_MAX (512ull << 10)
#define FLUSHCHECK_FALLBACK_LLC (8ull << 20) /* the LLC's size when the topology lists no cache */

/* What the probe needs to know of the run. */
struct flushcheck_cfg {
	const struct cpuset *online;     /* the run's CPUs, BSP first */
	const struct topo *topo;         /* indexed by topology number */
	const uint32_t *cpu_of_topo;     /* topology number -> dense CPU number */
	bool quick;                      /* profile=quick: the set at most FLUSHCHECK_QUICK_SET_MAX, as flush's */
	bool has_wbinvd;                 /* the platform's own flush is WBINVD (else the eviction read) */
};

/* On the BSP, before the plan is calibrated (so that it prices the flush the
 * run will use): the chase after each flush the run will use, against the
 * warm chase and CLFLUSH of the set, in FLUSHCHECK_ROUNDS interleaved rounds;
 * bare metal: WBINVD on every CPU (the run's flush) and on one CPU per LLC
 * (flush's wbinvd-per-domain); Linux: the eviction read (the run's flush).
 * When the run's flush is ineffective, the eviction buffer is set up, the
 * run falls back to it (run_flush_fallback) and the eviction read is judged
 * too. Prints a line per flush. */
void flushcheck_run(const struct flushcheck_cfg *cfg);

/* Into the run's `state` record: "flush_check", what flushcheck_run found
 * (docs/records.md). Says "not checked" before it ran. */
void flushcheck_rec(struct rec *r);

/* The run's flush as the results name it: "wbinvd" or "eviction-read" (the
 * platform's own), or "clflush+eviction-read" after a fallback. */
const char *flushcheck_run_flush(void);

/* Into an open params object of a result: "flush", the run's flush and
 * suffix ("none" when !flushed); with a flush, "flush_verdict" (the verdict
 * on the flush it got) and, after a fallback, "flush_fallback" (what it
 * replaced, and why). */
void flushcheck_params(struct rec *r, bool flushed, const char *suffix);

/* ---- Shared with the flush workload ------------------------------------------ */

/* The last-level cache's size: the largest data or unified cache of the top
 * level (FLUSHCHECK_FALLBACK_LLC when the topology lists none). */
uint64_t flushcheck_llc_bytes(const struct topo *t);

/* The working set of a chase: an eighth of the LLC, in whole 4 KiB pages
 * (quick: at most FLUSHCHECK_QUICK_SET_MAX). A random chase over more of it
 * misses even when warm (a shared 32 MiB-L3 EPYC guest, ticks per line
 * warm/cold: 343/343 at a half, 95-310/275 at a quarter, 20/120 at an
 * eighth): the LLC is shared with other cores and tenants, its replacement is
 * not LRU, and the pages outnumber the TLB. */
uint64_t flushcheck_set_bytes(uint64_t llc, bool quick);

/* One CPU per last-level cache instance, the lowest-numbered sharer, into
 * *out; the BSP alone when the topology lists no cache. */
void flushcheck_domains(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
			struct cpuset *out);

/* bytes from the page allocator in whole 2 MiB pages where there are some
 * (the kernel maps RAM so, and the twin then gets transparent huge pages: a
 * 4 KiB mapping would add page walks to a chase or an eviction read), else in
 * 4 KiB pages; *pages is how many 4 KiB pages are held. 0 without memory. */
uint64_t flushcheck_alloc(uint64_t bytes, int node, uint64_t *pages);

/* How a flush is done on each CPU by flushcheck_flush. */
enum flushcheck_kind {
	FLUSHCHECK_WAY,                  /* run_flush_here(way) */
	FLUSHCHECK_READ,                 /* an eviction read of buf (evict_read) */
	FLUSHCHECK_CLFLUSH,              /* CLFLUSH (CLFLUSHOPT with clflushopt) of buf, then MFENCE */
	FLUSHCHECK_NOTHING,              /* the warm reference: the same run, no flush */
};
struct flushcheck_how {
	enum flushcheck_kind kind;
	enum run_flush_way way;
	const volatile uint64_t *buf;
	uint64_t bytes;
	bool clflushopt;
};

/* A flush on every CPU of set, released together: each CPU times its own
 * flush, from its release to its end, and *slowest is the slowest CPU's
 * ticks, the timer's overhead removed. The same span for every method. */
enum run_status flushcheck_flush(const struct cpuset *set, const struct flushcheck_how *how, uint64_t *slowest);

#endif
