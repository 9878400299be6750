/* spinlock.h - a test-and-set lock with a bounded spin; the bound turns a deadlock into a report. */
#ifndef QB_KERNEL_SPINLOCK_H
#define QB_KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	volatile int32_t owner;   /* dense CPU index of the holder, -1 if free */
};

#define SPINLOCK_INIT { 0, -1 }
#define SPIN_LIMIT (1ull << 30) /* pauses: seconds even on a fast machine */

/* Try for at most `spins` pauses; true if the lock was taken. */
static inline bool spin_trylock_bounded(struct spinlock *l, uint64_t spins, int32_t me)
{
	for (uint64_t i = 0; i <= spins; i++) {
		if (!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
			l->owner = me;
			return true;
		}
		while (l->locked && i < spins) {
			__asm__ volatile("pause" ::: "memory");
			i++;
		}
	}
	return false;
}

static inline void spin_unlock(struct spinlock *l)
{
	l->owner = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
