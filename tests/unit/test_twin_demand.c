/* test_twin_demand.c - the twin's demand-zero regions (tools/twin/demand.c) over Linux's real mmap, mincore and page faults, with the NUMA system calls (hostnuma.h) stubbed as two nodes: the policy each region asks for, pre-faulting, where pages are read back, and which 2 MiB pages count whole (mincore, then smaps).
 *
 * This host has one node, so the stubs stand in for mbind and move_pages:
 * they record the policy asked for and place a page as Linux would, an
 * interleave by its virtual 2 MiB index (mm/mempolicy.c interleave_nid), so
 * the test sees that demand_page_nodes reports what move_pages says, for
 * present pages only. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "check.h"
#include "console.h"
#include "demand.h"
#include "hostnuma.h"
#include "thp.h"

enum { POL_NONE, POL_BIND, POL_LOCAL, POL_INTERLEAVE };
static int policy, bind_node, refuse_interleave;
static uint64_t mask;
static unsigned errors;

void kprintf(const char *fmt, ...) { (void)fmt; }
void console_error(const char *what, const char *fmt, ...) { (void)what; (void)fmt; errors++; }

bool hostnuma_bind(void *addr, size_t len, int node) { (void)addr; (void)len; policy = POL_BIND; bind_node = node; return true; }
bool hostnuma_local(void *addr, size_t len) { (void)addr; (void)len; policy = POL_LOCAL; return true; }
bool hostnuma_interleave(void *addr, size_t len, uint64_t nodes)
{
	(void)addr;
	(void)len;
	policy = POL_INTERLEAVE;
	mask = nodes;
	return !refuse_interleave;
}
uint32_t hostnuma_nodes(void) { return 2; }
uint64_t hostmem_meminfo(const char *key) { (void)key; return 0; } /* no hugetlbfs pages */

/* move_pages as Linux answers it: the node of each present page. */
static int node_of(const void *p)
{
	unsigned char v = 0;
	void *pg = (void *)((uintptr_t)p & ~(uintptr_t)4095);
	if (mincore(pg, 4096, &v) != 0 || !(v & 1))
		return -1;
	if (policy == POL_INTERLEAVE)
		return demand_interleave_node(mask, (uintptr_t)p >> 21);
	return policy == POL_BIND ? bind_node : 1;
}
bool hostnuma_nodes_of(void **pages, size_t n, int *status)
{
	for (size_t i = 0; i < n; i++)
		status[i] = node_of(pages[i]);
	return true;
}
int hostnuma_node_of_addr(const void *addr) { return node_of(addr); }

static bool all_present(const struct demand_region *r)
{
	size_t n = r->size / 4096;
	unsigned char *v = malloc(n);
	bool all = v && mincore((void *)(uintptr_t)r->base, r->size, v) == 0;
	for (size_t i = 0; all && i < n; i++)
		all = v[i] & 1;
	free(v);
	return all;
}

