/* spmem.h - specific-purpose memory (UEFI 2.8 EFI_MEMORY_SP, where CXL expanders and HBM often sit): kept out of the allocator, because the firmware reserved it for a purpose, and lent to a workload only when asked (sp_memory=on).
 *
 * A platform service (run/platform.h): the Linux twin has none to lend
 * (tools/twin/spmem.c says why). */
#ifndef QB_KERNEL_SPMEM_H
#define QB_KERNEL_SPMEM_H

#include <stdbool.h>
#include <stdint.h>

#define SPMEM_MAX_RANGES 32     /* specific-purpose ranges kept; more are counted */

/* Forget every range. */
void spmem_reset(void);

/* Keep a specific-purpose range of the memory map (BOOT_MEM_SPECIFIC);
 * false when the table is full (the range is then only counted). */
bool spmem_add(uint64_t base, uint64_t len);

/* Bytes of specific-purpose memory on a node (its base's node, pmm_node_of),
 * or on all nodes with PMM_ANY_NODE. */
uint64_t spmem_bytes(int node);

/* Lend `bytes` of specific-purpose memory on `node`, aligned to `align` (a
 * power of two), identity-mapped write-back in pages of at most 2 MiB, as the
 * allocator's workload memory (paging_map_ram): the physical address, or 0 with
 * *why. One loan at a time; spmem_return ends it. The memory is not zeroed. */
uint64_t spmem_borrow(int node, uint64_t bytes, uint64_t align, const char **why);

/* End the loan that spmem_borrow made at base. */
void spmem_return(uint64_t base);

#endif
