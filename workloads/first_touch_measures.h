/* first_touch_measures.h - what each first-touch result measures, in the units its experiment speaks (ns per page, GB/s of zeroing or copying, ns per access), each with the physical limit it is checked against (kernel/measure/limits.h); and the check of a freshly faulted page.
 *
 * Pure: the host unit tests compile it with kernel/run/report.c. */
#ifndef QB_WORKLOADS_FIRST_TOUCH_MEASURES_H
#define QB_WORKLOADS_FIRST_TOUCH_MEASURES_H

#include <stddef.h>
#include <stdint.h>
#include "record.h"
#include "report.h"

#define FT_MEASURES_MAX 2
#define FT_HOT_CHAIN 32   /* hot-access: one sample is this many dependent reads of the hot word */

/* What one sample of a result is. */
enum ft_measure {
	FT_M_FAULT,   /* demand-zero-4k, -2m: a first write that faults, and the handler maps and zeroes a page */
	FT_M_TRAP,    /* page-fault-entry: a first write that faults onto a page zeroed in advance */
	FT_M_ZERO,    /* zero-*: one page zeroed, no fault */
	FT_M_TLB,     /* tlb-miss, tlb-miss-cached: the first read of a mapped page */
	FT_M_ACCESS,  /* hot-access: FT_HOT_CHAIN dependent reads of a hot word */
	FT_M_COPY,    /* copy-*: one iteration's copy of `bytes` */
	FT_M_SUM,     /* numa-*: every CPU summing its part, `bytes` in all */
};

/* A result's measures, primary first, and what its rate counts. */
struct ft_measures {
	struct report_measure m[FT_MEASURES_MAX];
	unsigned n;
	const char *rate_of;   /* "zeroing", "copying", "reading": what gb_per_s moves; NULL without one */
	const char *sample;    /* what one sample (in ticks) is: "page", "access", "iteration", "repetition" */
};

/* The measures of a result of kind, at the TSC frequency now: page is the
 * bytes of one page (per-page kinds); bytes what one sample copied or summed
 * (copies, sums: ns_per_page counts its 4 KiB pages); cores the CPUs that
 * shared a sum (a per-core ceiling is multiplied by them).
 *   FAULT:  ns_per_page (limit fault_ns), gb_per_s of zeroing (zero_gbps)
 *   TRAP:   ns_per_page (limit trap_ns)
 *   ZERO:   ns_per_page, gb_per_s of zeroing (zero_gbps)
 *   TLB:    ns_per_page (no limit: one access is within the timer's resolution)
 *   ACCESS: ns_per_access, a sample being FT_HOT_CHAIN dependent reads (limit load_ns)
 *   COPY:   ns_per_page, gb_per_s of copying (copy_gbps)
 *   SUM:    ns_per_page, gb_per_s of reading (read_gbps x cores) */
void ft_measures_of(enum ft_measure kind, uint64_t page, uint64_t bytes, double cores, struct ft_measures *out);

/* Write "measures" of the result being written (report_measures, from its
 * figure: a median past a limit fails the result when it is closed), and
 * the figure as text for the serial line into text: "11858 ns/page, 0.345
 * GB/s of zeroing", with " (noisy)" when the figure is noisy; without a TSC
 * frequency, its median in ticks ("24854 ticks per page"); without a
 * figure, "not measured". Returns the primary measure's median (negative
 * when there is none), as report_measures. */
double ft_write_measures(struct rec *r, const struct ft_measures *fm, char *text, size_t cap);

/* The index of the first word of p[0..words) that is not zero, the word at
 * index `skip` excepted (the one a first touch wrote); words when all are. */
uint64_t ft_first_nonzero(const volatile uint64_t *p, uint64_t words, uint64_t skip);

#endif
