/* idle.h - how a CPU waits for work without spinning: MONITOR/MWAIT on its mailbox, or HLT woken by an IPI (Intel SDM vol. 3A §9.10.4, vol. 2B MWAIT; AMD APM vol. 3 MONITOR/MWAIT).
 *
 * Idle CPUs that spin keep their cores in C0: single-thread results then run
 * at the all-core turbo frequency, a laptop reaches its power and thermal
 * limits, and under emulation the spinning vCPUs starve the working ones.
 * MWAIT is used where CPUID offers it on real hardware; under a hypervisor
 * (where MWAIT is often emulated as a spin) and without it, HLT with a
 * wake-up IPI. Either way the waiter re-checks its condition after every
 * wake-up, so a stray wake-up costs a loop, never a lost job. */
#ifndef QB_KERNEL_IDLE_H
#define QB_KERNEL_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#define IDLE_WAKE_VECTOR 0xf1   /* the wake-up IPI (any vector above the exceptions) */
#define IDLE_TIMER_VECTOR 0xf2  /* the local APIC timer of idle_sleep_until */
#define IDLE_SPURIOUS_VECTOR 0xff /* the local APIC's spurious vector (kernel/run/apic.c SVR) */

enum idle_method {
	IDLE_AUTO,              /* choose: MWAIT on real hardware that has it, else HLT */
	IDLE_MWAIT,             /* MONITOR the mailbox line, MWAIT C1 */
	IDLE_HLT,               /* HLT with interrupts on for that one instruction, woken by IPI */
	IDLE_POLL,              /* PAUSE in a loop (keeps the cores busy, as before) */
};

/* Choose the method on the BSP from its CPUID (want: idle= option). Call
 * once, before any AP waits. */
void idle_init(enum idle_method want);

/* Wait on this CPU until *word is no longer seen, or *stop is non-zero,
 * or a while passes (callers loop): both words must be on one cache line. */
void idle_wait(const volatile uint64_t *word, uint64_t seen, const volatile uint32_t *stop);

/* Make sure CPU `cpu` (dense number) notices a change to its mailbox: an
 * IPI when it waits in HLT, nothing for MWAIT (the store wakes it). */
void idle_kick(uint32_t cpu);

/* Rest this CPU until the TSC reaches `deadline`, for a CPU that waits on
 * time rather than on a store (the end screen polling its keyboard): HLT,
 * woken by a one-shot local APIC timer. The first call measures the timer
 * against the TSC and proves that its interrupt arrives (its vector in the
 * IRR within 10 ms, taken at once); without that (idle=poll, no ARAT in
 * CPUID.06H:EAX[2], so the timer may stop in a deep C-state, no TSC
 * frequency, a timer that does not count or whose interrupt does not come),
 * PAUSE until the deadline. Interrupts are off again on return. */
void idle_sleep_until(uint64_t deadline);

/* How idle_sleep_until rests: "hlt, woken by the local APIC timer (N Hz)",
 * or "pause: <why>"; "not used yet" before its first call. */
const char *idle_sleep_name(void);

/* Called by fault.c for vectors 32-255 (interrupts are only ever on while a
 * CPU waits in HLT). */
void idle_interrupt(unsigned vector);

/* "mwait", "hlt" or "poll", and why that method ("CPUID.01H:ECX[3] MONITOR",
 * "hypervisor: MWAIT may be emulated as a spin", ...). */
const char *idle_method_name(void);
const char *idle_method_why(void);

/* Interrupts taken that were not the wake-up IPI (spurious or stray). */
uint64_t idle_stray_interrupts(void);

#endif
