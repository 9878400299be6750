/* spinlock.h - a test-and-set lock whose wait is bounded in TSC time; the bound turns a deadlock into a report.
 *
 * Bounds are milliseconds of TSC time, never counts of PAUSE: a PAUSE takes
 * about 10 cycles on older cores and about 140 on newer ones. Until the TSC
 * frequency is known (spin_set_tsc_hz), a bound assumes 10 GHz, so that it
 * can only last longer than asked. */
#ifndef QB_KERNEL_SPINLOCK_H
#define QB_KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	volatile int32_t owner;   /* dense CPU index of the holder, -1 if free */
};

#define SPINLOCK_INIT { 0, -1 }
#define SPIN_LOCK_MS 10000 /* a lock held this long has a holder that is gone */

/* Try for at most ms milliseconds; true if the lock was taken. */
bool spin_lock_ms(struct spinlock *l, uint64_t ms, int32_t me);

static inline void spin_unlock(struct spinlock *l)
{
	l->owner = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* The TSC frequency, once measured (kernel/measure/tsc.c). */
void spin_set_tsc_hz(uint64_t hz);

/* The TSC value ms milliseconds from now, by the frequency known here. */
uint64_t spin_deadline_ms(uint64_t ms);

#endif
