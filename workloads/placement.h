/* placement.h - which CPUs a multi-threaded workload runs on, chosen from the
 * decoded topology (kernel/measure/topo.h): compact and scatter orders, one pair per
 * topology relation, and the thread counts and CPU samples of a sweep. */
#ifndef QB_WORKLOADS_PLACEMENT_H
#define QB_WORKLOADS_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"
#include "topo.h"

/* How the threads of a run are laid out over the machine. */
enum place_how {
	PLACE_COMPACT,	/* fill an SMT core, then an L2, an L3, a package, a node */
	PLACE_SCATTER,	/* one thread per package and L3 first, SMT siblings last */
};

/* Returns "compact" or "scatter" ("?" for any other value). */
const char *place_name(enum place_how k);

/*
 * Writes every topology CPU (topo numbers) in the order of kind k to
 * out[0..t->ncpu). Compact sorts by node, package, L3 instance, L2 instance,
 * core, thread. Scatter deals the CPUs round-robin: the first core of each
 * (node, package)'s first L3, then of each one's second L3, ..., then of
 * each L3's second L2, then the second core of each L2, ..., and the SMT
 * siblings of all of those last. Instances are ordered by the lowest APIC ID
 * they cover; ties go to the lower topo number. Returns t->ncpu, or 0 for an
 * unknown kind or a topology above QB_MAX_CPUS. Not reentrant: scatter uses
 * a static scratch array (call it from one CPU at a time).
 */
uint32_t place_order(const struct topo *t, enum place_how k, uint32_t *out);

/*
 * Fills set with the first n CPUs of place_order(t, k) as dense CPU numbers
 * (thread i runs on set->cpu[i]); cpu_of_topo maps a topo number to a dense
 * number (NULL: the identity). Returns false, with set->n = 0, if n is 0 or
 * above t->ncpu.
 */
bool place_set(const struct topo *t, const uint32_t *cpu_of_topo,
	       enum place_how k, uint32_t n, struct cpuset *set);

/*
 * Fills set with one pair of CPUs whose closest relation is exactly rel
 * (topo_relation(a, b) == rel): the lowest topo number a that has such a
 * partner, then its lowest partner b > a, as dense numbers (cpu_of_topo as
 * for place_set). Returns false, with set->n = 0, if the machine has no such
 * pair or rel is TOPO_REL_SELF or out of range.
 */
bool place_pair(const struct topo *t, const uint32_t *cpu_of_topo,
		enum topo_rel rel, struct cpuset *set);

/* Returns why a machine can have no pair of relation rel, for the
 * "skipped" record (e.g. "no SMT siblings", "one package"). */
const char *place_pair_missing_reason(enum topo_rel rel);

/*
 * True when scatter puts n threads on the same set of CPUs as compact (one
 * thread, all of them, or a machine too small to tell them apart): the two
 * placements are then one measurement, run once. False for n = 0 or above
 * t->ncpu.
 */
bool place_scatter_is_compact(const struct topo *t, const uint32_t *cpu_of_topo, uint32_t n);

/*
 * Writes the thread counts of a sweep to out: 1, 2, 4, 8, ... up to n, then
 * n itself if it is not a power of two. Stops after max entries. Returns
 * how many were written (0 for n = 0).
 */
uint32_t place_thread_counts(uint32_t n, uint32_t *out, uint32_t max);

/*
 * Writes an even sample of at most max of the topo numbers 0..n-1 to out,
 * for an n x n matrix: all of them if n <= max, otherwise max numbers spread
 * evenly from 0 to n - 1 (both ends included), ascending. Returns how many.
 */
uint32_t place_sample(uint32_t n, uint32_t max, uint32_t *out);

#endif
