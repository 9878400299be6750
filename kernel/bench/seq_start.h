/* seq_start.h - what the kernel's start and the Linux twin's main both do to begin a run, written once: the workloads' names for the options, the flush check, and the run handed to the sequence.
 *
 * Part of the framework (kernel/bench, Layer 9). Each platform says what it
 * is (struct seq_platform) and hands in the workload table; everything else
 * is the same on both. */
#ifndef QB_BENCH_SEQ_START_H
#define QB_BENCH_SEQ_START_H

#include <stdbool.h>
#include <stdint.h>
#include "options.h"
#include "workload.h"

/* What the platform is, for the workloads' context and the budget. */
struct seq_platform {
	const char *name;              /* "bare-metal" or "linux" */
	bool has_wbinvd;               /* the platform's own flush is WBINVD */
	bool has_fault_internals;      /* page-fault handler timings, prezeroed pools, TLB flushes on demand */
	const struct cpuset *online;   /* the CPUs of the run, BSP first */
	const struct cpuid_snap *bsp_cpuid;
	uint32_t nodes;                /* NUMA nodes (1 without any) */
	uint64_t start_tsc;            /* the budget counts from here */
	double serial_bytes_per_s;     /* what printing costs (0: nothing slow) */
	void (*after_workload)(void);  /* after each workload's records (NULL: none) */
};

/* The table's names, at most cap, for options_parse and options_help; how many. */
unsigned seq_workload_names(const struct workload *const *table, unsigned n, const char **names, unsigned cap);

/* Each flush the run will use, tried at the start and judged (flush_noop=on:
 * the platform's own does nothing, flush_partial=N: part of it); the run
 * falls back to eviction reads where its own flush is ineffective, and the
 * plan then prices them (kernel/run/flushcheck.h). */
void seq_check_flushes(const struct options *o, const struct seq_platform *pf);

/* The run the options ask for, on this platform, over the table: calibrate,
 * plan, and (unless plan=on) run every chosen workload (sequence.h). */
void seq_run_all(const struct options *o, const struct seq_platform *pf, const struct workload *const *table,
		 unsigned n);

#endif
