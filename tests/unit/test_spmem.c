/* test_spmem.c - host tests of kernel/mm/spmem.c: specific-purpose memory kept per node and lent one range at a time, only where it is write-back and can be mapped; paging, the memory types and the node map are stubs. */
#include "check.h"
#include "lib.h"
#include "pmm.h"
#include "spmem.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static bool wb = true, mappable = true;
static uint64_t mapped_base, mapped_len;

/* ---- Stubs ------------------------------------------------------------------ */
int pmm_node_of(uint64_t phys)
{
	return phys >= 8 * GIB ? 2 : 0;
}

bool memtype_write_back(uint64_t base, uint64_t len)
{
	(void)base;
	(void)len;
	return wb;
}

int paging_map_ram(uint64_t phys, uint64_t len)
{
	mapped_base = phys;
	mapped_len = len;
	return mappable ? 0 : -1;
}

/* ---- Tests ------------------------------------------------------------------ */
TEST(test_kept_per_node)
{
	spmem_reset();
	CHECK(spmem_add(GIB + 4096, 256 * MIB));
	CHECK(spmem_add(8 * GIB, 512 * MIB));
	CHECK(!spmem_add(0, 0));
	CHECK_EQ_U(spmem_bytes(0), 256 * MIB);
	CHECK_EQ_U(spmem_bytes(2), 512 * MIB);
	CHECK_EQ_U(spmem_bytes(1), 0);
	CHECK_EQ_U(spmem_bytes(PMM_ANY_NODE), 768 * MIB);
	for (uint32_t i = 2; i < SPMEM_MAX_RANGES; i++)
		CHECK(spmem_add(16 * GIB + i * GIB, MIB));
	CHECK(!spmem_add(64 * GIB, MIB)); /* the table is full */
}

TEST(test_lent_once_aligned_and_mapped)
{
	const char *why = 0;
	spmem_reset();
	spmem_add(GIB + 4096, 256 * MIB);
	spmem_add(8 * GIB, 512 * MIB);
	uint64_t a = spmem_borrow(0, 2 * MIB, 2 * MIB, &why);
	CHECK_EQ_U(a, GIB + 2 * MIB); /* aligned up inside the range */
	CHECK(mapped_base == a && mapped_len == 2 * MIB);
	CHECK_EQ_U(spmem_borrow(2, 2 * MIB, 2 * MIB, &why), 0);
	CHECK_STR(why, "specific-purpose memory is lent already");
	spmem_return(a);
	CHECK_EQ_U(spmem_borrow(2, 2 * MIB, 2 * MIB, &why), 8 * GIB);
	spmem_return(8 * GIB);
	CHECK_EQ_U(spmem_borrow(1, 2 * MIB, 2 * MIB, &why), 0);
	CHECK_STR(why, "no specific-purpose memory on this node");
	CHECK_EQ_U(spmem_borrow(0, 256 * MIB, 2 * MIB, &why), 0); /* alignment eats into it */
	CHECK_STR(why, "no specific-purpose range on this node is large enough");
	wb = false;
	CHECK_EQ_U(spmem_borrow(0, 2 * MIB, 2 * MIB, &why), 0);
	CHECK_STR(why, "its memory type is not write-back");
	wb = true;
	mappable = false;
	CHECK_EQ_U(spmem_borrow(0, 2 * MIB, 2 * MIB, &why), 0);
	CHECK_STR(why, "it lies past what the kernel can map, or page tables ran out");
	mappable = true;
	CHECK(spmem_borrow(0, 2 * MIB, 4096, &why) == GIB + 4096); /* nothing lent by the failures */
}

int main(void)
{
	RUN(test_kept_per_node);
	RUN(test_lent_once_aligned_and_mapped);
	return check_summary("spmem");
}
