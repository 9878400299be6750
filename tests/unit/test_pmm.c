/* test_pmm.c - host tests of the physical page allocator (kernel/mm/pmm.c): node tagging, alignment, limits, splitting and merging, the workload hook. */
#include "check.h"
#include "pmm.h"

#define MiB (1024ull * 1024)
#define GiB (1024 * MiB)

static const struct pmm_node_range two_nodes[] = {
	{ 0, 2 * GiB, 0 },
	{ 2 * GiB, 4 * GiB, 1 },
};

TEST(alloc_takes_from_the_top_and_counts)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(16 * MiB, 16 * MiB));
	uint64_t a = pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	CHECK_EQ_U(a, 32 * MiB - PMM_PAGE);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), PMM_PAGE);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 16 * MiB - PMM_PAGE);
	pmm_free(a, 1, PMM_KERNEL);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), 0);
	CHECK_EQ_U(pmm_peak_bytes(PMM_KERNEL), PMM_PAGE);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 16 * MiB);
}

TEST(unaligned_ranges_are_trimmed)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(0x1001, 0x3000)); /* [0x1001, 0x4001) -> [0x2000, 0x4000) */
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 0x2000);
	CHECK(pmm_add(0x10000, 0x800)); /* less than a page: nothing */
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 0x2000);
}

TEST(nodes_split_ranges_and_allocations_stay_on_their_node)
{
	pmm_reset(two_nodes, 2);
	CHECK(pmm_add(1 * GiB, 2 * GiB)); /* straddles the node boundary */
	CHECK_EQ_U(pmm_free_bytes(0), 1 * GiB);
	CHECK_EQ_U(pmm_free_bytes(1), 1 * GiB);
	uint64_t a = pmm_alloc(256, 0, PMM_PAGE, 0, PMM_WORKLOAD);
	CHECK(a >= 1 * GiB && a + 256 * PMM_PAGE <= 2 * GiB);
	CHECK_EQ_U(pmm_node_of(a), 0);
	uint64_t b = pmm_alloc(256, 1, PMM_PAGE, 0, PMM_WORKLOAD);
	CHECK(b >= 2 * GiB && b + 256 * PMM_PAGE <= 3 * GiB);
	CHECK_EQ_U(pmm_node_of(b), 1);
	CHECK_EQ_U(pmm_alloc(1, 2, PMM_PAGE, 0, PMM_WORKLOAD), 0); /* no such node */
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 512 * PMM_PAGE);
}

TEST(alignment_and_max_end)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(0x100000, 64 * MiB));
	uint64_t a = pmm_alloc(512, PMM_ANY_NODE, 2 * MiB, 0, PMM_WORKLOAD);
	CHECK(a != 0 && (a & (2 * MiB - 1)) == 0);
	uint64_t b = pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 8 * MiB, PMM_KERNEL);
	CHECK(b != 0 && b + PMM_PAGE <= 8 * MiB);
	CHECK_EQ_U(pmm_alloc(1, PMM_ANY_NODE, 3 * PMM_PAGE, 0, PMM_KERNEL), 0); /* not a power of two */
	CHECK_EQ_U(pmm_alloc(0, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL), 0);
	CHECK_EQ_U(pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0x100000, PMM_KERNEL), 0); /* nothing below 1 MiB */
}

TEST(too_big_fails_and_leaves_memory_intact)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(16 * MiB, 4 * MiB));
	CHECK_EQ_U(pmm_alloc(4 * MiB / PMM_PAGE + 1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL), 0);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 4 * MiB);
	uint64_t a = pmm_alloc(4 * MiB / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	CHECK_EQ_U(a, 16 * MiB);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 0);
}

TEST(middle_carving_splits_and_frees_merge_back)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(0, 16 * PMM_PAGE));
	/* Max end forces the block into the middle of the range. */
	uint64_t a = pmm_alloc(2, PMM_ANY_NODE, PMM_PAGE, 10 * PMM_PAGE, PMM_KERNEL);
	CHECK_EQ_U(a, 8 * PMM_PAGE);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 14 * PMM_PAGE);
	pmm_free(a, 2, PMM_KERNEL);
	/* After merging, the whole range is one block again. */
	CHECK_EQ_U(pmm_alloc(16, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL), 0);
}

