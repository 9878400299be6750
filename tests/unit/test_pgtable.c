/* test_pgtable.c - host tests of kernel/mm/pgtable.c, walked as the MMU walks: pages as large as alignment, length, memory type and CPUID allow; large pages split with their translation and attributes; RAM runs from a memory map, what is left out and why. */
#include <stdlib.h>

#include "check.h"
#include "pagewalk.h"
#include "pgtable.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define TIB (1ull << 40)
#define MAX_PAGES 8192
#define RAM_FLAGS (PGT_P | PGT_W | PGT_NX)

/* ---- The allocator: zeroed host pages (host memory stands in for physical) ---- */
struct pool {
	uint64_t pages[MAX_PAGES];
	unsigned n, limit;
};

static uint64_t pool_alloc(void *ctx)
{
	struct pool *p = ctx;
	if (p->n >= p->limit)
		return 0;
	void *a = aligned_alloc(4096, 4096);
	if (!a)
		return 0;
	memset(a, 0, 4096);
	p->pages[p->n++] = (uint64_t)(uintptr_t)a;
	return (uint64_t)(uintptr_t)a;
}

static void pool_free(struct pool *p)
{
	for (unsigned i = 0; i < p->n; i++)
		free((void *)(uintptr_t)p->pages[i]);
	p->n = 0;
}

static struct pool pool;
static struct pgtable t;

static void start(uint64_t max_page, pgt_uniform_fn uniform)
{
	pool_free(&pool);
	pool.limit = MAX_PAGES;
	pgtable_init(&t, pool_alloc(&pool), pool_alloc, &pool, uniform, max_page);
}

static uint64_t cr3(void)
{
	return (uint64_t)(uintptr_t)t.pml4;
}

/* va maps to pa in a page of size bytes, writable, with NX as asked. */
static bool maps(uint64_t va, uint64_t pa, uint64_t size, bool nx)
{
	struct pw_result r = pw_walk(cr3(), va, 4);
	return r.mapped && r.phys == pa && r.page_size == size && r.writable && r.nx == nx;
}

/* A memory type changes at 6 GiB + 3 MiB (an MTRR boundary). */
#define TYPE_EDGE (6 * GIB + 3 * MIB)
static bool uniform_but_edge(uint64_t base, uint64_t len)
{
	return !(base < TYPE_EDGE && TYPE_EDGE < base + len);
}

/* ---- Tests ------------------------------------------------------------------- */
/* 4 KiB up to a 2 MiB boundary, 2 MiB up to a GiB, 1 GiB pages, then down again. */
TEST(largest_pages_alignment_allows)
{
	start(PGT_1G, 0);
	uint64_t base = 3 * GIB + MIB, end = 6 * GIB + 2 * MIB + 8192, done = 0;
	CHECK(pgtable_map(&t, base, base, end - base, RAM_FLAGS, PGT_1G, &done) == PGT_OK);
	CHECK_EQ_U(done, end - base);
	CHECK_EQ_U(t.leaves[0], 256 + 2);
	CHECK_EQ_U(t.leaves[1], 511 + 1);
	CHECK_EQ_U(t.leaves[2], 2);
	CHECK(maps(base, base, 4096, true) && maps(3 * GIB + 2 * MIB + 5, 3 * GIB + 2 * MIB + 5, PGT_2M, true));
	CHECK(maps(4 * GIB + 123, 4 * GIB + 123, PGT_1G, true) && maps(6 * GIB - 1, 6 * GIB - 1, PGT_1G, true));
	CHECK(maps(6 * GIB + MIB, 6 * GIB + MIB, PGT_2M, true) && maps(end - 1, end - 1, 4096, true));
	CHECK(!pw_walk(cr3(), end, 4).mapped && !pw_walk(cr3(), base - 1, 4).mapped);
	/* PML4, one PDPT, a PD for the fourth GiB, one for the seventh, two PTs. */
	CHECK_EQ_U(t.tables, 6);
}

/* Without CPUID's Page1GB the same range takes 2 MiB pages: a PD per GiB. */
TEST(two_mib_pages_without_page1gb)
{
	start(PGT_2M, 0);
	CHECK(pgtable_map(&t, 4 * GIB, 4 * GIB, 2 * GIB, RAM_FLAGS, PGT_1G, 0) == PGT_OK);
	CHECK_EQ_U(t.leaves[2], 0);
	CHECK_EQ_U(t.leaves[1], 1024);
	CHECK(maps(5 * GIB + 7, 5 * GIB + 7, PGT_2M, true));
	CHECK_EQ_U(t.tables, 1 + 1 + 2);
}

