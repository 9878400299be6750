/* run.h - the workload API: run a function on chosen CPUs released together from a barrier, flush caches, and wait with a bound.
 *
 * Layer 8: run. The runtime, shared with the Linux twin (run.c, reps,
 * report, options, tsc_sync), and the bare-metal platform it runs on (smp,
 * apic, idle, fault, run_hw, demand_hw, instr, finish); platform.h is the
 * line between them. Includes every layer below; included by workloads and
 * start. */
#ifndef QB_KERNEL_RUN_H
#define QB_KERNEL_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "instr.h"
#include "qb_limits.h"
#include "tsc.h"

/* An ordered list of dense CPU numbers; thread t runs on cpu[t]. */
struct cpuset {
	uint32_t n;
	uint32_t cpu[QB_MAX_CPUS];
};

/* What each thread's function receives. */
struct run_thread {
	uint32_t index;   /* 0..n-1: position in the set */
	uint32_t cpu;     /* dense CPU number */
	uint32_t n;       /* threads in this run */
	void *arg;        /* the caller's argument */
	uint64_t deadline;          /* TSC: the run's bound; past it, stop early (run_overdue) */
	volatile uint8_t *overran;  /* written by run_overran */
};

/* True once this thread is past the run's bound. A long loop checks it every
 * so often (between chunks of a few thousand iterations), and stops early. */
static inline bool run_overdue(const struct run_thread *t)
{
	return tsc_read() >= t->deadline;
}

/* Say that this thread stopped early at the bound: the run is an overrun,
 * not a lost CPU, and the caller reports what the thread reached. */
static inline void run_overran(const struct run_thread *t)
{
	*t->overran = 1;
}

typedef void (*run_fn)(const struct run_thread *t);

/* Flags for run_on. */
#define RUN_FLUSH (1u << 0)   /* each CPU runs the run's flush (RUN_FLUSH_RUNS) before it reaches the barrier */

/* The ways a CPU empties its caches. */
enum run_flush_way {
	RUN_FLUSH_RUNS,       /* the run's flush: the platform's own, or the fallback once run_flush_fallback chose it */
	RUN_FLUSH_PLATFORM,   /* the platform's own, whatever its verdict: WBINVD on bare metal, the eviction read on Linux */
	RUN_FLUSH_EVICTION,   /* the fallback: the fallback's eviction read of kernel/run/evict.h, on either platform */
};

/* Outcome of a run. */
enum run_status {
	RUN_OK = 0,
	RUN_BAD_SET,      /* a CPU is not online, repeated, or the set is empty */
	RUN_NO_START,     /* some CPUs never reached the barrier (nobody ran), or one missed the release (it did not run) */
	RUN_TIMEOUT,      /* some CPUs did not answer in time: they were stopped and left out (lost) */
	RUN_OVERRUN,      /* the work passed the bound: every thread stopped early by itself */
};

/* Per-run timing, in the BSP's TSC time base (each CPU's offset removed). */
struct run_result {
	enum run_status status;
	uint32_t n;
	uint64_t release_tsc;            /* when the barrier opened */
	uint64_t start_skew;             /* latest minus earliest thread start, ticks */
	uint64_t start[QB_MAX_CPUS];     /* per thread: first TSC after the barrier */
	uint64_t end[QB_MAX_CPUS];       /* per thread: TSC after fn returned */
	struct instr_thread instr[QB_MAX_CPUS]; /* per thread: noise and counters during fn */
	uint32_t n_failed;               /* CPUs that did not arrive or finish */
	uint32_t failed[QB_MAX_CPUS];    /* their dense numbers */
	uint32_t n_overran;              /* threads that stopped early at the bound (run_overran) */
};

