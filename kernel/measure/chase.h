/* chase.h - the dependent chase that tells how cold a working set is: one random cycle through every line of it, followed load by load, timed; shared by the flush workload and the run's flush check (kernel/run/flushcheck.c).
 *
 * Each miss costs a whole memory latency that no prefetcher hides, where a
 * streaming sum runs from DRAM nearly as fast as from the cache and hides
 * how cold the set was. */
#ifndef QB_KERNEL_CHASE_H
#define QB_KERNEL_CHASE_H

#include <stdint.h>

#define CHASE_LINE 64ull

/* Lay one cycle through lines lines of set (lines x CHASE_LINE bytes): word
 * 0 of each line names the next line, in an order no prefetcher can follow
 * (Sattolo's algorithm over a fixed seed: the same cycle every run); the
 * other words hold the line's own number. */
void chase_make(volatile uint64_t *set, uint64_t lines);

/* What a whole chase's *sum must be: every line number once. */
uint64_t chase_want(uint64_t lines);

/* One timed pass: follow the cycle through every line, each load depending
 * on the one before. *sum is the sum of the line numbers visited, or ~0 if
 * the chase did not end where it began. Raw ticks, tsc_start to tsc_end
 * (callers take the timer's overhead off). */
uint64_t chase_pass(const volatile uint64_t *set, uint64_t lines, uint64_t *sum);

/* chase_pass, with the TSC read (unfenced) after every `piece` lines:
 * *longest is the longest piece's ticks, so that a caller can tell a pass
 * that something took the CPU away from (an SMI, a hypervisor, another
 * thread) from a slow one. One read per piece of 64 lines costs well under
 * 1% of a warm pass. */
uint64_t chase_pass_pieces(const volatile uint64_t *set, uint64_t lines, uint64_t piece, uint64_t *sum,
			   uint64_t *longest);

#endif
