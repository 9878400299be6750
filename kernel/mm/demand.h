/* demand.h - demand-zero memory: pages appear on first touch, zeroed by the page-fault handler, as an OS does (Intel SDM vol. 3A §4.7).
 *
 * A region is a range of kernel virtual addresses whose pages start
 * not-present. The first access to a page faults; the handler takes a free
 * page from the faulting CPU's NUMA node (or a fixed node, or the node an
 * interleave gives the page), zeroes it, maps it, flushes that TLB entry on
 * the faulting CPU and returns, counting the fault and its cost. The bookkeeping here is pure C: the hardware (CR2, the
 * PML4, INVLPG, the TSC, the CPU's identity) comes through the demand_hw_*
 * functions, which kernel/run/demand_hw.c provides and host tests stub. */
#ifndef QB_KERNEL_DEMAND_H
#define QB_KERNEL_DEMAND_H

#include <stdbool.h>
#include <stdint.h>
#include "qb_limits.h"

#define DEMAND_PAGE_4K 0x1000ull
#define DEMAND_PAGE_2M 0x200000ull
#define DEMAND_MAX_REGIONS 4
#define DEMAND_MAX_BYTES (64ull << 30)   /* per region: 64 page directories */
#define DEMAND_PDS (DEMAND_MAX_BYTES >> 30)
#define DEMAND_VA_BASE 0xffff800000000000ull /* PML4 slot 256 onwards: the upper half, clear of the identity map */
#define DEMAND_VA_STRIDE (1ull << 39)    /* one PML4 slot (512 GiB) per region */

/* Who serves a region's 2 MiB pages (demand_region.huge_source, a result's
 * params.huge_source): the kernel's own fault handler, which maps each as a
 * page-directory entry with PS (bare metal); Linux's transparent huge pages
 * or its hugetlbfs pool (the twin). */
#define DEMAND_HUGE_KERNEL "kernel"
#define DEMAND_HUGE_THP "thp"
#define DEMAND_HUGE_HUGETLBFS "hugetlbfs"

/* Where a faulting page's memory comes from. */
enum demand_policy {
	DEMAND_FIRST_TOUCH,   /* the faulting CPU's node, as Linux's and Windows' default policy */
	DEMAND_FIXED_NODE,    /* always region->node */
	/* Page i (at the region's page size) on the (i mod k)-th of the k nodes
	 * in region->nodes, lowest first, as Linux's MPOL_INTERLEAVE spreads a
	 * range (which counts i from the virtual address, so its first page may
	 * start on another of the nodes). A node that has no free page passes
	 * the page to the next node of the set, then to any node: the page
	 * counts in off_node. */
	DEMAND_INTERLEAVE,
};

_Static_assert(QB_MAX_NODES <= 64, "an interleave's node set is one 64-bit mask");

/* What the handler does to the page before mapping it. */
enum demand_zeroing {
	DEMAND_ZERO_STOSB,    /* zero it with rep stosb, as an OS must */
	DEMAND_PREZEROED,     /* take one zeroed in advance: the fault costs entry, bookkeeping and return only */
	/* As DEMAND_ZERO_STOSB, for a region whose first touch may be a read
	 * that must get a zeroed page of its own, as a write does (Windows, and
	 * this handler, always do). Linux maps its shared zero page on a first
	 * read of private memory, so the twin backs such a region with shared
	 * anonymous memory, whose first read allocates and zeroes. */
	DEMAND_ZERO_ON_READ,
};

/* Per-CPU fault accounting, one line each (written by that CPU's handler only). */
struct demand_cpu_stats {
	uint64_t faults;
	uint64_t handler_ticks;   /* TSC from handler entry to exit, summed */
	uint64_t zero_ticks;      /* of which zeroing */
	uint64_t off_node;        /* pages that had to come from another node */
} __attribute__((aligned(64)));

