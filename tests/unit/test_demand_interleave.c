/* test_demand_interleave.c - host tests of demand-zero regions' node choice over a set of nodes (kernel/mm/demand.c): the interleave, page by page over two and three nodes, a node without memory, and pre-faulting on the caller's node. The arena and stubs: demand_fixture.c. */
#include <stdlib.h>
#include "check.h"
#include "demand.h"
#include "demand_fixture.h"
#include "pmm.h"

TEST(interleave_node_is_the_ith_of_the_set)
{
	CHECK_EQ_U(demand_interleave_node(0x3, 0), 0);
	CHECK_EQ_U(demand_interleave_node(0x3, 1), 1);
	CHECK_EQ_U(demand_interleave_node(0x3, 2), 0);
	CHECK_EQ_U(demand_interleave_node(0x5, 1), 2);
	CHECK_EQ_U(demand_interleave_node(0x5, 3), 2);
	CHECK_EQ_U(demand_interleave_node(0x7, 5), 2);
	CHECK_EQ_U(demand_interleave_node(1ull << 63, 7), 63);
	CHECK(demand_interleave_node(0, 3) == -1);
}

/* Over two nodes, page by page, whichever CPU touches: pre-faulted from a
 * CPU on node 1, page 0 still lands on node 0; no fault is counted. */
TEST(interleave_over_two_nodes_page_by_page)
{
	setup();
	const char *why = 0;
	CHECK(demand_create(8 * 4096, DEMAND_PAGE_4K, DEMAND_INTERLEAVE, DEMAND_ZERO_STOSB, 0, &why) == 0);
	CHECK(why && strstr(why, "demand_create_interleaved"));
	CHECK(demand_create_interleaved(8 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0, &why) == 0);
	struct demand_region *r = demand_create_interleaved(8 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x3, &why);
	CHECK(r != 0);
	if (!r)
		return;
	cur_cpu = 2;
	cur_node = 1;
	CHECK(demand_prefault(r, 0, r->size));
	CHECK_EQ_U(demand_present_pages(r), 8);
	CHECK_EQ_U(demand_faults(r), 0);
	int16_t node[8];
	CHECK_EQ_U(demand_page_nodes(r, 0, 8, node), 8);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ_U(node[i], i % 2);
		CHECK_EQ_U(demand_node_at(r, (uint64_t)i * 4096), i % 2);
		CHECK(all_zero(demand_phys_of(r, (uint64_t)i * 4096), 4096));
	}
	CHECK_EQ_U(r->pages_by_node[0], 4);
	CHECK_EQ_U(r->pages_by_node[1], 4);
	CHECK_EQ_U(off_node_pages(r), 0);
	/* A fault after the pre-fault finds the page mapped: nothing counted. */
	CHECK(demand_fault(r->base + 3 * 4096, 0x2));
	CHECK_EQ_U(demand_faults(r), 0);
	demand_destroy(r);

	/* 2 MiB pages: whole pages, alternating, each a PS entry. */
	r = demand_create_interleaved(4 << 20, DEMAND_PAGE_2M, DEMAND_ZERO_STOSB, 0x3, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_prefault(r, 0, r->size));
	CHECK_EQ_U(demand_page_nodes(r, 0, 2, node), 2);
	CHECK(node[0] == 0 && node[1] == 1);
	CHECK(walk(r->base + (2 << 20), true) & PTE_PS);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 4 << 20);
	demand_destroy(r);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
}

/* Over three nodes, and over two of them (a mask with a gap). */
TEST(interleave_over_three_nodes)
{
	setup_nodes(3, -1);
	const char *why = 0;
	struct demand_region *r = demand_create_interleaved(9 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x7, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_prefault(r, 0, r->size));
	int16_t node[9];
	CHECK_EQ_U(demand_page_nodes(r, 0, 9, node), 9);
	for (int i = 0; i < 9; i++)
		CHECK_EQ_U(node[i], i % 3);
	for (int n = 0; n < 3; n++)
		CHECK_EQ_U(r->pages_by_node[n], 3);
	demand_destroy(r);
	r = demand_create_interleaved(4 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x5, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_prefault(r, 0, r->size));
	CHECK_EQ_U(demand_page_nodes(r, 0, 4, node), 4);
	CHECK(node[0] == 0 && node[1] == 2 && node[2] == 0 && node[3] == 2);
	CHECK_EQ_U(r->pages_by_node[1], 0);
	demand_destroy(r);
}

