/* run.h - the workload API: run a function on chosen CPUs released together from a barrier, flush caches, and wait with a bound. */
#ifndef QB_KERNEL_RUN_H
#define QB_KERNEL_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "instr.h"
#include "qb_limits.h"

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
};

typedef void (*run_fn)(const struct run_thread *t);

/* Flags for run_on. */
#define RUN_FLUSH (1u << 0)   /* each CPU runs WBINVD before it reaches the barrier */

/* Outcome of a run. */
enum run_status {
	RUN_OK = 0,
	RUN_BAD_SET,      /* a CPU is not online, repeated, or the set is empty */
	RUN_NO_START,     /* some CPUs never reached the barrier: nobody ran */
	RUN_TIMEOUT,      /* some CPUs did not finish in time: they were stopped and left out */
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
};

/* Run fn(t) on every CPU of set, all released from one barrier; the calling
 * CPU (the BSP) takes part if it is in the set. Waits at most timeout_ms for
 * everyone to arrive and then to finish; a CPU that misses the bound is
 * reported in an error record, stopped (INIT) and marked lost. res may be
 * NULL. Must be called on the BSP. */
enum run_status run_on(const struct cpuset *set, run_fn fn, void *arg, unsigned flags,
		       uint64_t timeout_ms, struct run_result *res);

/* WBINVD on every CPU of the set, one call each, in parallel. */
enum run_status run_flush(const struct cpuset *set);

/* The online CPUs, BSP first, at most `limit` of them (0 = all). */
void run_online_set(struct cpuset *out, uint32_t limit);

/* Name of a run status for records. */
const char *run_status_name(enum run_status s);

/* The AP's idle loop: wait for jobs in its mailbox, forever. */
void run_ap_loop(void) __attribute__((noreturn));

/* Default bound for a workload's run, from the options. */
extern uint64_t run_default_timeout_ms;

#endif