struct demand_region {
	bool active;
	uint64_t base;            /* virtual address */
	uint64_t size;            /* bytes, a multiple of page */
	uint64_t page;            /* DEMAND_PAGE_4K or DEMAND_PAGE_2M */
	enum demand_policy policy;
	enum demand_zeroing zeroing;
	int node;                 /* DEMAND_FIXED_NODE */
	uint64_t nodes;           /* DEMAND_INTERLEAVE: bit n for node n */
	unsigned slot;            /* PML4 slot */
	uint64_t pdpt;            /* physical address of the region's PDPT */
	uint64_t pd[DEMAND_PDS];  /* physical addresses of its page directories */
	uint64_t *pool;           /* DEMAND_PREZEROED: stack of zeroed pages (virtual pointer) */
	uint64_t pool_phys, pool_pages, pool_len; /* the stack's own memory, capacity and fill */
	uint64_t table_bytes;     /* page-table memory the region holds */
	const char *huge_source;  /* 2 MiB pages: a DEMAND_HUGE_* name; 0 for 4 KiB pages */
	volatile uint64_t pages_by_node[QB_MAX_NODES];
	struct demand_cpu_stats cpu[QB_MAX_CPUS];
};

/* What demand_create does alike on both platforms (the kernel's
 * kernel/mm/demand.c, the twin's tools/twin/demand.c): a bad size or page
 * size gives false with *why; else the free region r is cleared and given
 * its size (rounded up to whole pages), page, policy, zeroing and node. */