/* No large page spans a change of memory type: the GiB over it takes 2 MiB
 * pages, the 2 MiB page over it 4 KiB pages. */
TEST(memory_type_edge_gets_small_pages)
{
	start(PGT_1G, uniform_but_edge);
	CHECK(pgtable_map(&t, 5 * GIB, 5 * GIB, 3 * GIB, RAM_FLAGS, PGT_1G, 0) == PGT_OK);
	CHECK(maps(5 * GIB, 5 * GIB, PGT_1G, true) && maps(7 * GIB, 7 * GIB, PGT_1G, true));
	CHECK(maps(6 * GIB, 6 * GIB, PGT_2M, true) && maps(6 * GIB + 4 * MIB, 6 * GIB + 4 * MIB, PGT_2M, true));
	CHECK(maps(TYPE_EDGE - 4096, TYPE_EDGE - 4096, 4096, true) && maps(TYPE_EDGE, TYPE_EDGE, 4096, true));
	CHECK_EQ_U(t.leaves[0], 512);
	CHECK_EQ_U(t.leaves[1], 511);
}

/* A split gives 512 pages of the next size with the same translation and
 * attributes (PAT moves from bit 12 to bit 7 in a 4 KiB entry); nothing else
 * changes, and splitting what is small enough already does nothing. */
TEST(split_keeps_translation_and_attributes)
{
	start(PGT_1G, 0);
	uint64_t flags = PGT_P | PGT_W | PGT_PCD | PGT_PWT | PGT_G | PGT_NX;
	CHECK(pgtable_map(&t, 8 * GIB, 8 * GIB, GIB, flags, PGT_1G, 0) == PGT_OK);
	uint64_t size = 0, *pdpt = (uint64_t *)(uintptr_t)(t.pml4[0] & PGT_ADDR);
	pdpt[8] |= PGT_PAT_LARGE;
	CHECK(pgtable_lookup(&t, 8 * GIB, &size) && size == PGT_1G);
	CHECK(pgtable_split(&t, 8 * GIB + 5 * MIB, PGT_2M) == PGT_OK);
	CHECK_EQ_U(t.splits, 1);
	CHECK_EQ_U(t.leaves[2], 0);
	CHECK_EQ_U(t.leaves[1], 512);
	bool same = true;
	for (uint64_t a = 8 * GIB; a < 9 * GIB; a += PGT_2M) {
		struct pw_result r = pw_walk(cr3(), a + 4096 + 3, 4);
		same &= r.mapped && r.phys == a + 4096 + 3 && r.page_size == PGT_2M && r.nx && r.writable &&
			(r.entry & (PGT_PCD | PGT_PWT | PGT_G | PGT_PAT_LARGE | PGT_PS)) ==
				(PGT_PCD | PGT_PWT | PGT_G | PGT_PAT_LARGE | PGT_PS);
	}
	CHECK(same);
	CHECK(pgtable_split(&t, 8 * GIB + 5 * MIB, PGT_2M) == PGT_OK); /* small enough already */
	CHECK_EQ_U(t.splits, 1);
	CHECK(pgtable_split(&t, 8 * GIB + 5 * MIB, PGT_4K) == PGT_OK);
	CHECK_EQ_U(t.splits, 2);
	struct pw_result r = pw_walk(cr3(), 8 * GIB + 5 * MIB + 77, 4);
	CHECK(r.mapped && r.phys == 8 * GIB + 5 * MIB + 77 && r.page_size == 4096 && r.nx);
	CHECK((r.entry & (PGT_PAT_4K | PGT_PCD | PGT_PWT | PGT_G)) == (PGT_PAT_4K | PGT_PCD | PGT_PWT | PGT_G));
	CHECK(!(r.entry & PGT_PAT_LARGE)); /* bit 12 is an address bit in a 4 KiB entry */
	CHECK_EQ_U(t.leaves[0], 512);
	CHECK_EQ_U(t.leaves[1], 511);
	CHECK(pgtable_split(&t, 20 * GIB, PGT_2M) == PGT_OK); /* not mapped: nothing to do */
	CHECK_EQ_U(t.splits, 2);
}

/* One 4 KiB entry inside a 1 GiB page (the AP trampoline, a page made
 * executable): split down to it; its neighbours keep their mapping. */
