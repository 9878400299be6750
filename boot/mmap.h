/* mmap.h - turns a loader's raw memory map into the kernel's normalised one.
 *
 * Any boot path (UEFI, multiboot2) first converts its firmware's entries into
 * raw ranges, then calls mmap_normalise(). The result is sorted, page-aligned,
 * non-overlapping and merged, as struct boot_info promises. */
#ifndef QB_BOOT_MMAP_H
#define QB_BOOT_MMAP_H

#include <stdint.h>
#include "boot_info.h"

#define MMAP_PAGE 4096ull

/* Counters of what normalisation had to change, for the boot record. */
struct mmap_stats {
	uint32_t overlaps;   /* places where two raw ranges claimed the same bytes */
	uint32_t unaligned;  /* ranges that were not page-aligned */
	uint32_t wrapped;    /* ranges whose end overflowed 2^64 (clipped) */
	uint32_t empty;      /* zero-length ranges dropped */
	uint32_t dropped;    /* output ranges that did not fit in out[] */
};

/* Normalise n raw ranges (any order, may overlap or be unaligned) into out[],
 * at most max entries. Where ranges overlap, the more restrictive type wins
 * (unusable > reserved > MMIO > firmware > ACPI NVS > ACPI reclaim > loader >
 * usable). Usable RAM is trimmed inwards to whole pages, everything else is
 * widened outwards. raw[] is sorted in place. Returns the number of entries
 * written; stats (optional) says what was repaired. */
uint32_t mmap_normalise(struct boot_mem_range *raw, uint32_t n,
			struct boot_mem_range *out, uint32_t max,
			struct mmap_stats *stats);

/* Total bytes of the given type in a normalised map. */
uint64_t mmap_total(const struct boot_mem_range *map, uint32_t n, uint32_t type);

#endif
