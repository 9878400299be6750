/* pmm.h - the physical page allocator: free ranges from the memory map, each tagged with its NUMA node (SRAT).
 *
 * Layer 4: mm. Memory: the page allocator, page tables, MTRRs and PAT
 * (memory types), demand-zero regions. Includes lib, arch, console; every
 * layer from acpi up may include it; lib, arch and console must not (the
 * screen is handed paging_map_mmio). */
#ifndef QB_KERNEL_PMM_H
#define QB_KERNEL_PMM_H

#include <stdbool.h>
#include <stdint.h>

#define PMM_PAGE 4096ull
#define PMM_MAX_RANGES 1024
#define PMM_ANY_NODE (-1)

/* Who an allocation is for: the kernel's own memory is reported and bounded. */
enum pmm_owner { PMM_KERNEL = 0, PMM_WORKLOAD = 1 };

/* A NUMA region: addresses in [base, end) belong to node. */
struct pmm_node_range {
	uint64_t base, end;
	int32_t node;
};

/* Forget everything (the workload hook too); node_ranges (may be NULL/0: everything is node 0) says
 * which node each address belongs to. The array is copied. */
void pmm_reset(const struct pmm_node_range *node_ranges, uint32_t n);

/* Replace the node map and re-tag the memory that is free now (used once
 * the SRAT has been read, after early allocations). */
void pmm_set_nodes(const struct pmm_node_range *node_ranges, uint32_t n);

/* Add free memory [base, base+len); unaligned edges are trimmed. Ranges are
 * split at node boundaries. Returns false if the range table is full. */
bool pmm_add(uint64_t base, uint64_t len);

/* Allocate `pages` contiguous pages, aligned to `align` bytes (a power of two,
 * at least PMM_PAGE), on `node` (PMM_ANY_NODE for any), ending at or below
 * max_end (0 for no limit). Takes from the highest suitable address.
 * Returns the physical address, or 0 if nothing fits. Memory is not zeroed. */
uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner);

/* pmm_alloc(pages, node, align, 0, PMM_WORKLOAD) for workload memory used
 * only through a mapping of its own (demand-zero regions, kernel/mm/demand.c):
 * the workload hook does not run. Its identity mapping's page size does not
 * matter, and a page-fault handler must not change the identity map that
 * every CPU walks. */
uint64_t pmm_alloc_own_map(uint64_t pages, int node, uint64_t align);

/* Called at the end of every pmm_alloc of PMM_WORKLOAD with its range, once
 * the allocator is consistent again (it may allocate PMM_KERNEL pages):
 * paging.c splits the 1 GiB pages over workload memory. NULL: none. */
typedef void (*pmm_workload_hook_fn)(uint64_t base, uint64_t bytes);
void pmm_set_workload_hook(pmm_workload_hook_fn fn);

/* Return pages to the allocator. */
void pmm_free(uint64_t base, uint64_t pages, enum pmm_owner owner);

/* The node an address belongs to (0 when no NUMA information covers it). */
int pmm_node_of(uint64_t phys);

/* The node of the memory behind a pointer, static data (.bss) included; -1
 * when it is not mapped (the twin: not present yet). Bare metal:
 * kernel/mm/paging.c, a walk of the page tables; the twin: move_pages. */
int pmm_node_of_ptr(const void *p);

/* Free bytes on a node (PMM_ANY_NODE: all nodes). */
uint64_t pmm_free_bytes(int node);

/* Bytes currently allocated for an owner, and the high-water mark. */
uint64_t pmm_used_bytes(enum pmm_owner owner);
uint64_t pmm_peak_bytes(enum pmm_owner owner);

/* Frees that were lost because the range table was full (reported). */
uint64_t pmm_lost_bytes(void);

#endif
