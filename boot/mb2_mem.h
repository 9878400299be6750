/* mb2_mem.h - placing the multiboot2 path's own pages in the memory map: page tables, the AP trampoline page.
 *
 * On UEFI the firmware allocates and then reports what it gave out. Under
 * multiboot2 nobody does: these functions pick free RAM from the normalised
 * map, away from what is busy (this image, GRUB's boot information), and
 * mark what was taken as BOOT_MEM_LOADER. Plain C, tested on the host. */
#ifndef QB_BOOT_MB2_MEM_H
#define QB_BOOT_MB2_MEM_H

#include <stdint.h>
#include "boot_info.h"

#define MB2_MEM_PAGE 4096ull

/* A byte range [base, end) that must not be handed out. */
struct mb2_span {
	uint64_t base;
	uint64_t end;
};

/* Lowest page-aligned base of size bytes that lies inside one usable range
 * of the normalised map, inside [lo, hi), and clear of every busy span.
 * Returns 0 if there is none (0 itself is never returned as an address). */
uint64_t mb2_mem_find(const struct boot_mem_range *map, uint32_t n, uint64_t size,
		      uint64_t lo, uint64_t hi, const struct mb2_span *busy, uint32_t nbusy);

/* Highest usable 4 KiB page in [lo, hi) clear of every busy span, or 0.
 * For the trampoline: below 1 MiB, the top pages are the least likely to be
 * touched by a BIOS (Linux keeps the first 64 KiB free for that reason). */
uint64_t mb2_mem_find_high_page(const struct boot_mem_range *map, uint32_t n,
				uint64_t lo, uint64_t hi, const struct mb2_span *busy, uint32_t nbusy);

/* Copy map[0, n) plus the spans as BOOT_MEM_LOADER ranges into raw (at most
 * cap entries), ready for mmap_normalise(), which carves them out of the
 * usable ranges. Returns the number of entries written. */
uint32_t mb2_mem_with_loader(const struct boot_mem_range *map, uint32_t n,
			     const struct mb2_span *spans, uint32_t nspans,
			     struct boot_mem_range *raw, uint32_t cap);

#endif
