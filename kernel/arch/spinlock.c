/* spinlock.c - the bounded lock's wait, in TSC time; see spinlock.h. */
#include "spinlock.h"

/* ---- Constants ------------------------------------------------------------ */
#define ASSUMED_TICKS_PER_MS 10000000ull /* 10 GHz until the frequency is known */

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t ticks_per_ms = ASSUMED_TICKS_PER_MS;

/* ---- Private Functions ---------------------------------------------------- */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* ---- Public Functions ----------------------------------------------------- */
void spin_set_tsc_hz(uint64_t hz)
{
	if (hz >= 1000)
		ticks_per_ms = hz / 1000;
}

uint64_t spin_deadline_ms(uint64_t ms)
{
	return rdtsc() + ms * ticks_per_ms;
}

bool spin_lock_ms(struct spinlock *l, uint64_t ms, int32_t me)
{
	uint64_t deadline = 0;
	for (;;) {
		if (!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
			l->owner = me;
			return true;
		}
		if (!deadline)
			deadline = spin_deadline_ms(ms); /* read the TSC only when contended */
		while (l->locked) {
			if (rdtsc() >= deadline)
				return false;
			__asm__ volatile("pause" ::: "memory");
		}
	}
}
