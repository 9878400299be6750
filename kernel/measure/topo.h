/* topo.h - decodes the CPUID snapshots of all CPUs into packages, cores,
 * threads and cache instances (Intel SDM vol. 2A, CPUID leaves 4, 0xB, 0x1F,
 * 0x1A; AMD APM vol. 3, appendix E, and PPR leaves 0x80000005-8, 0x8000001D-E). */
#ifndef QB_KERNEL_TOPO_H
#define QB_KERNEL_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuid_snap.h"
#include "qb_limits.h"

#define TOPO_CPU_CACHES		CPUID_SNAP_MAX_SUB /* caches listed per CPU */
#define TOPO_MAX_CACHES		(4 * QB_MAX_CPUS)  /* instances: L1d+L1i+L2 per CPU, plus shared */
#define TOPO_CACHE_NONE		0xFFFFu		   /* no instance (rejected or table full) */
#define TOPO_SET_WORDS		((QB_MAX_CPUS + 63) / 64)
#define TOPO_MAX_MSGS		32
#define TOPO_MSG_LEN		96
#define TOPO_ID_BITS		32		   /* width of an x2APIC ID */

/* Values match the cache type field of leaf 4 and 0x8000001D EAX[4:0]. */
enum topo_cache_type {
	TOPO_CACHE_DATA = 1,
	TOPO_CACHE_INSTRUCTION = 2,
	TOPO_CACHE_UNIFIED = 3,
};

/* The closest relation between two CPUs, closest first. */
enum topo_rel {
	TOPO_REL_SELF,		/* the same CPU */
	TOPO_REL_SMT,		/* SMT siblings: same core */
	TOPO_REL_L2,		/* same L2 instance, different cores */
	TOPO_REL_L3,		/* same L3 instance, not the same L2 */
	TOPO_REL_PACKAGE,	/* same package, not the same L3 */
	TOPO_REL_REMOTE,	/* different packages */
};

/* A set of dense CPU indexes. */
struct topo_cpuset {
	uint64_t bits[TOPO_SET_WORDS];
};

/* How a cache instance's id is formed. */
enum topo_grouping {
	TOPO_GROUP_APIC = 0,		/* apic_id >> share_shift */
	TOPO_GROUP_NODE,		/* package << 8 | AMD node ID: the L3 of AMD before family 17h */
};

/* One cache instance, identified by (level, type, grouping, share_shift, id). */
struct topo_cache {
	uint8_t level;			/* 1-4 */
	uint8_t type;			/* enum topo_cache_type */
	uint8_t grouping;		/* enum topo_grouping */
	uint8_t share_shift;		/* x2APIC ID bits below the instance ID (0 by node) */
	bool fully_associative;
	bool inclusive;			/* includes the lower levels (EDX bit 1) */
	/*
	 * EDX bit 0 clear. SDM: "0 = WBINVD/INVD from threads sharing this
	 * cache acts upon lower level caches for threads sharing this cache.
	 * 1 = WBINVD/INVD is not guaranteed to act upon lower level caches of
	 * non-originating threads sharing this cache."
	 */
	bool wbinvd_lower_all_sharers;
	bool sharing_assumed;		/* no sharing data: guessed from the level */
	uint32_t id;			/* see grouping */
	uint64_t size;			/* bytes: ways * partitions * line * sets */
	uint32_t line_size;		/* bytes */
	uint32_t ways;
	uint32_t sets;
	uint32_t partitions;
	const char *source;		/* "leaf 4", "0x8000001d", "0x80000005/6 assumed sharing", ... */
	uint32_t nshared;		/* CPUs in shared_by */
	struct topo_cpuset shared_by;	/* dense CPU indexes of the sharers */
};

/* One logical CPU, by dense index (0 is the BSP). IDs are fields of apic_id. */
struct topo_cpu {
	uint32_t apic_id;		/* x2APIC ID (8-bit APIC ID on old parts) */
	uint32_t package;		/* apic_id >> pkg_shift */
	uint32_t die;			/* die ID within the package (AMD: node), 0 without a die level */
	uint32_t core;			/* core ID within the package (die, module bits included) */
	uint32_t thread;		/* SMT ID within the core */
	uint32_t node;			/* NUMA node, 0 when unknown */
	uint8_t core_type;		/* CPUID_CORE_TYPE_ATOM / _CORE, 0 if not hybrid */
	uint8_t ncaches;		/* entries used in cache[] */
	uint16_t cache[TOPO_CPU_CACHES];	/* instance index into topo.cache[] */
};

