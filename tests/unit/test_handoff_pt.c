/* test_handoff_pt.c - host tests of boot/handoff_pt.c: the tables a boot path hands to the kernel, walked as the MMU walks them with 4-level and with 5-level paging (CR4.LA57 left on by the firmware), for a 3 TiB machine with and without 1 GiB pages, and the code that loads CR3 mapped wherever it lies. */
#include <stdlib.h>

#include "check.h"
#include "handoff_pt.h"
#include "pagewalk.h"

#define MAX_PAGES 4096
#define KERNEL_VIRT 0xffffffff80000000ull
#define GIB (1ull << 30)
#define TIB (1ull << 40)

/* The allocator the boot paths provide: zeroed, 4 KiB-aligned pages (host memory stands in for physical). */
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

/* A 3 TiB machine as QEMU's q35 lays it out: RAM below the PCI hole, the
 * rest from 4 GiB, one reserved GiB in it, and the address width's top. */
static const struct boot_mem_range qemu3t[] = {
	{ 0, 0x9f000, BOOT_MEM_USABLE, 0 },
	{ 0x9f000, 0x61000, BOOT_MEM_RESERVED, 0 },
	{ 0x100000, 0x7ff00000, BOOT_MEM_USABLE, 0 },
	{ 0xb0000000, 0x10000000, BOOT_MEM_MMIO, 0 },
	{ 4 * GIB, 2 * TIB - 4 * GIB, BOOT_MEM_USABLE, 0 },
	{ 2 * TIB, GIB, BOOT_MEM_RESERVED, 0 },
	{ 2 * TIB + GIB, TIB + GIB, BOOT_MEM_USABLE, 0 },
};
#define QEMU3T_TOP (3 * TIB + 2 * GIB)

static struct handoff_map machine(bool page_1g)
{
	return (struct handoff_map){ qemu3t, sizeof(qemu3t) / sizeof(qemu3t[0]), 1ull << 43, page_1g };
}

static bool identity(uint64_t cr3, uint64_t a, uint64_t size, int levels)
{
	struct pw_result r = pw_walk(cr3, a, levels);
	return r.mapped && r.phys == a && r.page_size == size && r.writable && !r.nx;
}

/* The first 4 GiB whole in 2 MiB pages, RAM above it in 1 GiB pages, the
 * hole left out, the kernel at its link address: either paging mode. */
static void check_layout(int levels)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x1234000, KERNEL_VIRT, 0x340000, 0, 0 };
	struct handoff_map m = machine(true);
	struct pgt_ram ram;
	uint64_t cr3 = handoff_pt_build(&m, &k, levels == 5, pool_alloc, &p, &ram);
	CHECK(cr3 != 0);
	CHECK(p.n <= handoff_pt_pages(&k));
	CHECK(p.n < 32); /* 3 TiB in 1 GiB pages: six PDPTs */
	static const uint64_t low[] = { 0, 0x1000, 0x9f000, 0x1fffff, 0x200000, 0xb0000000, 0xfee00000, 4 * GIB - 1 };
	for (unsigned i = 0; i < sizeof(low) / sizeof(low[0]); i++)
		CHECK(identity(cr3, low[i], PAGE_2M, levels));
	static const uint64_t high[] = { 4 * GIB + 12345, 512 * GIB, 2 * TIB - 1, 2 * TIB + GIB, QEMU3T_TOP - 1 };
	for (unsigned i = 0; i < sizeof(high) / sizeof(high[0]); i++)
		CHECK(identity(cr3, high[i], PAGE_1G, levels));
	CHECK(!pw_walk(cr3, 2 * TIB, levels).mapped);         /* reserved */
	CHECK(!pw_walk(cr3, QEMU3T_TOP, levels).mapped);      /* nothing past the top */
	CHECK_EQ_U(pgtable_left_out(&ram), 0);
	for (uint64_t off = 0; off < k.size; off += 0x1000) {
		struct pw_result r = pw_walk(cr3, k.virt + off + 8, levels);
		if (!(r.mapped && r.phys == k.phys + off + 8 && r.page_size == 4096)) {
			CHECK(!"kernel page mapped at its link address");
			break;
		}
	}
	CHECK(!pw_walk(cr3, k.virt + k.size, levels).mapped);
	pool_free(&p);
}

TEST(four_levels)
{
	check_layout(4);
}

TEST(five_levels)
{
	check_layout(5);
}

/* Without 1 GiB pages the RAM above 4 GiB goes in 2 MiB pages as far as
 * QB_HANDOFF_PT_BUDGET reaches, and what is left out is said; the kernel
 * maps it itself. */
TEST(two_mib_pages_within_the_budget)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x10000, 0, 0 };
	struct handoff_map m = machine(false);
	struct pgt_ram ram;
	uint64_t cr3 = handoff_pt_build(&m, &k, false, pool_alloc, &p, &ram);
	CHECK(cr3 != 0);
	CHECK(p.n <= handoff_pt_pages(&k));
	uint64_t budget = QB_HANDOFF_PT_BUDGET / 4096;
	/* A PDPT at 512 GiB, then a PD per GiB from 4 GiB. */
	uint64_t end = 4 * GIB + (budget - 1) * GIB;
	CHECK_EQ_U(ram.end, end);
	CHECK_EQ_U(ram.left_out[PGT_WHY_BUDGET], QEMU3T_TOP - GIB - end);
	CHECK(identity(cr3, end - 1, PAGE_2M, 4) && !pw_walk(cr3, end, 4).mapped);
	CHECK(identity(cr3, 4 * GIB, PAGE_2M, 4));
	pool_free(&p);
}

