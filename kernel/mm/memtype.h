/* memtype.h - the memory type of the RAM QuietBench measures in: the MTRRs and PAT read on every CPU (kernel/mm/mtrr.c decides), non-write-back RAM kept out of the allocator, 2 MiB pages only where one type covers them.
 *
 * A buffer in RAM that firmware left uncached (too few variable MTRRs, a
 * forgotten range on one CPU) runs 10-100 times slower with nothing else to
 * show why; every result therefore says its `mem_type`. */
#ifndef QB_KERNEL_MEMTYPE_H
#define QB_KERNEL_MEMTYPE_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

/* Read the BSP's MTRRs and PAT (through msr_read_safe). Before paging_init
 * and before RAM is given to the allocator. */
void memtype_read_bsp(void);

/* True when one memory type covers [base, base + len) (always, without MTRRs). */
bool memtype_uniform(uint64_t base, uint64_t len);

/* True when [base, base + len) is write-back throughout (always, without MTRRs). */
bool memtype_write_back(uint64_t base, uint64_t len);

/* Give the write-back parts of usable RAM [base, base + len) to the
 * allocator (pmm_add); the rest is counted and reported, never handed out.
 * Returns false if the allocator's range table is full. */
bool memtype_add_ram(uint64_t base, uint64_t len);

/* On the calling CPU, dense number cpu (run on every online CPU by the
 * start-up, which has the runner; mm sits below it): read its MTRRs and PAT
 * and compare them with the BSP's. An AP found with its MTRRs off (reset by its INIT, as some
 * emulators do) is given the BSP's and counted (`mtrr_reset_cpus`); one
 * that differs otherwise is given the BSP's too, as Linux does, and gets
 * an `error` record (from memtype_check_report) naming the register, as does
 * one that cannot be set (safe mode writes nothing). */
void memtype_check_this_cpu(uint32_t cpu, bool safe);

/* After memtype_check_this_cpu ran on cpus[0 .. n-1]: count them, and an
 * `error` record ("mtrr mismatch") for each that differs. */
void memtype_check_report(const uint32_t *cpus, uint32_t n);

/* The memory type of the buffers a result on cpus[0 .. n-1] used (its
 * `mem_type`): "WB", another type, "MIXED: <why>" when one of those CPUs
 * sees other types than the BSP, or "unknown: <why>". */
const char *memtype_result_type(const uint32_t *cpus, uint32_t n);

/* The memory record's fields: MTRR summary, PAT, RAM kept out. */
void memtype_report(struct rec *r);

#endif
