/* tsc.h - the time-stamp counter: serialised reads (Intel, "How to Benchmark Code Execution Times on Intel IA-32 and IA-64", 2010), frequency, overhead.
 *
 * Layer 6: measure. Time and what a measurement reads: the TSC and its
 * calibration against a timer, LFENCE, topology from CPUID, the PMU, noise
 * sources, C/P-states, statistics and the plan's model. Includes every layer
 * below (lib .. acpi); never the runner, the workloads or the start-up,
 * which may include it; the layers below must not. */
#ifndef QB_KERNEL_TSC_H
#define QB_KERNEL_TSC_H

#include "cpu.h"
#include <stdbool.h>
#include <stdint.h>
#include "acpi.h"
#include "cpuid_snap.h"
#include "record.h"

extern bool tsc_have_rdtscp;
/* MFENCE before the LFENCE that orders RDTSC: on AMD parts whose LFENCE is
 * not dispatch-serialising (DE_CFG[1] clear and not set, e.g. in safe mode). */
extern bool tsc_mfence;

/* A plain, unserialised read. */
static inline uint64_t tsc_read(void)
{
	return rdtsc();
}

/* Start of a timed interval: earlier instructions finish before the read,
 * later ones do not start before it. */
static inline uint64_t tsc_start(void)
{
	uint32_t lo, hi;
	if (tsc_mfence)
		__asm__ volatile("mfence" ::: "memory");
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* End of a timed interval: RDTSCP waits for earlier instructions, the fence
 * keeps later ones out. Without RDTSCP, a fenced RDTSC. */
static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi, aux;
	if (tsc_have_rdtscp)
		__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	else if (tsc_mfence)
		__asm__ volatile("mfence\n\tlfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	else
		__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

/* Make RDTSC ordered on this CPU (AMD: DE_CFG[1], unless msr_writes is
 * false: then MFENCE;LFENCE), measure the TSC frequency against the HPET or
 * PM timer that timer_init (timer.h, called first) chose, over at least
 * 200 ms, and take it unless CPUID leaf 15h gives the crystal itself;
 * whether it is invariant, and the cost of an empty timed interval. bsp is
 * the BSP's CPUID snapshot. */
void tsc_init(const struct acpi_info *ai, const struct cpuid_snap *bsp, bool msr_writes);

/* The same fence set-up on an AP, with its own snapshot, before it checks in.
 * If DE_CFG cannot be set there, every CPU falls back to MFENCE;LFENCE. */
void tsc_init_ap(const struct cpuid_snap *s);

/* Ticks per second (0 if unknown), and where that came from:
 * "cpuid-15h", "hpet", "pm-timer", "cpuid-16h" (nothing measured) or "unknown". */
uint64_t tsc_hz(void);
const char *tsc_source(void);

/* The frequency measured against the reference clock, even when CPUID gave
 * one (0 if no clock): the cross-check reported next to tsc_hz. */
uint64_t tsc_measured_hz(void);

/* The TSC fields of a boot record: frequency, source, the measured and the
 * CPUID values and their disagreement, the calibration, the fence, the
 * overhead. */
void tsc_report_fields(struct rec *r);

/* An `error` record ("tsc disagreement") when CPUID and the measurement
 * differ by more than 0.1%; not fatal. */
void tsc_report_disagreement(void);

/* How RDTSC is ordered: "lfence (architectural)", "lfence (DE_CFG set)",
 * "lfence (DE_CFG set by the OS)" or "mfence+lfence". */
const char *tsc_fence_name(void);

/* CPUID 0x80000007 EDX bit 8. */
bool tsc_invariant(void);

/* Ticks of an empty tsc_start()/tsc_end() pair: the minimum and the median. */
uint64_t tsc_overhead(void);
uint64_t tsc_overhead_median(void);

/* Busy-wait at least us microseconds (assumes 10 GHz if the frequency is unknown, so waits only get longer). */
void tsc_delay_us(uint64_t us);

/* TSC value ms milliseconds from now, for bounded waits. */
uint64_t tsc_deadline_ms(uint64_t ms);

/* Convert ticks to nanoseconds and microseconds (0 if the frequency is unknown). */
uint64_t tsc_to_ns(uint64_t ticks);
uint64_t tsc_to_us(uint64_t ticks);

/* Ticks to seconds; 0 without a TSC frequency. */
double tsc_seconds(uint64_t ticks);

#endif
