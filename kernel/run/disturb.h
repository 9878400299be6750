/* disturb.h - what the platform counts of the events that take a CPU away from a measurement: the counters the noise loop reads after a long gap (kernel/measure/gaps.h), and a configuration's interrupts where they are not counted per repetition.
 *
 * Bare metal (disturb.c): interrupts are off, so the only thing that can
 * take a CPU away is an SMI (MSR_SMI_COUNT, where the CPU has it: read
 * through msr_read_safe, it may #GP). The Linux twin (tools/twin/disturb.c):
 * the thread's interrupts (perf's irq tracepoints, where permitted),
 * context switches and page faults (getrusage(RUSAGE_THREAD)), and
 * migrations (sched_getcpu); without irq tracepoints, the interrupts each
 * CPU took from /proc/interrupts, once per configuration.
 *
 * Layer: run (kernel/run/run.h). */
#ifndef QB_KERNEL_DISTURB_H
#define QB_KERNEL_DISTURB_H

#include <stdbool.h>
#include <stdint.h>
#include "gaps.h"

/* On the calling CPU, before its noise loop: set up its counters. Returns
 * the causes counted there (bit k: enum gaps_cause k; 0: none). */
uint32_t disturb_open(void);

/* The counters of the calling CPU, as gaps_ops.counts wants them (arg unused). */
bool disturb_read(void *arg, uint64_t v[GAPS_CAUSES]);

/* On the calling CPU, after its loop. */
void disturb_close(void);

/* The causes this platform can count at all (bit k), and why one it
 * cannot is not counted (NULL when it is). */
uint32_t disturb_causes(void);
const char *disturb_why(enum gaps_cause k);

/* A configuration's repetitions begin (reps_begin). */
void disturb_config_begin(void);

/* When interrupts are not counted per repetition, the interrupts the CPUs
 * of the runs since disturb_config_begin took in that time, timed or not,
 * into *n, and how they were counted into *how; false when the platform
 * has none to give (bare metal: interrupts are off; the twin with irq
 * tracepoints: counted per repetition). */
bool disturb_config_interrupts(uint64_t *n, const char **how);

#endif