/* A node of the set without memory: its pages go to the next node of the
 * set, and each is counted as off its node (what the workload reports). */
TEST(interleave_node_without_memory_falls_back_and_says_so)
{
	setup_nodes(3, 1);
	const char *why = 0;
	struct demand_region *r = demand_create_interleaved(6 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x7, &why);
	CHECK(r != 0);
	if (!r)
		return;
	cur_cpu = 1;
	CHECK(demand_prefault(r, 0, r->size));
	int16_t node[6];
	CHECK_EQ_U(demand_page_nodes(r, 0, 6, node), 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ_U(node[i], i % 3 == 1 ? 2 : i % 3); /* node 1's pages on node 2, the next of the set */
	CHECK_EQ_U(r->pages_by_node[1], 0);
	CHECK_EQ_U(r->pages_by_node[2], 4);
	CHECK_EQ_U(r->cpu[1].off_node, 2);
	CHECK_EQ_U(off_node_pages(r), 2);
	demand_destroy(r);

	/* Node 2 full as well: node 1's and node 2's pages both end on node 0. */
	setup_nodes(3, 1);
	while (pmm_alloc(1, 2, 4096, 0, PMM_WORKLOAD))
		;
	r = demand_create_interleaved(3 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x6, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_prefault(r, 0, r->size));
	CHECK_EQ_U(demand_page_nodes(r, 0, 3, node), 3);
	CHECK(node[0] == 0 && node[1] == 0 && node[2] == 0);
	CHECK_EQ_U(off_node_pages(r), 3);
	demand_destroy(r);
}

/* Pre-faulting: every page of a range mapped now on the calling CPU's node
 * (first touch), data in mapped pages kept, nothing counted as a fault; a
 * range past the memory fails cleanly, and destroying gives everything back. */
TEST(prefault_maps_a_range_on_the_callers_node)
{
	setup();
	const char *why = 0;
	struct demand_region *r = demand_create(16 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	cur_cpu = 5;
	cur_node = 1;
	CHECK(demand_prefault(r, 4096 + 100, 2 * 4096)); /* pages 1, 2 and 3: the range's unaligned ends count */
	CHECK_EQ_U(demand_present_pages(r), 3);
	int16_t node[16];
	CHECK_EQ_U(demand_page_nodes(r, 0, 16, node), 3);
	CHECK(node[0] == -1 && node[1] == 1 && node[2] == 1 && node[3] == 1 && node[4] == -1);
	*(uint64_t *)(uintptr_t)demand_phys_of(r, 2 * 4096) = 0x1234;
	cur_node = 0; /* another thread pre-faults the rest on its own node */
	CHECK(demand_prefault(r, 0, r->size));
	CHECK_EQ_U(demand_present_pages(r), 16);
	CHECK_EQ_U(*(uint64_t *)(uintptr_t)demand_phys_of(r, 2 * 4096), 0x1234);
	CHECK_EQ_U(demand_node_at(r, 0), 0);
	CHECK_EQ_U(demand_node_at(r, 2 * 4096), 1);
	CHECK_EQ_U(r->pages_by_node[0], 13);
	CHECK_EQ_U(r->pages_by_node[1], 3);
	CHECK_EQ_U(demand_faults(r), 0);
	CHECK_EQ_U(demand_page_nodes(r, 15, 4, node), 1); /* past the end: not present */
	CHECK(node[0] == 0 && node[1] == -1);
	demand_destroy(r);

	struct demand_region *big = demand_create(ARENA + (2 << 20), DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH,
						  DEMAND_ZERO_STOSB, 0, &why);
	CHECK(big != 0);
	if (!big)
		return;
	CHECK(!demand_prefault(big, 0, big->size));
	CHECK(demand_present_pages(big) > 0 && demand_present_pages(big) < big->size / DEMAND_PAGE_2M);
	demand_destroy(big);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 0);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), 0);
}

int main(void)
{
	RUN(interleave_node_is_the_ith_of_the_set);
	RUN(interleave_over_two_nodes_page_by_page);
	RUN(interleave_over_three_nodes);
	RUN(interleave_node_without_memory_falls_back_and_says_so);
	RUN(prefault_maps_a_range_on_the_callers_node);
	free(arena);
	return check_summary("demand_interleave");
}
