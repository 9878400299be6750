/* test_demand.c - host tests of demand-zero regions (kernel/mm/demand.c): page-table updates, node choice (first touch, a fixed node; the interleave and pre-faulting: test_demand_interleave.c), fault and page accounting.
 *
 * The real kernel/mm/pmm.c hands out pages of a host arena split into two
 * NUMA nodes (three, or two of three with one node left without memory, in
 * the interleave cases), so "physical" addresses are host pointers; the
 * demand_hw_* stubs below stand in for the CPU. */
#include <stdlib.h>
#include "check.h"
#include "demand.h"
#include "demand_fixture.h"
#include "pmm.h"
#include "spinlock.h"

TEST(first_touch_maps_a_zeroed_page_on_the_faulting_cpus_node)
{
	setup();
	const char *why = 0;
	uint64_t kernel0 = pmm_used_bytes(PMM_KERNEL);
	struct demand_region *r = demand_create(64 * 4096 + 1, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK_EQ_U(r->size, 65 * 4096);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL) - kernel0, 3 * 4096); /* PDPT, PD, one PT */
	CHECK(pml4[(r->base >> 39) & 511] & PTE_P);
	CHECK_EQ_U(demand_present_pages(r), 0);

	uint64_t va = r->base + 5 * 4096 + 17;
	cur_cpu = 3;
	cur_node = 1;
	CHECK(demand_fault(va, 0x2)); /* write, not present */
	uint64_t pte = walk(va, false);
	CHECK(pte & PTE_P);
	CHECK(pte >> 63);                                  /* NX on data */
	uint64_t phys = pte & 0x000ffffffffff000ull;
	CHECK(phys >= (uint64_t)(uintptr_t)arena + ARENA / 2); /* node 1's half */
	CHECK(all_zero(phys, 4096));
	CHECK_EQ_U(demand_node_at(r, 5 * 4096), 1);
	CHECK_EQ_U(demand_node_at(r, 6 * 4096), (uint64_t)-1);
	CHECK_EQ_U(last_invlpg, r->base + 5 * 4096);
	CHECK_EQ_U(r->cpu[3].faults, 1);
	CHECK_EQ_U(demand_faults(r), 1);
	CHECK(r->cpu[3].handler_ticks > r->cpu[3].zero_ticks && r->cpu[3].zero_ticks > 0);
	CHECK_EQ_U(r->pages_by_node[1], 1);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 4096);

	/* A second fault on a mapped page (another CPU won the race) changes nothing. */
	CHECK(demand_fault(va + 8, 0));
	CHECK_EQ_U(demand_faults(r), 1);
	CHECK_EQ_U(walk(va, false), pte);
	demand_destroy(r);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), kernel0);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
	CHECK_EQ_U(pml4[(r->base >> 39) & 511], 0);
}

/* A region zeroed on a first read: a read fault (error code 0) maps a page
 * of its own, zeroed, as a write would; the zeroing is clocked. */
TEST(zero_on_read_region_zeroes_on_a_read_fault)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(8 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_ON_READ, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_fault(r->base + 4096, 0)); /* read, not present */
	CHECK(demand_fault(r->base + 2 * 4096, 0));
	uint64_t a = walk(r->base + 4096, false) & 0x000ffffffffff000ull;
	uint64_t b = walk(r->base + 2 * 4096, false) & 0x000ffffffffff000ull;
	CHECK(a && b && a != b); /* no shared zero page */
	CHECK(all_zero(a, 4096) && all_zero(b, 4096));
	CHECK_EQ_U(demand_faults(r), 2);
	CHECK(demand_zero_ticks(r) > 0);
	demand_destroy(r);
}

TEST(faults_that_are_not_ours_are_refused)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(1 << 20, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(!demand_fault(r->base, 0x1));             /* protection fault */
	CHECK(!demand_fault(r->base + r->size, 0));     /* just past the end */
	CHECK(!demand_fault(0x1000, 0));                /* not a region */
	CHECK_EQ_U(demand_faults(r), 0);
	demand_destroy(r);
}

