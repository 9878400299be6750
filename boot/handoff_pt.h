/* handoff_pt.h - the page tables a boot path hands to the kernel (Intel SDM vol. 3A §4.5, 4-level and 5-level paging).
 *
 * They identity-map [0, top) with 2 MiB pages and map the kernel image at its
 * link address with 4 KiB pages: just enough for kernel_entry to run until the
 * kernel builds its own tables.
 *
 * With 5-level paging (CR4.LA57 set by the firmware, which cannot be cleared
 * in 64-bit mode) a PML5 goes on top: entry 0 (the identity map, below 2^48)
 * and entry 511 (the kernel at 0xffffffff80000000, bits 56:48 all ones) both
 * point to the one PML4, so every address maps as it does with 4 levels. */
#ifndef QB_BOOT_HANDOFF_PT_H
#define QB_BOOT_HANDOFF_PT_H

#include <stdbool.h>
#include <stdint.h>

/* Page-table entry bits, Intel SDM vol. 3A §4.5 Table 4-14..4-20. */
#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE   (1ull << 1)
#define PTE_LARGE   (1ull << 7) /* PS: a 2 MiB page in a PD entry */
#define PTE_ADDR_MASK 0x000ffffffffff000ull

#define PT_ENTRIES 512
#define PML5_LOW_SLOT 0     /* VA bits 56:48 = 0: the low half */
#define PML5_HIGH_SLOT 511  /* VA bits 56:48 all ones: the top 2^48 bytes, the kernel's */
#define PAGE_4K 0x1000ull
#define PAGE_2M 0x200000ull
#define PAGE_1G 0x40000000ull
#define HANDOFF_CR4_LA57 (1ull << 12) /* Intel SDM vol. 3A §2.5: 57-bit linear addresses */

/* Hands out zeroed, 4 KiB-aligned pages; returns 0 when out of memory. */
typedef uint64_t (*handoff_alloc_fn)(void *ctx);

/* The layout the kernel was linked for. */
struct handoff_kernel {
	uint64_t phys;      /* where the image was copied */
	uint64_t virt;      /* its link address */
	uint64_t size;      /* bytes, page-aligned, image + bss */
};

/* Number of table pages handoff_pt_build() needs for these parameters
 * (with 5-level paging, one more). */
uint64_t handoff_pt_pages(uint64_t top, const struct handoff_kernel *k);

/* Build the tables; returns the physical address of the top table (the PML4,
 * or with la57 the PML5) for CR3, or 0 if an allocation failed. Physical
 * addresses are used as pointers (identity). */
uint64_t handoff_pt_build(uint64_t top, const struct handoff_kernel *k, bool la57,
			  handoff_alloc_fn alloc, void *ctx);

#endif
