/* paging.h - the kernel's own page tables: identity map of RAM in 2 MiB pages, NX on data, the image at its link address (Intel SDM vol. 3A §4.5). */
#ifndef QB_KERNEL_PAGING_H
#define QB_KERNEL_PAGING_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"

#define QB_MAX_PHYS (1ull << 40) /* highest physical address mapped: 1 TiB */

/* Build the tables from the normalised memory map, map the kernel image with
 * per-section permissions and switch CR3. The trampoline page (if any) is
 * mapped executable. Returns 0, or -1 with an error record. */
int paging_init(const struct boot_info *bi);

/* Identity-map [phys, phys+size) uncached and non-executable (device
 * registers); already-mapped pages are left as they are. Anything below the
 * CPU's physical address width (CPUID 80000008H, at most 2^47, the low half)
 * can be mapped. Returns the pointer (== phys) or NULL if the range is out of
 * reach or tables ran out. */
void *paging_map_mmio(uint64_t phys, uint64_t size);

/* Identity-map [phys, phys+len) write-back and non-executable, as RAM is:
 * memory the boot map leaves out (specific-purpose memory, kernel/mm/spmem.c).
 * Returns 0, or -1 past the CPU's physical address width or out of tables. */
int paging_map_ram(uint64_t phys, uint64_t len);

/* The end of what paging_map_mmio can reach. */
uint64_t paging_mmio_top(void);

/* True if every page of [phys, phys+len) is identity-mapped. */
bool paging_is_mapped(uint64_t phys, uint64_t len);

/* Install (entry != 0) or clear a top-level entry for a kernel-managed
 * region (kernel/mm/demand.c): slots 256-510, the upper half. Refuses the
 * identity map's slots (the low half) and the kernel's (511). */
bool paging_set_pml4(unsigned slot, uint64_t entry);

/* The NX bit to put in data entries: 1 << 63, or 0 if the CPU lacks NX. */
uint64_t paging_nx_bit(void);

/* CR3 for the APs (below 4 GiB, as the trampoline loads it in real mode):
 * the PML4, or with 5-level paging the PML5 above it. */
uint64_t paging_cr3(void);

/* 4, or 5 when the kernel was entered with CR4.LA57 set. */
int paging_levels(void);

/* Bytes of page tables in use, and RAM above QB_MAX_PHYS left unmapped. */
uint64_t paging_table_bytes(void);
uint64_t paging_unmapped_ram(void);

#endif