TEST(fixed_node_and_fallback_when_the_node_is_full)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(1 << 20, DEMAND_PAGE_4K, DEMAND_FIXED_NODE, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	cur_node = 1;
	CHECK(demand_fault(r->base, 0));
	CHECK_EQ_U(demand_node_at(r, 0), 0); /* the region's node, not the CPU's */
	/* Use up node 0, then fault again: the page comes from node 1 and is counted. */
	while (pmm_alloc(1, 0, 4096, 0, PMM_WORKLOAD))
		;
	CHECK(demand_fault(r->base + 4096, 0));
	CHECK_EQ_U(demand_node_at(r, 4096), 1);
	CHECK_EQ_U(r->cpu[0].off_node, 1);
	demand_destroy(r);
}

TEST(two_megabyte_pages)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(8 << 20, DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	cur_node = 1;
	CHECK(demand_fault(r->base + (2 << 20) + 12345, 0));
	uint64_t pde = walk(r->base + (2 << 20), true);
	CHECK((pde & PTE_P) && (pde & PTE_PS));
	uint64_t phys = pde & 0x000fffffffe00000ull;
	CHECK_EQ_U(phys & ((2 << 20) - 1), 0);
	CHECK(all_zero(phys, 2 << 20));
	CHECK_EQ_U(demand_node_at(r, (2 << 20) + 5), 1);
	CHECK_EQ_U(demand_present_pages(r), 1);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 2 << 20);
	demand_reset(r);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
	CHECK_EQ_U(demand_present_pages(r), 0);
	demand_destroy(r);
}

/* The page directory entry of va in a 2 MiB region, walked as walk() does. */
static uint64_t *pde_of(uint64_t va)
{
	uint64_t e = pml4[(va >> 39) & 511];
	e = ((uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull))[(va >> 30) & 511];
	return &((uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull))[(va >> 21) & 511];
}

/* Whole pages are read back from the tables: a faulted 2 MiB page (PS set)
 * is whole, an untouched one is not, nor one whose entry lacks PS (a
 * 4 KiB page table where a 2 MiB page should be). The kernel serves 2 MiB
 * pages itself, and says so (huge_source); 4 KiB regions name no source. */
TEST(whole_pages_read_back_from_the_tables)
{
	setup();
	const char *why = 0, *how = 0;
	struct demand_region *r = demand_create(8 << 20, DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(r->huge_source && !strcmp(r->huge_source, DEMAND_HUGE_KERNEL));
	CHECK(demand_fault(r->base + 7, 0));
	CHECK(demand_fault(r->base + (4 << 20) + 99, 0));
	CHECK(demand_fault(r->base + (6 << 20), 0));
	bool whole[4] = { false, true, false, false };
	CHECK_EQ_U(demand_whole_pages(r, 4, whole, &how), 3);
	CHECK(whole[0] && !whole[1] && whole[2] && whole[3]);
	CHECK(how && strstr(how, "not present or without PS"));
	uint64_t *pde = pde_of(r->base + (4 << 20));
	uint64_t saved = *pde;
	*pde &= ~PTE_PS;
	CHECK_EQ_U(demand_whole_pages(r, 4, whole, &how), 2);
	CHECK(!whole[2] && whole[3]);
	*pde = saved;
	CHECK_EQ_U(demand_whole_pages(r, 2, whole, &how), 1); /* only the first n asked for */
	CHECK(demand_fault(r->base + (2 << 20), 0));
	CHECK_EQ_U(demand_whole_pages(r, 4, whole, &how), 4);
	CHECK(how && strstr(how, "PS set"));
	demand_destroy(r);
	struct demand_region *small = demand_create(4 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(small != 0);
	if (!small)
		return;
	CHECK(!small->huge_source);
	CHECK(demand_fault(small->base + 4096, 0));
	CHECK_EQ_U(demand_whole_pages(small, 4, whole, &how), 1);
	CHECK(!whole[0] && whole[1]);
	demand_destroy(small);
}

TEST(prezeroed_pool_costs_no_zeroing_and_refills_on_reset)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(16 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_PREZEROED, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK_EQ_U(r->pool_len, 16);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 16 * 4096);
	for (int i = 0; i < 16; i++)
		CHECK(demand_fault(r->base + (uint64_t)i * 4096, 0));
	CHECK_EQ_U(r->pool_len, 0);
	CHECK_EQ_U(demand_zero_ticks(r), 0);
	CHECK_EQ_U(demand_faults(r), 16);
	/* Dirty a page; reset must hand it back zeroed. */
	uint64_t phys = walk(r->base, false) & 0x000ffffffffff000ull;
	memset((void *)(uintptr_t)phys, 0x55, 4096);
	uint64_t f0 = flushes;
	demand_reset(r);
	CHECK_EQ_U(flushes, f0 + 1);
	CHECK_EQ_U(r->pool_len, 16);
	CHECK_EQ_U(demand_faults(r), 0);
	for (unsigned i = 0; i < r->pool_len; i++)
		CHECK(all_zero(r->pool[i], 4096));
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 16 * 4096);
	demand_destroy(r);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
}

