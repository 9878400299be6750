/* counter_loops.c - the counter workload's inner loops; see counter_loops.h. Not inlined, so tests/asm can find them. */
#include "counter_loops.h"

__attribute__((noinline)) uint64_t counter_inc_plain(volatile uint64_t *c, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		*c = *c + 1;
	return n;
}

__attribute__((noinline)) uint64_t counter_inc_checked(volatile uint64_t *elems, const volatile uint64_t *len,
							uint64_t idx, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (idx >= *len)
			return i;
		elems[idx] = elems[idx] + 1;
	}
	return n;
}

__attribute__((noinline)) uint64_t counter_inc_atomic(volatile uint64_t *c, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t one = 1;
		__asm__ volatile("lock xaddq %0, %1" : "+r"(one), "+m"(*c) : : "memory");
	}
	return n;
}
