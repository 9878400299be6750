/* counter_loops.h - the counter workload's innermost loops, kept apart so their machine code can be checked (tests/asm). */
#ifndef QB_WORKLOADS_COUNTER_LOOPS_H
#define QB_WORKLOADS_COUNTER_LOOPS_H

#include <stdint.h>

/* n plain increments of *c: each one a load, an add and a store to memory
 * (volatile keeps the compiler from folding them). Returns n. */
uint64_t counter_inc_plain(volatile uint64_t *c, uint64_t n);

/* n increments of elems[idx], each preceded by a bounds check that reads the
 * array's length word *len, as a managed runtime does. Returns the number
 * made (fewer than n only if idx >= *len). */
uint64_t counter_inc_checked(volatile uint64_t *elems, const volatile uint64_t *len, uint64_t idx,
			     uint64_t n);

/* n LOCK XADD increments of the shared *c. Returns n. */
uint64_t counter_inc_atomic(volatile uint64_t *c, uint64_t n);

#endif