TEST(populate_maps_everything_without_faults)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(32 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_populate(r, 1));
	CHECK_EQ_U(demand_present_pages(r), 32);
	CHECK_EQ_U(demand_faults(r), 0);
	for (int i = 0; i < 32; i++)
		CHECK_EQ_U(demand_node_at(r, (uint64_t)i * 4096), 1);
	demand_destroy(r);
}

TEST(limits_and_bad_arguments)
{
	setup();
	const char *why = 0;
	CHECK(demand_create(4096, 8192, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) == 0);
	CHECK(why != 0);
	CHECK(demand_create(0, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) == 0);
	CHECK(demand_create(DEMAND_MAX_BYTES + 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) == 0);
	struct demand_region *rs[DEMAND_MAX_REGIONS];
	for (int i = 0; i < DEMAND_MAX_REGIONS; i++) {
		rs[i] = demand_create(4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
		CHECK(rs[i] != 0);
	}
	CHECK(demand_create(4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) == 0);
	for (int i = 0; i < DEMAND_MAX_REGIONS; i++)
		demand_destroy(rs[i]);
	/* Out of memory: the prezeroed pool cannot be filled, nothing leaks. */
	uint64_t used = pmm_used_bytes(PMM_WORKLOAD);
	CHECK(demand_create(ARENA, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_PREZEROED, 0, &why) == 0);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), used);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), 0);
}

/* The seed's copy faults src and dst in turn, so each region owns every other
 * page: freeing one page by page must not lose memory (pmm's range table is finite). */
