/* topo_cache.h - the topology decoder's cache half: each CPU's own cache
 * descriptions (leaf 4, 0x8000001D, or 0x80000005/6 with assumed sharing)
 * joined into the machine's cache instances, the L3 of multi-node AMD
 * packages per node. Used by topo.c, which owns struct topo. */
#ifndef QB_KERNEL_TOPO_CACHE_H
#define QB_KERNEL_TOPO_CACHE_H

#include <stdint.h>

#include "cpuid_snap.h"
#include "topo.h"

/* AMD families below 17h: the node (die) has its own L3, and Linux takes
 * the node as the die (cpu_die_id) and the L3's ID (cacheinfo_amd_init_llc_id). */
#define TOPO_AMD_NODE_FAMILY_BELOW	0x17

/*
 * Decodes CPU cpu's caches from its snapshot s (t->cpu[cpu]'s APIC ID and
 * package are already set) and adds cpu to each one's instance, appending
 * the instances to t->cpu[cpu].cache[]. Impossible geometry is rejected and
 * every rejection or disagreement is a message in t.
 */
void topo_cache_decode_cpu(struct topo *t, uint32_t cpu, const struct cpuid_snap *s);

/* Raises a message for instances of one level and type, grouped by APIC ID
 * with different share shifts, that claim the same APIC IDs (hybrid parts
 * mix shifts legitimately, without overlap). */
void topo_cache_check_overlap(struct topo *t);

#endif
