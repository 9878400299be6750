/* tsc.h - the time-stamp counter: serialised reads (Intel, "How to Benchmark Code Execution Times on Intel IA-32 and IA-64", 2010), frequency, overhead. */
#ifndef QB_KERNEL_TSC_H
#define QB_KERNEL_TSC_H

#include <stdbool.h>
#include <stdint.h>
#include "acpi.h"
#include "cpuid_snap.h"

extern bool tsc_have_rdtscp;

/* A plain, unserialised read. */
static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Start of a timed interval: earlier instructions finish before the read,
 * later ones do not start before it. */
static inline uint64_t tsc_start(void)
{
	uint32_t lo, hi;
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
	else
		__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

/* Work out the TSC frequency (CPUID 0x15/0x16, else calibration against the
 * HPET or PM timer), whether it is invariant, and the cost of an empty timed
 * interval. bsp is the BSP's CPUID snapshot. */
void tsc_init(const struct acpi_info *ai, const struct cpuid_snap *bsp);

/* Ticks per second (0 if unknown), and where that came from:
 * "cpuid-15h", "cpuid-16h", "hpet", "pm-timer" or "unknown". */
uint64_t tsc_hz(void);
const char *tsc_source(void);

/* The frequency measured against the reference clock, even when CPUID gave
 * one (0 if no clock): the cross-check reported next to tsc_hz. */
uint64_t tsc_measured_hz(void);

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

#endif
