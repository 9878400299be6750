/* smp_slot.h - which slot an AP that wakes up in the kernel holds: its own, still starting; one the BSP already gave up on (it is late); or none (a stray). */
#ifndef QB_KERNEL_SMP_SLOT_H
#define QB_KERNEL_SMP_SLOT_H

#include <stdint.h>
#include "percpu.h"
#include "report.h"

/* What a waking AP is to smp.c. */
enum smp_waker {
	SMP_WAKER_STARTING = 0,  /* its slot is CPU_STARTING: it checks in */
	SMP_WAKER_LATE,          /* its slot is CPU_FAILED: started, but past the bound (reported as not started) */
	SMP_WAKER_STRAY,         /* no slot of its APIC ID was started: nobody woke it on purpose */
};

/* Looks for apic_id among slots 1..n_slots-1 of pc (slot 0 is the BSP's).
 * A slot still starting wins, and *slot is set to it; else a slot given up
 * on makes the AP late; else it is a stray. *slot is untouched unless
 * SMP_WAKER_STARTING is returned. */
enum smp_waker smp_slot_find(const struct percpu *pc, uint32_t n_slots, uint32_t apic_id, uint32_t *slot);

/* The CPUs counted as the boot and done records give them (report.h's
 * report_cpus) from the n_slots slots' states and the n_found CPUs the
 * firmware lists: online or halted at the end, online; parked, parked; lost,
 * lost; failed (not checked in within the bound, or after it), still
 * starting, excluded but not parked, or without a slot, not started. */
void smp_count(const struct percpu *pc, uint32_t n_slots, uint32_t n_found, struct report_cpus *out);

#endif
