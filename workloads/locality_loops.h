/* locality_loops.h - the locality workload's data and summing loops: the seed's foo and bar (shared/seeds/002) and the blocked reference.
 *
 * Thread t of p sums its share of a[0..n) (32-bit values). The _shared
 * versions add through a pointer into the thread's 32-bit slot, as the seed
 * does (`*r += num[i]`, compiled as the seed's is: the running sum kept in a
 * register and stored to the slot after every element, never reloaded), so
 * every element is a store to a line the other threads' slots share; the
 * slot wraps modulo 2^32, as the seed's int would. The _private versions
 * keep a 64-bit sum in a register and return it. Pure functions: the host
 * tests run them directly. */
#ifndef QB_WORKLOADS_LOCALITY_LOOPS_H
#define QB_WORKLOADS_LOCALITY_LOOPS_H

#include <stdint.h>

/* The seed's data: rand() % 100 from a fixed seed (here Knuth's MMIX 64-bit
 * LCG), the same values on every run and platform. */
void loc_fill(uint32_t *a, uint64_t n);

/* The total loc_fill gives n ints, from the generator alone (no array). */
uint64_t loc_fill_total(uint64_t n);

/* The total of a[0..n): what every variant's threads must add up to. */
uint64_t loc_total(const uint32_t *a, uint64_t n);

/* Thread t's block of the blocked variants: [t*n/p, (t+1)*n/p). Empty when p > n for some t. */
void loc_block(uint64_t n, uint32_t p, uint32_t t, uint64_t *start, uint64_t *end);

/* interleaved (the seed's foo): i = t, t+p, t+2p, ... over the whole array. */
uint64_t loc_interleaved_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t);
void loc_interleaved_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot);

/* blocked-strided (the seed's bar): thread t's block, walked in p strided passes. */
uint64_t loc_blocked_strided_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t);
void loc_blocked_strided_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot);

/* blocked: thread t's block, sequentially (the cache-friendly reference). */
uint64_t loc_blocked_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t);
void loc_blocked_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot);

#endif