static inline bool demand_region_init(struct demand_region *r, uint64_t size, uint64_t page,
				      enum demand_policy policy, enum demand_zeroing zeroing, int node,
				      const char **why)
{
	if ((page != DEMAND_PAGE_4K && page != DEMAND_PAGE_2M) || size == 0 || size > DEMAND_MAX_BYTES) {
		*why = "bad region size or page size";
		return false;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->size = (size + page - 1) / page * page;
	r->page = page;
	r->policy = policy;
	r->zeroing = zeroing;
	r->node = node;
	return true;
}

/* How many nodes a node mask holds (no POPCNT: the kernel has no libgcc). */
static inline int demand_node_count(uint64_t nodes)
{
	int k = 0;
	for (; nodes; nodes &= nodes - 1)
		k++;
	return k;
}

/* The node of page `index` of an interleave over the node mask `nodes`:
 * the (index mod k)-th set bit of k, lowest first; -1 for an empty mask. */
static inline int demand_interleave_node(uint64_t nodes, uint64_t index)
{
	int k = demand_node_count(nodes);
	if (!k)
		return -1;
	for (uint64_t skip = index % (uint64_t)k; skip; skip--)
		nodes &= nodes - 1;
	return __builtin_ctzll(nodes);
}

/* The platform's region maker (kernel/mm/demand.c, tools/twin/demand.c): a
 * region of policy over node (fixed or first touch) or the node mask nodes
 * (an interleave); demand_create and demand_create_interleaved below check
 * their arguments once for both platforms and call it. */
struct demand_region *demand_create_region(uint64_t size, uint64_t page, enum demand_policy policy,
					   enum demand_zeroing zeroing, int node, uint64_t nodes, const char **why);

/* Create a region of `size` bytes (rounded up to whole pages) with the given
 * page size, policy and zeroing. Page tables are built now, every entry
 * not-present; with DEMAND_PREZEROED, size/page zeroed pages are reserved on
 * `node` (or any node) now. Returns NULL with *why set on failure. */
static inline struct demand_region *demand_create(uint64_t size, uint64_t page, enum demand_policy policy,
						  enum demand_zeroing zeroing, int node, const char **why)
{
	if (policy == DEMAND_INTERLEAVE) {
		*why = "an interleave needs its nodes: demand_create_interleaved";
		return 0;
	}
	return demand_create_region(size, page, policy, zeroing, node, 0, why);
}

/* The same with policy DEMAND_INTERLEAVE over the node mask `nodes` (bit n:
 * node n; at least one). The twin binds the range with mbind(MPOL_INTERLEAVE)
 * over those nodes and reads the policy back (get_mempolicy). */
static inline struct demand_region *demand_create_interleaved(uint64_t size, uint64_t page,
							      enum demand_zeroing zeroing, uint64_t nodes,
							      const char **why)
{
	if (!nodes) {
		*why = "no nodes to interleave over";
		return 0;
	}
	return demand_create_region(size, page, DEMAND_INTERLEAVE, zeroing, -1 /* any node */, nodes, why);
}

/* The region's first byte. */
static inline void *demand_base(const struct demand_region *r)
{
	return (void *)(uintptr_t)r->base;
}

/* Unmap every page (4 KiB pages wait for later faults and go back to the
 * allocator when no region is left; 2 MiB pages go back now; prezeroed ones
 * re-zeroed to the pool), flush every CPU's TLB, and clear the counters: the
 * region is fresh again. */
void demand_reset(struct demand_region *r);

/* Map every page now, zeroed, without faults (a "mapped but never touched"
 * region for the TLB-miss measurement), on `node` or any. false if memory ran out. */
bool demand_populate(struct demand_region *r, int node);

/* Map every page of [off, off+len) that is not mapped yet, now, as a first
 * write by the calling CPU would (its node under DEMAND_FIRST_TOUCH, so a
 * thread pre-faults its own part; the interleave's node; the fixed node),
 * without taking a fault or counting one: so that no fault lands in a timed
 * pass later. The kernel takes and zeroes the pages itself; the twin writes
 * every 4 KiB piece (a locked add of 0, a write from the first access, so
 * that Linux allocates rather than mapping its zero page). Returns false
 * if memory ran out or (twin) a piece is still not present after. Data in
 * pages already mapped is kept. */
bool demand_prefault(struct demand_region *r, uint64_t off, uint64_t len);

/* Where pages [first, first+n) (page numbers at the region's page size)
 * really are: node[i] gets the NUMA node of page first+i, -1 if it is not
 * present; read from the page tables and the allocator (kernel) or with
 * mincore and one move_pages query (twin: the node of the page's first
 * 4 KiB piece). Returns how many are present. */
uint64_t demand_page_nodes(const struct demand_region *r, uint64_t first, uint64_t n, int16_t *node);

/* demand_reset, then free the page tables and the slot; the last region
 * destroyed returns every waiting page to the allocator, sorted, so it merges. */
void demand_destroy(struct demand_region *r);

/* The page-fault handler's work: true if va lies in a region and the fault was
 * a not-present access that has now been resolved. err is the #PF error code. */
bool demand_fault(uint64_t va, uint64_t err);

/* Totals over all CPUs. */
uint64_t demand_faults(const struct demand_region *r);
uint64_t demand_handler_ticks(const struct demand_region *r);
uint64_t demand_zero_ticks(const struct demand_region *r);

/* Pages mapped now, and the NUMA node of the page at byte offset off (read
 * from the page tables and the allocator), -1 if it is not present. */
uint64_t demand_present_pages(const struct demand_region *r);
int demand_node_at(const struct demand_region *r, uint64_t off);

/* Physical address of the byte at offset off, 0 if its page is not present. */
uint64_t demand_phys_of(const struct demand_region *r, uint64_t off);

/* Which of the region's first n pages are mapped whole, at the region's page
 * size, into whole[] (n entries); returns how many. A first touch of a
 * 2 MiB page must map all of it: here the handler always does (the page
 * directory entry with PS set, read back); Linux may fall back to a 4 KiB
 * page (tools/twin/demand.c asks mincore: a 2 MiB fault leaves all 512
 * 4 KiB pieces present, a fallen-back one a single piece; and then
 * /proc/self/smaps, since all 512 present is not yet one 2 MiB mapping:
 * AnonHugePages, or the Hugetlb fields for hugetlbfs, must cover the page,
 * tools/twin/smaps.h). Call it straight
 * after the first writes, before anything reads an untouched part of the
 * region: on Linux such a read maps the zero page there and hides the
 * fall-back. *how: what was read and, where some page is not whole, what
 * may have made it so, for a reason text. DEMAND_WHOLE_UNKNOWN where it
 * cannot tell (mincore failed, or smaps unreadable, *how saying what mincore
 * showed): then no page counts as whole or as not. */
#define DEMAND_WHOLE_UNKNOWN UINT64_MAX
uint64_t demand_whole_pages(const struct demand_region *r, uint64_t n, bool *whole, const char **how);

/* Route page faults to demand_fault (kernel/run/demand_hw.c; once, at boot). */
void demand_hw_init(void);

/* ---- Hardware, provided by kernel/run/demand_hw.c (or the tests' stubs) ------- */
uint32_t demand_hw_cpu(void);                    /* dense number of the calling CPU */
int demand_hw_node(void);                        /* its NUMA node */
uint64_t demand_hw_ticks(void);                  /* TSC */
void demand_hw_invlpg(uint64_t va);              /* this CPU's TLB entry for va */
void demand_hw_flush_all_tlbs(void);             /* every online CPU's TLB */
bool demand_hw_set_pml4(unsigned slot, uint64_t entry); /* install (or with 0 clear) a PML4 entry */
void *demand_hw_phys(uint64_t phys);             /* identity-mapped pointer to physical memory */
uint64_t demand_hw_nx_bit(void);                 /* the PTE NX bit, or 0 without NX */

#endif
