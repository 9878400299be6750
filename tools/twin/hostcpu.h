/* hostcpu.h - the Linux twin's CPUs: the process's affinity mask as dense CPU numbers, one pinned thread per CPU, and the per-CPU data the kernel keeps in percpu.h. */
#ifndef QB_TWIN_HOSTCPU_H
#define QB_TWIN_HOSTCPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "qb_limits.h"

#define HOSTCPU_LINE 64

/* Life of a CPU slot; the names in the cpu records are the kernel's. */
enum hostcpu_state {
	HOSTCPU_ABSENT = 0,
	HOSTCPU_STARTING,    /* its thread is being created */
	HOSTCPU_ONLINE,      /* pinned, checked in, idle in its mailbox */
	HOSTCPU_FAILED,      /* no thread, or it could not be pinned, or it did not check in */
	HOSTCPU_LOST,        /* missed a run's bound: reported and left running (user space cannot stop it) */
	HOSTCPU_EXCLUDED,    /* in the affinity mask, but beyond cpus= */
};

struct run_job;

/* One per dense CPU number, cache-line padded. */
struct hostcpu {
	uint32_t os_cpu;              /* Linux's CPU number */
	int32_t node;                 /* NUMA node from sysfs, 0 without one */
	volatile uint32_t state;      /* enum hostcpu_state */

	/* The mailbox, written by the coordinator, polled (then slept on) by this CPU's thread. */
	struct run_job *volatile job __attribute__((aligned(HOSTCPU_LINE)));
	volatile uint32_t job_seq;    /* bumped for each new job; also the futex word */
	volatile uint32_t sleeping;   /* 1 while the thread waits on the futex */

	/* Cold data. */
	uint64_t checkin_tsc __attribute__((aligned(HOSTCPU_LINE)));
	int64_t tsc_offset;           /* this CPU's TSC minus CPU 0's, ticks */
	uint64_t tsc_offset_err;      /* half the best round trip */
	const char *why_failed;       /* for HOSTCPU_FAILED */
	bool have_snap;
	struct cpuid_snap snap;       /* CPUID as this CPU reported it */
	pthread_t thread;
} __attribute__((aligned(HOSTCPU_LINE)));

extern struct hostcpu hostcpu[QB_MAX_CPUS];

/* Read the affinity mask: its CPUs in order become dense numbers 0.., the
 * first max_cpus of them (0 = all) to be started, the rest excluded. */
bool hostcpu_discover(uint32_t max_cpus);

/* Pin the calling (main) thread to CPU 0 and snapshot its CPUID there.
 * False (with an error record) if it cannot be pinned. */
bool hostcpu_init_bsp(void);

/* Start one pinned thread per CPU but CPU 0 (each snapshots its CPUID and
 * checks in); waits at most timeout_ms, then leaves the late ones out. */
void hostcpu_start(uint64_t timeout_ms);

/* Every online CPU's TSC offset against CPU 0, by ping-pong (as kernel/run/smp.c). */
void hostcpu_measure_tsc_offsets(void);

/* CPUs in the affinity mask, CPUs that checked in, slots used. */
uint32_t hostcpu_found(void);
uint32_t hostcpu_online(void);

/* Every CPU found, counted once (kernel/run/report.h's report_cpus): online,
 * parked (left out by cpus=), not started, lost. */
struct report_cpus;
void hostcpu_counts(struct report_cpus *c);

/* The counting itself, over n_slots slots' states and the n_found CPUs of
 * the affinity mask (hostcpu_count.c): online, online; excluded by cpus=,
 * parked; lost, lost; failed (no thread, not pinned, no check-in within the
 * bound, or one after it), starting, not yet started, or without a slot
 * (beyond QB_MAX_CPUS), not started. Every CPU found is in exactly one
 * count, so found is their sum; known false when nothing was found. */
void hostcpu_count(const struct hostcpu *h, uint32_t n_slots, uint32_t n_found, struct report_cpus *out);
uint32_t hostcpu_slots(void);

/* Microseconds from the first thread created to the last check-in. */
uint64_t hostcpu_startup_us(void);

/* Dense number of the calling thread (0 for the main thread). */
uint32_t hostcpu_self(void);

/* "online", "excluded", ... as in the cpu record. */
const char *hostcpu_state_name(uint32_t state);

#endif
