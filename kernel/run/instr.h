/* instr.h - what the hardware did during each timed repetition (noise sources, performance counters), and the machine state set for the run.
 *
 * The decisions (which MSRs exist, which events to count, what to set) are
 * made from CPUID by kernel/measure/noise.c, pmu.c and mstate.c; this unit does the
 * MSR reads and writes on each CPU and reports them. Safe mode writes no
 * MSR that changes the machine's performance state: no turbo or prefetcher
 * change, no performance counters, no thermal-log clearing. */
#ifndef QB_KERNEL_INSTR_H
#define QB_KERNEL_INSTR_H

#include <stdbool.h>
#include <stdint.h>
#include "noise.h"
#include "pmu.h"

/* What one CPU saw during one repetition. */
struct instr_thread {
	struct noise_rep noise;      /* have_ flags false where unavailable */
	uint32_t pmu_n;              /* counters read (0: none) */
	uint64_t pmu[PMU_MAX_EVENTS];
};

/* Taken by instr_begin on the CPU that runs the repetition. */
struct instr_mark {
	struct noise_sample s;
	bool counting;
	bool with_l3;                /* this CPU counts its L3 (once per L3 in a run) */
	bool sched_ok;               /* Linux twin: the thread's switches and CPU were read */
	uint64_t switches;           /* Linux twin: context switches so far */
	int32_t cpu;                 /* Linux twin: the CPU it started on */
	bool perf_noise;             /* Linux twin: perf's msr events were read into s */
	bool irq_ok;                 /* Linux twin: the thread's irq tracepoints were read */
	uint64_t irqs;               /* Linux twin: its interrupts so far */
	uint64_t faults;             /* Linux twin: its page faults so far (with switches) */
	uint64_t pmu_start[PMU_MAX_EVENTS]; /* Linux twin: the perf counters at the start */
};

/* turbo= and prefetch=, in the order of enum opt_tristate (kernel/run/options.h). */
enum instr_setting { INSTR_KEEP, INSTR_OFF, INSTR_ON };

/* Detect each online CPU's noise sources and counters (BSP, after SMP start-up). */
void instr_init(enum instr_setting turbo, enum instr_setting prefetch, bool safe);

/* Bare metal: how the USB controller was taken from the BIOS (for the
 * results file), with IA32_SMI_COUNT before and right after (-1: not
 * readable); the `state` records say it, and how many SMIs came since. */
void instr_usb_handoff(const char *how, int64_t smi_before, int64_t smi_after);

/* Set turbo and prefetchers on every online CPU as asked, and emit the
 * run's and each CPU's `state` record. instr_state_restore puts back exactly
 * what was changed, on the same CPUs, and emits the closing `state` record. */
void instr_state_apply(void);
void instr_state_restore(void);

/* Choose the events counted during the following runs (none in safe mode). */
void instr_goal(enum pmu_goal g);

/* A run on cpus[0 .. n-1] is about to start (BSP, before the release):
 * in it, the first CPU on each L3 counts the L3's events. instr_run_done
 * ends it; outside a run the calling CPU counts its own L3. */
void instr_run_set(const uint32_t *cpus, uint32_t n);
void instr_run_done(void);

/* Before the barrier of a repetition, on each CPU: clear the sticky thermal
 * and power-limit log bits, so that a bit set during the repetition is seen
 * (not in safe mode, which writes no MSR). instr_begin does it itself
 * outside a run. */
void instr_prepare(void);

/* Around one repetition, on the CPU that runs it. */
void instr_begin(struct instr_mark *m);
void instr_end(const struct instr_mark *m, struct instr_thread *out);

/* The events being counted (the BSP's plan; every CPU counts the same kinds). */
uint32_t instr_pmu_events(void);
const char *instr_pmu_name(unsigned k);
const char *instr_pmu_note(void);           /* substitutions made, or NULL */
const char *instr_pmu_why(void);            /* why nothing is counted, or NULL */

/* When thermal throttling is detected only until its first event (safe mode
 * clears no sticky log bit), that caveat; NULL when each repetition sees its
 * own events. */
const char *instr_therm_note(void);

/* MSR writes made to change the machine's state (0 in safe mode). */
uint64_t instr_msr_writes(void);

/* The noise sources, for instr_source_why. */
enum instr_source { INSTR_SRC_FREQ, INSTR_SRC_SMI, INSTR_SRC_THERM, INSTR_SRC_PKG_THERM, INSTR_SRC_COUNT };

/* Why a source that CPUID lists is not read (its MSR raised #GP: "unavailable:
 * #GP on MSR 0xe7"), or NULL when it is read or CPUID does not list it. */
const char *instr_source_why(enum instr_source k);

#endif