TEST(alternating_regions_lose_nothing)
{
	setup();
	const char *why = 0;
	uint64_t free0 = pmm_free_bytes(PMM_ANY_NODE);
	uint64_t n = 4 * 1024; /* pages per region: more holes than PMM_MAX_RANGES */
	struct demand_region *a = demand_create(n * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	struct demand_region *b = demand_create(n * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(a && b);
	if (!a || !b)
		return;
	for (uint64_t i = 0; i < n; i++) {
		CHECK(demand_fault(a->base + i * 4096, 0));
		CHECK(demand_fault(b->base + i * 4096, 0));
	}
	CHECK_EQ_U(demand_faults(a) + demand_faults(b), 2 * n);
	demand_destroy(a);
	/* A region made now reuses the freed pages: they are not lost. */
	struct demand_region *c = demand_create(n * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(c != 0);
	for (uint64_t i = 0; c && i < n; i++)
		CHECK(demand_fault(c->base + i * 4096, 0));
	demand_destroy(c);
	demand_destroy(b);
	CHECK_EQ_U(pmm_lost_bytes(), 0);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), free0);
}

/* The allocator's workload hook (the kernel's splits a 1 GiB identity page,
 * changing the tables every CPU walks) never runs for a region's pages: they
 * are read through the region's own mapping. Faulted, pre-faulted,
 * populated or pre-zeroed, they still count as workload memory. */
static unsigned hooked;

static void split_like_paging(uint64_t base, uint64_t bytes)
{
	(void)base;
	(void)bytes;
	hooked++;
}

TEST(workload_hook_not_run_for_region_pages)
{
	setup();
	pmm_set_workload_hook(split_like_paging);
	hooked = 0;
	const char *why = 0;
	struct demand_region *r = demand_create(4 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	struct demand_region *z = demand_create(2 << 20, DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH, DEMAND_PREZEROED, 0, &why);
	CHECK(r != 0 && z != 0);
	if (!r || !z)
		return;
	cur_node = 1;
	CHECK(demand_fault(r->base + 4096, 0x2));
	CHECK(demand_prefault(r, 2 * 4096, 4096));
	CHECK(demand_populate(r, 0));
	CHECK(demand_fault(z->base, 0x2));
	CHECK_EQ_U(demand_present_pages(r), 4);
	CHECK_EQ_U(hooked, 0);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 4 * 4096 + (2 << 20));
	CHECK(pmm_alloc(1, 0, 4096, 0, PMM_WORKLOAD) != 0 && hooked == 1); /* the allocator's own blocks: split */
	demand_destroy(r);
	demand_destroy(z);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 4096);
	pmm_set_workload_hook(0);
}

/* A fault that cannot have the allocator's lock within its bound (here: a
 * fault taken while this CPU holds it) fails and is said; it neither takes
 * a page without the lock nor releases the lock its holder still holds. */
TEST(lock_timeout_fails_the_fault_and_keeps_the_lock)
{
	setup();
	spin_set_tsc_hz(1000); /* a tick a millisecond: the bound passes at once */
	const char *why = 0;
	struct demand_region *r = demand_create(4 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_fault(r->base, 0x2));
	uint64_t phys = demand_phys_of(r, 0);
	demand_reset(r); /* the page waits among the pending ones */
	console_errors_seen = 0;
	reenter_at = phys;
	reenter_va = r->base + 2 * 4096;
	CHECK(demand_fault(r->base + 4096, 0x2)); /* takes the pending page, the lock held */
	CHECK(reenter_at == 0 && !reentered_ok);   /* the fault inside it failed */
	if (reentered_ok)
		return; /* it took the pending page too: mapped twice, the region cannot be given back */
	CHECK_EQ_U(console_errors_seen, 1);
	CHECK(demand_phys_of(r, 4096) == phys && demand_node_at(r, 2 * 4096) == -1);
	CHECK(demand_fault(r->base + 2 * 4096, 0x2)); /* the lock was released by its holder */
	CHECK(demand_phys_of(r, 2 * 4096) != phys && console_errors_seen == 1);
	demand_destroy(r);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
}

int main(void)
{
	RUN(first_touch_maps_a_zeroed_page_on_the_faulting_cpus_node);
	RUN(zero_on_read_region_zeroes_on_a_read_fault);
	RUN(faults_that_are_not_ours_are_refused);
	RUN(fixed_node_and_fallback_when_the_node_is_full);
	RUN(two_megabyte_pages);
	RUN(prezeroed_pool_costs_no_zeroing_and_refills_on_reset);
	RUN(populate_maps_everything_without_faults);
	RUN(limits_and_bad_arguments);
	RUN(alternating_regions_lose_nothing);
	RUN(whole_pages_read_back_from_the_tables);
	RUN(workload_hook_not_run_for_region_pages);
	RUN(lock_timeout_fails_the_fault_and_keeps_the_lock);
	free(arena);
	return check_summary("demand");
}