TEST(entry_4k_splits_the_way_down)
{
	start(PGT_1G, 0);
	CHECK(pgtable_map(&t, 0, 0, GIB, RAM_FLAGS, PGT_1G, 0) == PGT_OK);
	enum pgt_status st;
	uint64_t *e = pgtable_entry_4k(&t, 0x9f000, &st);
	CHECK(e && st == PGT_OK && (*e & PGT_P) && (*e & PGT_ADDR) == 0x9f000);
	*e = 0x9f000 | PGT_P | PGT_W;
	CHECK(maps(0x9f000, 0x9f000, 4096, false));
	CHECK(maps(0x9e000, 0x9e000, 4096, true) && maps(0x200000, 0x200000, PGT_2M, true));
	CHECK(maps(GIB - 1, GIB - 1, PGT_2M, true));
	CHECK_EQ_U(t.splits, 2);
	/* Unmapped: tables are created, the entry is empty for the caller. */
	e = pgtable_entry_4k(&t, 3 * TIB, &st);
	CHECK(e && !*e);
}

/* What is mapped stays; finer tables met on the way are filled. */
TEST(mapped_entries_are_left_alone)
{
	start(PGT_1G, 0);
	CHECK(pgtable_map(&t, GIB + 4 * MIB, GIB + 4 * MIB, 2 * MIB, PGT_P, PGT_2M, 0) == PGT_OK);
	CHECK(pgtable_map(&t, GIB, GIB, GIB, RAM_FLAGS, PGT_1G, 0) == PGT_OK);
	struct pw_result r = pw_walk(cr3(), GIB + 5 * MIB, 4);
	CHECK(r.mapped && !r.writable && !r.nx && r.page_size == PGT_2M); /* the first mapping */
	CHECK(maps(GIB, GIB, PGT_2M, true) && maps(2 * GIB - 1, 2 * GIB - 1, PGT_2M, true));
	CHECK_EQ_U(t.leaves[1], 512);
	/* A range inside a 1 GiB page is covered already: no table, no entry. */
	CHECK(pgtable_map(&t, 8 * GIB, 8 * GIB, GIB, RAM_FLAGS, PGT_1G, 0) == PGT_OK);
	uint64_t tables = t.tables;
	CHECK(pgtable_map(&t, 8 * GIB + 4096, 8 * GIB + 4096, 4096, PGT_P, PGT_4K, 0) == PGT_OK);
	CHECK_EQ_U(t.tables, tables);
	CHECK(maps(8 * GIB + 4096, 8 * GIB + 4096, PGT_1G, true));
}

/* A table that cannot be had stops the mapping where it is: all before is
 * mapped, nothing after; the budget stops it the same way. */
TEST(out_of_tables_stops_cleanly)
{
	start(PGT_2M, 0);
	pool.limit = 1 + 1 + 3; /* PML4, PDPT, three PDs */
	uint64_t done = 0;
	CHECK(pgtable_map(&t, 4 * GIB, 4 * GIB, 8 * GIB, RAM_FLAGS, PGT_1G, &done) == PGT_NO_MEMORY);
	CHECK_EQ_U(done, 3 * GIB);
	CHECK(maps(7 * GIB - 1, 7 * GIB - 1, PGT_2M, true) && !pw_walk(cr3(), 7 * GIB, 4).mapped);
	start(PGT_2M, 0);
	t.table_limit = 3;
	CHECK(pgtable_map(&t, 4 * GIB, 4 * GIB, 8 * GIB, RAM_FLAGS, PGT_1G, &done) == PGT_BUDGET);
	CHECK_EQ_U(done, GIB);
	CHECK_EQ_U(t.tables, 3);
}

/* A map like a firmware's: runs of RAM of one kind coalesce (usable and
 * loader data share a GiB page), firmware code executes, holes and MMIO
 * stay unmapped, RAM past the limit is left out for the limit's reason. */