/* The machine's topology: about 540 KB with QB_MAX_CPUS 1024, so keep it static. */
struct topo {
	uint32_t ncpu;
	enum cpu_vendor vendor;		/* of the BSP */
	const char *source;		/* "leaf 0x1f", "leaf 0xb", "amd 0x8000001e", ... */
	uint8_t smt_bits;		/* thread = apic_id & ((1 << smt_bits) - 1) */
	uint8_t die_shift;		/* die = apic_id bits [pkg_shift-1:die_shift] */
	uint8_t pkg_shift;		/* package = apic_id >> pkg_shift */
	uint32_t npackages;		/* distinct packages */
	uint32_t ncores;		/* distinct (package, core) pairs */
	uint32_t nnodes;		/* distinct nodes */
	struct topo_cpu cpu[QB_MAX_CPUS];
	uint32_t ncaches;
	struct topo_cache cache[TOPO_MAX_CACHES];
	char note[TOPO_MSG_LEN];	/* what the decoding had to assume, "" if nothing */
	uint32_t nmsgs;			/* messages raised, may exceed TOPO_MAX_MSGS */
	char msg[TOPO_MAX_MSGS][TOPO_MSG_LEN];	/* the first TOPO_MAX_MSGS */
};

_Static_assert(TOPO_MAX_CACHES < TOPO_CACHE_NONE, "topo_cpu.cache[] holds uint16_t indexes");
_Static_assert(sizeof(struct topo) < 1024 * 1024, "struct topo must stay under 1 MiB");

/*
 * Decodes snaps[0..ncpu-1] (index 0 is the BSP) with the NUMA node of each
 * (node_of_cpu may be NULL; -1 means unknown, i.e. node 0) into *out. The
 * BSP's snapshot chooses the decoding; every disagreement or rejected leaf
 * is recorded in out->msg. Returns the number of messages (0: clean), or -1
 * when nothing could be decoded (ncpu is 0 or above QB_MAX_CPUS).
 */
int topo_decode(const struct cpuid_snap *snaps, const int32_t *node_of_cpu,
		uint32_t ncpu, struct topo *out);

/* Returns the closest relation of CPUs a and b; TOPO_REL_REMOTE if either is out of range. */
enum topo_rel topo_relation(const struct topo *t, uint32_t a, uint32_t b);

/* Returns "self", "smt", "l2", "l3", "package" or "remote". */
const char *topo_rel_name(enum topo_rel r);

/* Returns true when CPUs a and b share a cache instance of the given level. */
bool topo_shares_cache(const struct topo *t, uint32_t a, uint32_t b, uint8_t level);

/* Returns the data or unified cache of CPU cpu at level, or NULL. */
const struct topo_cache *topo_cpu_cache(const struct topo *t, uint32_t cpu,
					uint8_t level);

/* Returns "data", "instruction" or "unified". */
const char *topo_cache_type_name(enum topo_cache_type type);

#define TOPO_NO_L3 UINT32_MAX

/*
 * The one walk over each L3 and its CPUs, for the kernel and the Linux twin
 * alike (each L3's counters are one set, counted once per L3): the data or
 * unified level-3 caches of t, numbered from 0 in t's cache order. For each
 * topology CPU k, l3_of[cpu_of_topo[k]] is its L3's number (every other
 * entry of l3_of, QB_MAX_CPUS of them, is TOPO_NO_L3), and first[n] (room
 * for QB_MAX_CPUS) is L3 n's first CPU slot in topology order. Returns the
 * number of L3s.
 */
uint32_t topo_l3s(const struct topo *t, const uint32_t *cpu_of_topo, uint32_t *l3_of, uint32_t *first);

/*
 * For the decoder's units (topo.c, topo_cache.c): records a message in t.
 * fmt may hold %s (prints s) and up to three %u/%x (print a, b, c in order,
 * decimal or hex). Messages past TOPO_MAX_MSGS are counted but not kept.
 */
void topo_note(struct topo *t, const char *fmt, const char *s, uint32_t a,
	       uint32_t b, uint32_t c);

/* Sets t->note (fmt with one %s, printing s) unless a note is already set:
 * what was assumed is said once, not per CPU. */
void topo_set_note(struct topo *t, const char *fmt, const char *s);

/* Bits that hold n IDs: ceil(log2(n)), 0 for n <= 1. */
static inline uint32_t topo_ceil_log2(uint32_t n)
{
	return n <= 1 ? 0 : (uint32_t)(TOPO_ID_BITS - __builtin_clz(n - 1));
}

/* v >> shift, 0 when shift is the width of v or more. */
static inline uint32_t topo_shr(uint32_t v, uint32_t shift)
{
	return shift >= TOPO_ID_BITS ? 0 : v >> shift;
}

/* Returns true when dense CPU index cpu is in set s. */
static inline bool topo_cpuset_has(const struct topo_cpuset *s, uint32_t cpu)
{
	return cpu < QB_MAX_CPUS && ((s->bits[cpu / 64] >> (cpu % 64)) & 1u);
}

/* Adds dense CPU index cpu (below QB_MAX_CPUS) to set s. */
static inline void topo_cpuset_add(struct topo_cpuset *s, uint32_t cpu)
{
	s->bits[cpu / 64] |= 1ull << (cpu % 64);
}

#endif
