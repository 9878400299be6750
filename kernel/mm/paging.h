/* paging.h - the kernel's own page tables: every RAM range identity-mapped up to the CPU's address width, in 1 GiB pages where the CPU has them (else 2 MiB pages within QB_PT_BUDGET), NX on data, the image at its link address (Intel SDM vol. 3A §4.5).
 *
 * Workload memory is never left in a 1 GiB page: the allocator's workload
 * hook splits it into 2 MiB pages, the page size the Linux twin's buffers
 * get from transparent huge pages (docs/timing.md). */
#ifndef QB_KERNEL_PAGING_H
#define QB_KERNEL_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "boot_info.h"
#include "record.h"

/* Build the tables from the normalised memory map, map the kernel image with
 * per-section permissions and switch CR3. Until the switch, tables come from
 * the allocator below 4 GiB (the boot path maps all of it); after it, from
 * anywhere. The top table stays below 4 GiB for the AP trampoline. RAM that
 * cannot be mapped gets an `error` record per reason, with its bytes.
 * Returns 0, or -1 with an error record. */
int paging_init(const struct boot_info *bi);

/* Every RAM byte below this is identity-mapped, none at or above it (~0:
 * all RAM is). The start-up gives the allocator RAM below it only. */
uint64_t paging_ram_end(void);

/* Identity-map [phys, phys+size) uncached and non-executable (device
 * registers); already-mapped pages are left as they are. Anything below the
 * CPU's physical address width (CPUID 80000008H, at most 2^47, the low half)
 * can be mapped. Returns the pointer (== phys) or NULL if the range is out of
 * reach or tables ran out. */
void *paging_map_mmio(uint64_t phys, uint64_t size);

/* Make [phys, phys+len) workload memory outside the allocator
 * (specific-purpose memory, kernel/mm/spmem.c): identity-mapped write-back
 * and non-executable, as RAM is, where it is not yet, and in pages of at most
 * 2 MiB, a 1 GiB page over it split (as the allocator's workload hook does).
 * Returns 0, or -1 past the CPU's physical address width or out of tables. */
int paging_map_ram(uint64_t phys, uint64_t len);

/* The end of what paging_map_mmio can reach. */
uint64_t paging_mmio_top(void);

/* True if every page of [phys, phys+len) is identity-mapped. */
bool paging_is_mapped(uint64_t phys, uint64_t len);

/* The page size the identity map uses at phys (4 KiB, 2 MiB or 1 GiB), 0 if unmapped. */
uint64_t paging_page_size(uint64_t phys);

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

/* Bytes of page tables in use, and RAM left unmapped (paging_init says why). */
uint64_t paging_table_bytes(void);
uint64_t paging_unmapped_ram(void);

/* The RAM left unmapped for people, "1541 GiB", "1541.5 GiB" or "512 MiB"; "" when none. */
const char *paging_unmapped_text(char *buf, size_t cap);

/* TSC ticks paging_init took, from its start to the switch of CR3. */
uint64_t paging_setup_ticks(void);

/* On CPU cpu (dense number), at the start of its next job: drop its TLB if
 * a large page was split since it last looked, so that no stale 1 GiB
 * translation serves workload memory (the runner calls it). */
void paging_tlb_sync(uint32_t cpu);

/* A text line for people: what is mapped in which pages, the tables, the
 * time (setup_us: paging_setup_ticks in microseconds); and RAM left out. */
void paging_say(uint64_t setup_us);

/* The memory record's paging fields (docs/records.md): phys_bits, page_1g,
 * mapped_ram_bytes, identity_pages_*, page_table_budget_bytes. */
void paging_report(struct rec *r);

#endif
