/* pgtable.h - x86-64 4-level page tables built in plain C: 1 GiB, 2 MiB and 4 KiB pages, large pages split where a finer mapping is needed, RAM identity-mapped from the memory map within a budget of table pages (Intel SDM vol. 3A §4.5).
 *
 * No CPU instructions: the kernel's own tables (paging.c) and the boot paths'
 * handoff tables (boot/handoff_pt.c) are built with it, and the host tests
 * walk what it builds with a software MMU. Tables are reached through the
 * identity map: a table's physical address is its pointer. */
#ifndef QB_KERNEL_PGTABLE_H
#define QB_KERNEL_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"

/* ---- Entry bits: Intel SDM vol. 3A §4.5, Tables 4-15 to 4-20 ------------- */
#define PGT_P (1ull << 0)
#define PGT_W (1ull << 1)
#define PGT_PWT (1ull << 3)
#define PGT_PCD (1ull << 4)            /* with PWT: PAT entry 3, UC in the power-on PAT */
#define PGT_PS (1ull << 7)             /* in a PDPT or PD entry: a 1 GiB or 2 MiB page */
#define PGT_PAT_4K (1ull << 7)         /* in a 4 KiB entry the same bit is PAT */
#define PGT_G (1ull << 8)
#define PGT_PAT_LARGE (1ull << 12)     /* PAT in a 1 GiB or 2 MiB entry */
#define PGT_NX (1ull << 63)
#define PGT_ADDR 0x000ffffffffff000ull /* bits 51:12 */

#define PGT_4K 0x1000ull
#define PGT_2M 0x200000ull
#define PGT_1G 0x40000000ull
#define PGT_ENTRIES 512
#define PGT_IDENTITY_LIMIT (1ull << 47) /* the low half of 4-level paging: VA = PA below it */

enum pgt_status { PGT_OK = 0, PGT_NO_MEMORY, PGT_BUDGET };

/* Why RAM was left out of the identity map. */
enum pgt_why {
	PGT_WHY_ADDRESS_WIDTH,  /* at or above 2^MAXPHYADDR (CPUID 80000008H): the map is wrong */
	PGT_WHY_IDENTITY_LIMIT, /* at or above 2^47, past the low half of 4-level paging */
	PGT_WHY_BUDGET,         /* its tables would pass the budget of table pages */
	PGT_WHY_NO_MEMORY,      /* no page for a table */
	PGT_WHY_COUNT
};

/* One zeroed, 4 KiB-aligned page for a table: its physical address (also
 * its pointer), or 0 when there is none. */
typedef uint64_t (*pgt_alloc_fn)(void *ctx);

/* True when one memory type covers [base, base + len) (the MTRRs): a large
 * page never spans two (SDM §12.11.9: the processor may then use either, or UC). */
typedef bool (*pgt_uniform_fn)(uint64_t base, uint64_t len);

struct pgtable {
	uint64_t *pml4;
	pgt_alloc_fn alloc;
	void *ctx;
	pgt_uniform_fn uniform;    /* NULL: every range is uniform */
	uint64_t max_page;         /* the largest page: PGT_1G where CPUID.80000001H:EDX[26] says so, else PGT_2M */
	uint64_t tables;           /* table pages in use, the PML4 included */
	uint64_t table_limit;      /* 0, or allocations fail (PGT_BUDGET) once tables reaches it */
	uint64_t leaves[3];        /* leaf entries now: [0] 4 KiB, [1] 2 MiB, [2] 1 GiB */
	uint64_t splits;           /* large pages split into finer ones */
};

/* What pgtable_map_ram() mapped and left out. */
struct pgt_ram {
	uint64_t mapped;                   /* bytes of RAM identity-mapped (or found mapped) */
	uint64_t end;                      /* every RAM byte below this is mapped, none at or above it; ~0: all */
	uint64_t left_out[PGT_WHY_COUNT];  /* bytes of RAM not mapped, by reason */
	uint64_t first[PGT_WHY_COUNT];     /* the lowest address so left out, by reason */
};

/* Start tables at pml4 (a zeroed page from the caller: the kernel's must lie
 * below 4 GiB for the AP trampoline). */
void pgtable_init(struct pgtable *t, uint64_t pml4, pgt_alloc_fn alloc, void *ctx, pgt_uniform_fn uniform,
		  uint64_t max_page);

/* Map [pa, pa + len) at va (all 4 KiB-aligned) with flags (PGT_P | ...; PS
 * and PAT are placed by page size), in the largest pages, at most max_page,
 * that alignment, length and the memory type allow. What is mapped already
 * is left as it is. Stops at the first table it cannot get: *done (may be
 * NULL) says how many bytes from pa were handled before that. */
enum pgt_status pgtable_map(struct pgtable *t, uint64_t va, uint64_t pa, uint64_t len, uint64_t flags,
			    uint64_t max_page, uint64_t *done);

/* Make the page that holds va no larger than size (PGT_2M or PGT_4K),
 * splitting the large pages above it into pages with the same translation
 * and attributes. PGT_OK also when va is not mapped. */
enum pgt_status pgtable_split(struct pgtable *t, uint64_t va, uint64_t size);

/* The 4 KiB entry for va (to be filled or changed by the caller), creating
 * tables and splitting a large page in the way; NULL with *st set if a table
 * could not be had. */
uint64_t *pgtable_entry_4k(struct pgtable *t, uint64_t va, enum pgt_status *st);

/* The leaf entry that maps va and its page size, or 0 if va is not mapped. */
uint64_t pgtable_lookup(const struct pgtable *t, uint64_t va, uint64_t *page_size);

/* Memory-map types that are RAM and go into the identity map. */
bool pgtable_is_ram(uint32_t type);

/* Identity-map the RAM of a normalised memory map below limit, write-back,
 * executable only where it is firmware code (nx: the NX bit to set, or 0),
 * in the largest pages the table allows, taking at most budget more table
 * pages (0: no budget). RAM at or above limit is left out for limit_why;
 * once a table cannot be had, the rest is left out for that reason. */
void pgtable_map_ram(struct pgtable *t, const struct boot_mem_range *map, uint32_t n, uint64_t limit,
		     enum pgt_why limit_why, uint64_t nx, uint64_t budget, struct pgt_ram *out);

/* Bytes left out for every reason together. */
uint64_t pgtable_left_out(const struct pgt_ram *r);

#endif