/* The code that loads CR3 runs under both tables: where the RAM map leaves
 * it out (past the budget here, across a page boundary) its two pages are
 * mapped alone; where the map has it, nothing changes; without a table for
 * it the builder says so before the firmware is left. */
TEST(switch_code_mapped_wherever_it_lies)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	const uint64_t code = 2 * TIB + GIB + 0x7ffff8;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x10000, code, 0x10 };
	struct handoff_map m = machine(false);
	struct pgt_ram ram;
	uint64_t cr3 = handoff_pt_build(&m, &k, false, pool_alloc, &p, &ram);
	CHECK(cr3 != 0 && ram.end < code);
	CHECK(p.n <= handoff_pt_pages(&k));
	CHECK(identity(cr3, code, PAGE_4K, 4) && identity(cr3, code + 0xf, PAGE_4K, 4));
	CHECK(!pw_walk(cr3, code - 0x1000, 4).mapped && !pw_walk(cr3, code + 0x2000, 4).mapped); /* its pages alone */
	unsigned need = p.n;
	pool_free(&p);
	p.limit = need - 1;
	CHECK(handoff_pt_build(&m, &k, false, pool_alloc, &p, &ram) == 0);
	pool_free(&p);
	/* In RAM the map holds: its 1 GiB page, no table more. */
	p.limit = MAX_PAGES;
	m = machine(true);
	CHECK(handoff_pt_build(&m, &(struct handoff_kernel){ 0x400000, KERNEL_VIRT, 0x10000, 0, 0 }, true, pool_alloc,
				&p, 0) != 0);
	need = p.n;
	pool_free(&p);
	cr3 = handoff_pt_build(&m, &k, true, pool_alloc, &p, 0);
	CHECK(cr3 != 0 && p.n == need && identity(cr3, code, PAGE_1G, 5));
	pool_free(&p);
}

/* RAM past the address width is not mapped, and said for that reason. */
TEST(address_width_limits_the_map)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x10000, 0, 0 };
	struct handoff_map m = machine(true);
	struct pgt_ram ram;
	m.limit = 1ull << 40;
	uint64_t cr3 = handoff_pt_build(&m, &k, false, pool_alloc, &p, &ram);
	CHECK(identity(cr3, TIB - 1, PAGE_1G, 4) && !pw_walk(cr3, TIB, 4).mapped);
	CHECK_EQ_U(ram.left_out[PGT_WHY_ADDRESS_WIDTH], QEMU3T_TOP - GIB - TIB);
	CHECK_EQ_U(ram.first[PGT_WHY_ADDRESS_WIDTH], TIB);
	pool_free(&p);
}

/* With LA57 the PML5's slots 0 and 511 lead to the one PML4; no other. */
TEST(pml5_shape)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x10000, 0, 0 };
	struct handoff_map m = machine(true);
	uint64_t cr3 = handoff_pt_build(&m, &k, true, pool_alloc, &p, 0);
	const uint64_t *pml5 = (const uint64_t *)(uintptr_t)cr3;
	CHECK((pml5[0] & PW_P) && (pml5[511] & PW_P));
	CHECK((pml5[0] & PW_ADDR) == (pml5[511] & PW_ADDR));
	unsigned present = 0;
	for (int i = 0; i < 512; i++)
		present += (pml5[i] & PW_P) != 0;
	CHECK_EQ_U(present, 2);
	/* Walked with the wrong number of levels, the tables do not map the
	 * kernel: what happens when a 4-level PML4 is loaded under LA57. */
	CHECK(!pw_walk(cr3, KERNEL_VIRT, 4).mapped);
	pool_free(&p);
}

/* Every allocation can fail: without a table for the top, the first 4 GiB
 * or the kernel the builder says so, never hands over half a table; past
 * those, RAM it could not map is said, and the kernel maps it. */
TEST(out_of_pages)
{
	static struct pool p;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x20000, 0, 0 };
	struct handoff_map none = { qemu3t, 0, 1ull << 43, true }, m = machine(true);
	for (int levels = 4; levels <= 5; levels++) {
		unsigned essential, need;
		p.limit = MAX_PAGES;
		CHECK(handoff_pt_build(&none, &k, levels == 5, pool_alloc, &p, 0) != 0);
		essential = p.n;
		pool_free(&p);
		CHECK(handoff_pt_build(&m, &k, levels == 5, pool_alloc, &p, 0) != 0);
		need = p.n;
		pool_free(&p);
		CHECK(need > essential);
		for (unsigned lim = 0; lim < need; lim++) {
			struct pgt_ram ram;
			p.limit = lim;
			uint64_t cr3 = handoff_pt_build(&m, &k, levels == 5, pool_alloc, &p, &ram);
			if (lim < essential)
				CHECK(cr3 == 0);
			else
				CHECK(cr3 != 0 && ram.left_out[PGT_WHY_NO_MEMORY] > 0 && ram.end >= 4 * GIB);
			pool_free(&p);
		}
	}
}

int main(void)
{
	RUN(four_levels);
	RUN(five_levels);
	RUN(two_mib_pages_within_the_budget);
	RUN(switch_code_mapped_wherever_it_lies);
	RUN(address_width_limits_the_map);
	RUN(pml5_shape);
	RUN(out_of_pages);
	return check_summary("handoff_pt");
}