TEST(set_nodes_retags_free_memory)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(1 * GiB, 2 * GiB));
	uint64_t early = pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	CHECK_EQ_U(pmm_free_bytes(0), 2 * GiB - PMM_PAGE); /* all node 0 before the SRAT */
	pmm_set_nodes(two_nodes, 2);
	CHECK_EQ_U(pmm_free_bytes(0), 1 * GiB);
	CHECK_EQ_U(pmm_free_bytes(1), 1 * GiB - PMM_PAGE);
	CHECK_EQ_U(pmm_node_of(early), 1);
	CHECK_EQ_U(pmm_lost_bytes(), 0);
}

TEST(range_table_full_is_reported)
{
	pmm_reset(0, 0);
	/* Every other page: no merging possible. */
	unsigned added = 0;
	for (unsigned i = 0; i < PMM_MAX_RANGES + 8; i++)
		added += pmm_add((uint64_t)i * 2 * PMM_PAGE, PMM_PAGE);
	CHECK_EQ_U(added, PMM_MAX_RANGES);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), PMM_MAX_RANGES * PMM_PAGE);
}

/* The workload hook (paging.c splits 1 GiB pages in it): called for workload
 * memory only, with its range, once the allocator is consistent, so that
 * it can take kernel pages itself; pmm_reset forgets it. */
static uint64_t hook_base, hook_bytes, hook_table;
static unsigned hook_calls;

static void hook(uint64_t base, uint64_t bytes)
{
	hook_calls++;
	hook_base = base;
	hook_bytes = bytes;
	hook_table = pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL); /* as a split's new table */
}

TEST(workload_hook_sees_workload_memory)
{
	pmm_reset(0, 0);
	CHECK(pmm_add(16 * MiB, 16 * MiB));
	pmm_set_workload_hook(hook);
	hook_calls = 0;
	uint64_t k = pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	CHECK_EQ_U(hook_calls, 0);
	uint64_t w = pmm_alloc(512, PMM_ANY_NODE, 2 * MiB, 0, PMM_WORKLOAD);
	CHECK_EQ_U(hook_calls, 1);
	CHECK(w == 28 * MiB && hook_base == w && hook_bytes == 2 * MiB);
	CHECK(hook_table == k - PMM_PAGE);              /* taken after the workload's pages */
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 2 * MiB);
	CHECK_EQ_U(pmm_used_bytes(PMM_KERNEL), 2 * PMM_PAGE);
	CHECK_EQ_U(pmm_free_bytes(PMM_ANY_NODE), 16 * MiB - 2 * MiB - 2 * PMM_PAGE);
	CHECK(pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_WORKLOAD) == 32 * MiB - 3 * PMM_PAGE);
	CHECK_EQ_U(hook_table, 32 * MiB - 4 * PMM_PAGE);
	/* A demand-zero region's page: workload memory, no hook. */
	CHECK(pmm_alloc_own_map(512, PMM_ANY_NODE, 2 * MiB) == 26 * MiB && hook_calls == 2);
	CHECK_EQ_U(pmm_used_bytes(PMM_WORKLOAD), 4 * MiB + PMM_PAGE);
	pmm_reset(0, 0);
	CHECK(pmm_add(16 * MiB, 16 * MiB));
	CHECK(pmm_alloc(1, PMM_ANY_NODE, PMM_PAGE, 0, PMM_WORKLOAD) != 0);
	CHECK_EQ_U(hook_calls, 2);
}

int main(void)
{
	RUN(alloc_takes_from_the_top_and_counts);
	RUN(unaligned_ranges_are_trimmed);
	RUN(nodes_split_ranges_and_allocations_stay_on_their_node);
	RUN(alignment_and_max_end);
	RUN(too_big_fails_and_leaves_memory_intact);
	RUN(middle_carving_splits_and_frees_merge_back);
	RUN(set_nodes_retags_free_memory);
	RUN(range_table_full_is_reported);
	RUN(workload_hook_sees_workload_memory);
	return check_summary("pmm");
}
