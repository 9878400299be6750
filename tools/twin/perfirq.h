/* perfirq.h - the interrupts a thread's CPU takes while the thread runs: perf's tracepoints irq:irq_handler_entry (device interrupts) and irq_vectors:*_entry (the local timer, IPIs, IRQ work, ...), each event's id read from tracefs (Documentation/trace/events.rst), counted per thread in one group; and where tracefs, the events or perf refuse, the per-CPU totals of /proc/interrupts (proc(5)) instead. */
#ifndef QB_TWIN_PERFIRQ_H
#define QB_TWIN_PERFIRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perf.h"

#define PERFIRQ_MAX 16                 /* tracepoints in the group at most */

/* What perf offers, found once (perfirq_detect). */
struct perfirq_caps {
	bool ok;                       /* at least irq_handler_entry opened on a trial */
	uint32_t n;
	uint64_t id[PERFIRQ_MAX];      /* the tracepoints' ids (perf type PERF_TYPE_TRACEPOINT) */
	const char *name[PERFIRQ_MAX];
	char why[PERF_WHY_LEN];        /* when !ok: "unavailable: <reason>" */
};

/* One thread's tracepoints, one group. */
struct perfirq_group {
	int fd[PERFIRQ_MAX];
	uint32_t n;
};

/* Reads the ids from tracefs (/sys/kernel/tracing, else /sys/kernel/debug/tracing) and opens the group once on the calling thread. */
void perfirq_detect(struct perfirq_caps *c);

/* Opens the calling thread's group (pid 0, cpu -1): 0, or -errno with nothing open. */
int perfirq_open(const struct perfirq_caps *c, struct perfirq_group *g);

/* The interrupts counted so far, all tracepoints summed; false when the group could not be read. */
bool perfirq_read(const struct perfirq_group *g, uint64_t *sum);

void perfirq_close(struct perfirq_group *g);

/* This system's, found once on first use (thread-safe). */
const struct perfirq_caps *perfirq_system(void);

/* A configuration's interrupts from /proc/interrupts, where they are not
 * counted per thread: perfirq_config_begin reads every CPU's total and
 * forgets the CPUs noted; perfirq_config_cpus notes the OS CPUs a run uses;
 * perfirq_config_end gives what those CPUs took since (false when the file
 * could not be read at either end). */
void perfirq_config_begin(void);
void perfirq_config_cpus(const uint32_t *os_cpus, uint32_t n);
bool perfirq_config_end(uint64_t *n);

/* From the text of /proc/interrupts: each OS CPU's interrupts, every line
 * with a count for every CPU summed (the header names the CPUs: an offline
 * CPU has no column). total[os_cpu] for os_cpu < cap, untouched columns 0.
 * Returns the CPU columns found (0: not understood). */
uint32_t perfirq_proc_parse(const char *text, uint64_t *total, uint32_t cap);

/* The same from the file itself; 0 when it cannot be read. */
uint32_t perfirq_proc_read(uint64_t *total, uint32_t cap);

#endif