TEST(interleaved_region_asks_linux_for_an_interleave)
{
	const char *why = 0;
	CHECK(demand_create(16 * 4096, DEMAND_PAGE_4K, DEMAND_INTERLEAVE, DEMAND_ZERO_STOSB, 0, &why) == 0);
	CHECK(demand_create_interleaved(16 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0, &why) == 0);
	refuse_interleave = 1;
	CHECK(demand_create_interleaved(16 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x3, &why) == 0);
	CHECK(why && strstr(why, "get_mempolicy"));
	refuse_interleave = 0;
	struct demand_region *r = demand_create_interleaved(16 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x3, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(policy == POL_INTERLEAVE && mask == 0x3 && r->policy == DEMAND_INTERLEAVE && r->nodes == 0x3);
	int16_t node[16];
	CHECK_EQ_U(demand_page_nodes(r, 0, 16, node), 0); /* nothing touched yet */
	CHECK(node[0] == -1 && node[15] == -1);
	demand_destroy(r);
}

/* Pre-faulting writes every piece (present after, data kept); the nodes
 * read back are move_pages', for present pages only, past the end -1. */
TEST(prefault_and_read_back)
{
	const char *why = 0;
	struct demand_region *r = demand_create(16 * 4096, DEMAND_PAGE_4K, DEMAND_FIXED_NODE, DEMAND_ZERO_STOSB, 1, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(policy == POL_BIND && bind_node == 1);
	CHECK(demand_prefault(r, 4096 + 7, 2 * 4096)); /* pages 1..3 */
	int16_t node[20];
	CHECK_EQ_U(demand_page_nodes(r, 0, 20, node), 3);
	CHECK(node[0] == -1 && node[1] == 1 && node[2] == 1 && node[3] == 1 && node[4] == -1 && node[19] == -1);
	((volatile uint32_t *)(uintptr_t)r->base)[1024 * 2] = 77;
	CHECK(demand_prefault(r, 0, r->size));
	CHECK(all_present(r));
	CHECK_EQ_U(((volatile uint32_t *)(uintptr_t)r->base)[1024 * 2], 77);
	CHECK_EQ_U(demand_page_nodes(r, 0, 16, node), 16);
	CHECK_EQ_U(demand_present_pages(r), 16);
	CHECK(demand_prefault(r, r->size, 4096)); /* an empty range: nothing to do */
	demand_destroy(r);

	r = demand_create_interleaved(8 * 4096, DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, 0x3, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK(demand_prefault(r, 0, r->size) && all_present(r));
	CHECK_EQ_U(demand_page_nodes(r, 0, 8, node), 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ_U(node[i], demand_interleave_node(0x3, (r->base + (uint64_t)i * 4096) >> 21));
	demand_destroy(r);
	CHECK_EQ_U(errors, 0);
}

/* A 2 MiB region is named by who serves it, and a page counts whole only
 * where smaps proves it one 2 MiB mapping: thp=every-other's second page,
 * left to 4 KiB pages and then written in every 4 KiB piece so that
 * mincore shows all 512 present, is not. With huge pages forbidden
 * (thp=off, last: the prctl stays) no page is, and the reason says why. */
TEST(huge_pages_named_and_proven_by_smaps)
{
	const char *why = 0, *how = 0;
	struct demand_region *r = demand_create(4 * 4096, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r && !r->huge_source);
	demand_destroy(r);
	CHECK(thp_set("every-other"));
	r = demand_create(2 * DEMAND_PAGE_2M, DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	if (!r) { /* this machine has no transparent huge pages (the stubs offer no hugetlbfs pages) */
		CHECK(why && strstr(why, "transparent huge pages are off"));
		printf("  (no transparent huge pages here: %s)\n", why);
		return;
	}
	CHECK_STR(r->huge_source, DEMAND_HUGE_THP);
	volatile uint8_t *b = demand_base(r);
	b[0] = 1;
	for (uint64_t o = DEMAND_PAGE_2M; o < 2 * DEMAND_PAGE_2M; o += 4096)
		b[o] = 1;
	bool whole[2];
	uint64_t got = demand_whole_pages(r, 2, whole, &how);
	CHECK(got != DEMAND_WHOLE_UNKNOWN && !whole[1] && got == (uint64_t)whole[0]);
	CHECK(how && strstr(how, "smaps") && strstr(how, "AnonHugePages"));
	demand_destroy(r);

	CHECK(thp_set("off"));
	r = demand_create(2 * DEMAND_PAGE_2M, DEMAND_PAGE_2M, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	CHECK(r != 0);
	if (!r)
		return;
	CHECK_STR(r->huge_source, DEMAND_HUGE_THP);
	b = demand_base(r);
	b[0] = 1;
	b[DEMAND_PAGE_2M] = 1;
	CHECK_EQ_U(demand_whole_pages(r, 2, whole, &how), 0);
	CHECK(!whole[0] && !whole[1]);
	CHECK(how && strstr(how, "PR_SET_THP_DISABLE"));
	demand_destroy(r);
}

int main(void)
{
	RUN(interleaved_region_asks_linux_for_an_interleave);
	RUN(prefault_and_read_back);
	RUN(huge_pages_named_and_proven_by_smaps);
	return check_summary("twin_demand");
}
