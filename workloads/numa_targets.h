/* numa_targets.h - the targets of first-touch's node x node matrix (every memory node the firmware describes, and with sp_memory=on each node's specific-purpose memory), each named as what it is, and the matrix records that set the firmware's claims (kernel/run/numa_fw.h) beside what was measured. */
#ifndef QB_WORKLOADS_NUMA_TARGETS_H
#define QB_WORKLOADS_NUMA_TARGETS_H

#include <stdbool.h>
#include <stdint.h>
#include "qb_limits.h"
#include "workload.h"

#define NUMA_MAX_SP_TARGETS 16         /* nodes whose specific-purpose memory is its own target */
#define NUMA_MAX_TARGETS (QB_MAX_NODES + NUMA_MAX_SP_TARGETS)
#define NUMA_NAME_LEN 64
#define NUMA_OFF_FACTOR 2.0            /* a latency claim this far from the measurement, either way, is called out */

/* One column of the matrix: memory on a node, or that node's specific-purpose memory. */
struct numa_target {
	uint32_t node;                 /* the dense node the memory is on */
	bool sp;                       /* its specific-purpose memory (sp_memory=on) */
	char name[NUMA_NAME_LEN];      /* "node 2 (no CPUs)", "node 3 specific-purpose" */
	uint64_t free_bytes;           /* what could be taken when the matrix began */
	const char *why;               /* why the column has no value (NULL: measured, or not yet) */
};

/* The matrix: a row per node (a CPU on it reads; none: a null row), a column per target. */
struct numa_matrix {
	uint32_t rows;
	int32_t cpu[QB_MAX_NODES];     /* the dense CPU measuring row i, -1: none on that node */
	uint32_t n_targets;
	struct numa_target target[NUMA_MAX_TARGETS];
	double lat[QB_MAX_NODES][NUMA_MAX_TARGETS]; /* ticks per dependent load; < 0: not measured */
	double bw[QB_MAX_NODES][NUMA_MAX_TARGETS];  /* bytes per tick of a sequential read; < 0: not measured */
};

/* Fill m's rows (their CPUs) and targets for this run, every value unmeasured. */
void numa_targets(const struct wl_ctx *ctx, struct numa_matrix *m);

/* bytes of target t's memory, aligned to align (a power of two): its address
 * (workloads cast it to a pointer), or 0 with *why. Give it back with numa_target_free. */
uint64_t numa_target_alloc(const struct numa_target *t, uint64_t bytes, uint64_t align, const char **why);
void numa_target_free(const struct numa_target *t, uint64_t addr, uint64_t bytes);

/* The numa-latency and numa-bandwidth matrix records (with the firmware's
 * claims, in ns and MB/s, beside the values), and for people each pair's
 * latency against its claim, with the pairs more than NUMA_OFF_FACTOR apart called out. */
void numa_matrix_report(const struct wl_ctx *ctx, const struct numa_matrix *m);

#endif