TEST(ram_from_a_memory_map)
{
	static const struct boot_mem_range map[] = {
		{ 0, 0x9f000, BOOT_MEM_USABLE, 0 },
		{ 0x9f000, 0x61000, BOOT_MEM_RESERVED, 0 },
		{ 0x100000, 2 * GIB - 0x100000, BOOT_MEM_USABLE, 0 },
		{ 2 * GIB, 8 * MIB, BOOT_MEM_FW_CODE, 0 },
		{ 2 * GIB + 8 * MIB, 8 * MIB, BOOT_MEM_ACPI_NVS, 0 },
		{ 0xc0000000, GIB, BOOT_MEM_MMIO, 0 },
		{ 4 * GIB, GIB - 4 * MIB, BOOT_MEM_USABLE, 0 },
		{ 5 * GIB - 4 * MIB, 4 * MIB, BOOT_MEM_LOADER, 0 },
		{ 5 * GIB, 3 * GIB, BOOT_MEM_USABLE, 0 },
		{ 8 * GIB, GIB, BOOT_MEM_SPECIFIC, 0 },
		{ 9 * GIB, GIB, BOOT_MEM_PERSISTENT, 0 },
		{ 16 * GIB, 48 * GIB, BOOT_MEM_USABLE, 0 },
	};
	struct pgt_ram r;
	start(PGT_1G, 0);
	pgtable_map_ram(&t, map, sizeof(map) / sizeof(map[0]), 32 * GIB, PGT_WHY_ADDRESS_WIDTH, PGT_NX, 0, &r);
	CHECK(maps(4 * GIB, 4 * GIB, PGT_1G, true) && maps(8 * GIB - 1, 8 * GIB - 1, PGT_1G, true));
	CHECK(maps(8 * GIB, 8 * GIB, PGT_1G, true));                 /* specific-purpose RAM: mapped */
	CHECK(!pw_walk(cr3(), 9 * GIB, 4).mapped);                   /* persistent memory: not RAM here */
	CHECK(maps(2 * GIB + 4096, 2 * GIB + 4096, PGT_2M, false));  /* firmware code executes */
	CHECK(maps(2 * GIB + 8 * MIB, 2 * GIB + 8 * MIB, PGT_2M, true));
	CHECK(!pw_walk(cr3(), 0xa0000, 4).mapped && !pw_walk(cr3(), 0xc0000000, 4).mapped);
	CHECK(!pw_walk(cr3(), 2 * GIB + 16 * MIB, 4).mapped);
	CHECK(maps(31 * GIB, 31 * GIB, PGT_1G, true) && !pw_walk(cr3(), 32 * GIB, 4).mapped);
	CHECK_EQ_U(r.left_out[PGT_WHY_ADDRESS_WIDTH], 32 * GIB);
	CHECK_EQ_U(r.first[PGT_WHY_ADDRESS_WIDTH], 32 * GIB);
	CHECK_EQ_U(r.end, 32 * GIB);
	CHECK_EQ_U(pgtable_left_out(&r), 32 * GIB);
	CHECK_EQ_U(r.mapped, 0x9f000 + 2 * GIB - 0x100000 + 16 * MIB + 5 * GIB + 16 * GIB);
}

/* In 2 MiB pages a budget of tables maps what it can, from the bottom; the
 * rest is left out for the budget, from the first byte that did not fit. */
TEST(budget_leaves_out_the_top)
{
	static const struct boot_mem_range map[] = {
		{ 0x100000, 2 * GIB - 0x100000, BOOT_MEM_USABLE, 0 },
		{ 4 * GIB, 3 * TIB - 4 * GIB, BOOT_MEM_USABLE, 0 },
	};
	struct pgt_ram r;
	start(PGT_2M, 0);
	pgtable_map_ram(&t, map, 2, PGT_IDENTITY_LIMIT, PGT_WHY_IDENTITY_LIMIT, PGT_NX, 1 + 1 + 100, &r);
	/* A PDPT, two PDs and a PT (for [1 MiB, 2 MiB)) below 2 GiB, then a PD a GiB: 98 from 4 GiB on. */
	CHECK_EQ_U(r.end, 102 * GIB);
	CHECK_EQ_U(r.first[PGT_WHY_BUDGET], 102 * GIB);
	CHECK_EQ_U(r.left_out[PGT_WHY_BUDGET], 3 * TIB - 102 * GIB);
	CHECK_EQ_U(r.left_out[PGT_WHY_IDENTITY_LIMIT], 0);
	CHECK(maps(102 * GIB - 1, 102 * GIB - 1, PGT_2M, true) && !pw_walk(cr3(), 102 * GIB, 4).mapped);
	CHECK_EQ_U(t.table_limit, 0); /* the budget held for this call only */
	/* With 1 GiB pages the same 3 TiB take six PDPTs, a PD and a PT. */
	start(PGT_1G, 0);
	pgtable_map_ram(&t, map, 2, PGT_IDENTITY_LIMIT, PGT_WHY_IDENTITY_LIMIT, PGT_NX, 1 + 1 + 100, &r);
	CHECK_EQ_U(r.end, ~0ull);
	CHECK_EQ_U(pgtable_left_out(&r), 0);
	CHECK(maps(3 * TIB - 1, 3 * TIB - 1, PGT_1G, true));
	CHECK_EQ_U(t.tables, 1 + 6 + 1 + 1);
}

int main(void)
{
	RUN(largest_pages_alignment_allows);
	RUN(two_mib_pages_without_page1gb);
	RUN(memory_type_edge_gets_small_pages);
	RUN(split_keeps_translation_and_attributes);
	RUN(entry_4k_splits_the_way_down);
	RUN(mapped_entries_are_left_alone);
	RUN(out_of_tables_stops_cleanly);
	RUN(ram_from_a_memory_map);
	RUN(budget_leaves_out_the_top);
	pool_free(&pool);
	return check_summary("pgtable");
}
