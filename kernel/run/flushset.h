/* flushset.h - what the run's flush check probes (kernel/run/flushcheck.h) and the flush workload chases (workloads/flush.c): the working set's size, chosen against the caches CPUID lists, and the CPUs of each last-level cache domain, those that probe and those that flush for wbinvd-per-domain. Pure: the topology in, sizes and CPU sets out. */
#ifndef QB_KERNEL_FLUSHSET_H
#define QB_KERNEL_FLUSHSET_H

#include <stdbool.h>
#include <stdint.h>
#include "run.h"
#include "topo.h"

#define FLUSHSET_MAX_DOMAINS 64       /* cache domains probed at once (a 2-socket Zen 4c has 32 CCXs) */
#define FLUSHSET_QUICK_MAX (512ull << 10) /* no shared cache visible, profile=quick: the set at most this */
#define FLUSHSET_FALLBACK_LLC (8ull << 20) /* the LLC's size when the topology lists no cache */
#define FLUSHSET_BELOW_X 2            /* the set: twice the largest cache below the LLC, */
#define FLUSHSET_LLC_MIN_DIV 32       /* at least a 32nd of the LLC */
#define FLUSHSET_LLC_MAX_DIV 4        /* and at most a quarter of it */
#define FLUSHSET_NO_SHARED_DIV 8      /* no shared cache visible: an eighth of the largest cache, as before */

/* The last-level cache's size: the largest data or unified cache of the top
 * level (FLUSHSET_FALLBACK_LLC when the topology lists none). */
uint64_t flushset_llc_bytes(const struct topo *t);

/* The working set of a chase, and why it is that size. */
struct flushset_size {
	uint64_t llc;                    /* flushset_llc_bytes */
	uint64_t below;                  /* the largest data or unified cache below the LLC's level (0: none) */
	bool shared;                     /* a top-level cache is shared by two cores or more */
	uint64_t set;                    /* bytes, whole 4 KiB pages */
	const char *why;                 /* how set was chosen, in words (valid until the next call) */
};

/* Where the top-level cache is shared by cores: twice the largest cache
 * below it, at least a 32nd and at most a quarter of it, in both profiles,
 * so that a warm set is in the LLC, not in a private cache, and a flush that
 * leaves it in the LLC reads near 0% (a 512 KiB set sits in the L2 of Zen 4
 * and Golden Cove, where a flush that leaves it in the L3 scored 25-30%).
 * Where none is visible (a VM that hides its L3): an eighth of the largest
 * cache, quick at most FLUSHSET_QUICK_MAX, and why says so. */
void flushset_size(const struct topo *t, bool quick, struct flushset_size *out);

/* One CPU per last-level cache instance, the lowest-numbered sharer, into
 * *out: where flush's wbinvd-per-domain runs; the BSP alone when the
 * topology lists no cache. */
void flushset_domains(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
		      struct cpuset *out);

/* The CPUs that probe: where a shared top-level cache is visible, one per
 * instance, its highest-numbered sharer (so that wbinvd-per-domain, done by
 * the lowest, must reach another CPU's private caches), with its node in
 * nodes[i], at most FLUSHSET_MAX_DOMAINS of them (*total: all instances);
 * else the BSP alone. */
void flushset_probes(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
		     struct cpuset *out, int *nodes, uint32_t *total);

#endif
