/* handoff_pt.c - builds the boot-to-kernel page tables (Intel SDM vol. 3A §4.5); see handoff_pt.h. */
#include "handoff_pt.h"

#define IDX_PML4(v) (((v) >> 39) & 511)
#define IDX_PDPT(v) (((v) >> 30) & 511)
#define IDX_PD(v)   (((v) >> 21) & 511)
#define IDX_PT(v)   (((v) >> 12) & 511)

static uint64_t *pt_of(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & PTE_ADDR_MASK);
}

/* Return the table that entry *e points to, allocating it if absent. */
static uint64_t *pt_next(uint64_t *e, handoff_alloc_fn alloc, void *ctx)
{
	if (!(*e & PTE_PRESENT)) {
		uint64_t p = alloc(ctx);
		if (!p)
			return 0;
		*e = p | PTE_PRESENT | PTE_WRITE;
	}
	return pt_of(*e);
}

uint64_t handoff_pt_pages(uint64_t top, const struct handoff_kernel *k)
{
	uint64_t gib = (top + PAGE_1G - 1) / PAGE_1G;
	uint64_t pdpts = (gib + 511) / 512;
	uint64_t pts = (k->size + PAGE_2M - 1) / PAGE_2M + 1;
	/* PML5 + PML4 + identity PDPTs and PDs + kernel PDPT, PD(s) and PTs */
	return 1 + 1 + pdpts + gib + 2 + 1 + pts;
}

uint64_t handoff_pt_build(uint64_t top, const struct handoff_kernel *k, bool la57,
			  handoff_alloc_fn alloc, void *ctx)
{
	uint64_t pml4_phys = alloc(ctx);
	if (!pml4_phys)
		return 0;
	uint64_t *pml4 = (uint64_t *)(uintptr_t)pml4_phys;

	for (uint64_t a = 0; a < top; a += PAGE_2M) {
		uint64_t *pdpt = pt_next(&pml4[IDX_PML4(a)], alloc, ctx);
		if (!pdpt)
			return 0;
		uint64_t *pd = pt_next(&pdpt[IDX_PDPT(a)], alloc, ctx);
		if (!pd)
			return 0;
		pd[IDX_PD(a)] = a | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
	}
	for (uint64_t off = 0; off < k->size; off += PAGE_4K) {
		uint64_t v = k->virt + off;
		uint64_t *pdpt = pt_next(&pml4[IDX_PML4(v)], alloc, ctx);
		if (!pdpt)
			return 0;
		uint64_t *pd = pt_next(&pdpt[IDX_PDPT(v)], alloc, ctx);
		if (!pd)
			return 0;
		uint64_t *pt = pt_next(&pd[IDX_PD(v)], alloc, ctx);
		if (!pt)
			return 0;
		pt[IDX_PT(v)] = (k->phys + off) | PTE_PRESENT | PTE_WRITE;
	}
	if (!la57)
		return pml4_phys;
	uint64_t pml5_phys = alloc(ctx);
	if (!pml5_phys)
		return 0;
	uint64_t *pml5 = (uint64_t *)(uintptr_t)pml5_phys;
	pml5[PML5_LOW_SLOT] = pml4_phys | PTE_PRESENT | PTE_WRITE;
	pml5[PML5_HIGH_SLOT] = pml4_phys | PTE_PRESENT | PTE_WRITE;
	return pml5_phys;
}