/* Run fn(t) on every CPU of set, all released from one barrier; the calling
 * CPU (the BSP) takes part if it is in the set. timeout_ms bounds the work
 * from the barrier's release: every thread sees it as t->deadline and stops
 * early past it (run_overdue, run_overran: RUN_OVERRUN). Reaching the
 * barrier has its own bound, the longer of timeout_ms and RUN_ARRIVAL_MIN_MS. A CPU that does not arrive, or has not returned
 * RUN_GRACE past the bound, is reported in an error record, stopped (INIT)
 * and marked lost (RUN_NO_START, RUN_TIMEOUT). res may be NULL: run_last()
 * then holds the result. Must be called on the BSP. */
enum run_status run_on(const struct cpuset *set, run_fn fn, void *arg, unsigned flags,
		       uint64_t timeout_ms, struct run_result *res);

/* The result of the last run_on given no res: one result shared by the
 * workloads, which run one at a time (it saves each its own 200 KiB at
 * QB_MAX_CPUS); valid until the next such call. */
const struct run_result *run_last(void);

/* How long past the bound a thread may take to notice it and return, before
 * it counts as lost: a quarter of the bound, at least RUN_GRACE_MIN_MS. */
#define RUN_GRACE_MIN_MS 1000
#define RUN_ARRIVAL_MIN_MS 1000  /* every CPU reaches the barrier within this (or the bound, if longer) */
uint64_t run_grace_ms(uint64_t timeout_ms);

/* The run's flush on every CPU of the set, one call each, in parallel. */
enum run_status run_flush(const struct cpuset *set);

/* Empty the calling CPU's caches one way (RUN_FLUSH does the first). */
void run_flush_here(enum run_flush_way w);

/* From the flush check (kernel/run/flushcheck.h), after it found the
 * platform's own flush ineffective and set up the eviction buffer: the run's
 * flush becomes the eviction read (on = true). */
void run_flush_fallback(bool on);

/* True once run_flush_fallback chose the eviction read. */
bool run_flush_fell_back(void);

/* flush_noop=on (debug): the platform's own flush does nothing, as a
 * hypervisor that ignores WBINVD would have it; the flush check must then
 * call it ineffective and fall back. */
void run_flush_noop(bool on);

/* flush_partial=pct (debug; 0: off): the platform's own flush instead
 * CLFLUSHes pct% of the lines of every range given to
 * run_flush_partial_target (the same lines each time, spread over the
 * range), and nothing else: a flush that leaves part of the set in the
 * caches, which the flush check must call partial. */
#define RUN_PARTIAL_TARGETS 72
void run_flush_partial(uint32_t pct);

/* A working set that flush_partial's flush evicts part of (the flush check's
 * and the flush workload's): false when RUN_PARTIAL_TARGETS are held. Taken
 * back, all of them, by run_flush_partial_clear before the memory is freed
 * (the twin's CLFLUSH of an unmapped page would fault). */
bool run_flush_partial_target(const volatile void *p, uint64_t bytes);
void run_flush_partial_clear(void);

/* Write back and evict every line of [p, p + bytes) from every cache
 * (CLFLUSH, unprivileged, in every x86-64 CPU), then MFENCE: a workload's own
 * data, just set up, starts each repetition in memory on both platforms,
 * where an eviction read (the Linux twin's flush, either platform's
 * fallback) could leave the lines the setting-up CPU just wrote in its
 * caches, and a flush found ineffective leaves them all. Every workload that
 * flushes does it to its own data (docs/timing.md). */
void run_evict_lines(const volatile void *p, uint64_t bytes);

/* The online CPUs, BSP first, at most `limit` of them (0 = all). */
void run_online_set(struct cpuset *out, uint32_t limit);

/* Name of a run status for records. */
const char *run_status_name(enum run_status s);

/* The AP's idle loop: wait for jobs in its mailbox, forever. `seen` is its
 * job_seq as read before it checked in: a job the BSP posts between the
 * check-in and the loop's first look is run, not missed. */
void run_ap_loop(uint64_t seen) __attribute__((noreturn));

/* The bound of the start-up's own runs (the MTRR check, the state records,
 * TLB shoot-downs, the flush check's rounds): never a workload's, whose
 * bounds come from its plan item (kernel/bench/workload.h, wl_bound_ms). */
extern const uint64_t run_default_timeout_ms;

#endif
