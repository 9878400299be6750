/* test_handoff_pt.c - host tests of boot/handoff_pt.c: the tables a boot path hands to the kernel, walked as the MMU walks them with 4-level and with 5-level paging (CR4.LA57 left on by the firmware). */
#include <stdlib.h>

#include "check.h"
#include "handoff_pt.h"
#include "pagewalk.h"

#define MAX_PAGES 4096
#define KERNEL_VIRT 0xffffffff80000000ull
#define GIB (1ull << 30)

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

/* The identity map and the kernel mapping, with either paging mode. */
static void check_layout(int levels)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x1234000, KERNEL_VIRT, 0x340000 };
	uint64_t top = 6 * GIB;
	uint64_t cr3 = handoff_pt_build(top, &k, levels == 5, pool_alloc, &p);
	CHECK(cr3 != 0);
	CHECK(p.n <= handoff_pt_pages(top, &k));
	static const uint64_t probes[] = { 0, 0x1000, 0x1fffff, 0x200000, 0xfee00000, 4 * GIB + 12345,
					   6 * GIB - 1 };
	for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct pw_result r = pw_walk(cr3, probes[i], levels);
		CHECK(r.mapped && r.phys == probes[i] && r.page_size == (2u << 20) && r.writable);
	}
	CHECK(!pw_walk(cr3, 6 * GIB, levels).mapped); /* nothing past top */
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

/* With LA57 the PML5's slots 0 and 511 lead to the one PML4; no other. */
TEST(pml5_shape)
{
	static struct pool p;
	p.limit = MAX_PAGES;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x10000 };
	uint64_t cr3 = handoff_pt_build(4 * GIB, &k, true, pool_alloc, &p);
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

/* Every allocation can fail: the builder reports it, never a half table. */
TEST(out_of_pages)
{
	static struct pool p;
	struct handoff_kernel k = { 0x400000, KERNEL_VIRT, 0x20000 };
	for (int levels = 4; levels <= 5; levels++) {
		unsigned need;
		p.limit = MAX_PAGES;
		CHECK(handoff_pt_build(2 * GIB, &k, levels == 5, pool_alloc, &p) != 0);
		need = p.n;
		pool_free(&p);
		for (unsigned lim = 0; lim < need; lim++) {
			p.limit = lim;
			CHECK(handoff_pt_build(2 * GIB, &k, levels == 5, pool_alloc, &p) == 0);
			pool_free(&p);
		}
	}
}

int main(void)
{
	RUN(four_levels);
	RUN(five_levels);
	RUN(pml5_shape);
	RUN(out_of_pages);
	return check_summary("handoff_pt");
}
