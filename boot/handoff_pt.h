/* handoff_pt.h - the page tables a boot path hands to the kernel (Intel SDM vol. 3A §4.5, 4-level and 5-level paging), built with kernel/mm/pgtable.c.
 *
 * They identity-map the first 4 GiB whole in 2 MiB pages (the kernel's first
 * page tables and its MMIO are there), every RAM range of the memory map
 * above it in 1 GiB pages where the CPU has them and the whole GiB is RAM
 * (else 2 MiB pages, within QB_HANDOFF_PT_BUDGET), the code that switches to
 * them wherever it lies, and the kernel image at its link address in 4 KiB
 * pages: enough for kernel_entry to run until the kernel builds its own tables.
 *
 * With 5-level paging (CR4.LA57 set by the firmware, which cannot be cleared
 * in 64-bit mode) a PML5 goes on top: entry 0 (the identity map, below 2^48)
 * and entry 511 (the kernel at 0xffffffff80000000, bits 56:48 all ones) both
 * point to the one PML4, so every address maps as it does with 4 levels. */
#ifndef QB_BOOT_HANDOFF_PT_H
#define QB_BOOT_HANDOFF_PT_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"
#include "pgtable.h"

#define PML5_LOW_SLOT 0     /* VA bits 56:48 = 0: the low half */
#define PML5_HIGH_SLOT 511  /* VA bits 56:48 all ones: the top 2^48 bytes, the kernel's */
#define PAGE_4K PGT_4K
#define PAGE_2M PGT_2M
#define PAGE_1G PGT_1G
#define HANDOFF_LOW_TOP 0x100000000ull /* identity-mapped whole: RAM, MMIO and holes */
#define HANDOFF_CR4_LA57 (1ull << 12) /* Intel SDM vol. 3A §2.5: 57-bit linear addresses */

/* Hands out zeroed, 4 KiB-aligned pages; returns 0 when out of memory. */
typedef uint64_t (*handoff_alloc_fn)(void *ctx);

/* The layout the kernel was linked for, and the code that switches to the
 * new tables: it runs identity-mapped under both, so it is mapped wherever
 * it lies (the RAM map may leave it out: above 4 GiB, past the budget). */
struct handoff_kernel {
	uint64_t phys;      /* where the image was copied */
	uint64_t virt;      /* its link address */
	uint64_t size;      /* bytes, page-aligned, image + bss */
	uint64_t switch_code, switch_size; /* the code that loads CR3 (0, 0: below 4 GiB, mapped anyway) */
};

/* What the identity map covers. */
struct handoff_map {
	const struct boot_mem_range *map; /* a normalised memory map: its RAM ranges are mapped */
	uint32_t n;
	uint64_t limit;     /* nothing at or above: 2^MAXPHYADDR, at most 2^47 */
	bool page_1g;       /* CPUID.80000001H:EDX[26]: 1 GiB pages */
};

/* This CPU's address width and 1 GiB pages (CPUID 80000008H, 80000001H). */
void handoff_pt_cpu(struct handoff_map *m);

/* The most table pages handoff_pt_build() takes for this kernel, with
 * 5-level paging and the whole budget used. */
uint64_t handoff_pt_pages(const struct handoff_kernel *k);

/* Build the tables; returns the physical address of the top table (the PML4,
 * or with la57 the PML5) for CR3, or 0 if a table for the top, the first
 * 4 GiB, the kernel or the switch code could not be had. RAM left out above
 * the first 4 GiB (the budget, the limit, no more pages) is said in *ram (may
 * be NULL): the kernel maps it itself.
 * Physical addresses are used as pointers (identity). */
uint64_t handoff_pt_build(const struct handoff_map *m, const struct handoff_kernel *k, bool la57,
			  handoff_alloc_fn alloc, void *ctx, struct pgt_ram *ram);

#endif
