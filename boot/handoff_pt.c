/* handoff_pt.c - builds the boot-to-kernel page tables (Intel SDM vol. 3A §4.5); see handoff_pt.h. */
#include "handoff_pt.h"

/* ---- Constants ------------------------------------------------------------ */
#define CPUID_EXT_MAX 0x80000000u
#define CPUID_EXT_FEATURES 0x80000001u    /* EDX[26]: Page1GB */
#define CPUID_ADDR 0x80000008u            /* EAX[7:0]: MAXPHYADDR */
#define CPUID_E1_EDX_PAGE1GB (1u << 26)
#define CPUID_ADDR_PHYS_MASK 0xffu
#define PHYS_BITS_DEFAULT 36              /* without leaf 80000008H (Intel SDM vol. 3A §4.1.4) */
#define LOW_TABLES 5                      /* a PDPT and four PDs for the first 4 GiB */
#define KERNEL_TABLES 3                   /* its PDPT and up to two PDs */
#define SWITCH_TABLES 6                   /* the switch code's two pages: a PDPT, a PD and a PT each */

/* ---- Private Functions ---------------------------------------------------- */
static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *d)
{
	uint32_t b, c;
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(b), "=c"(c), "=d"(*d) : "a"(leaf), "c"(0));
}

/* ---- Public Functions ----------------------------------------------------- */
void handoff_pt_cpu(struct handoff_map *m)
{
	uint32_t a, d, bits = PHYS_BITS_DEFAULT;
	m->page_1g = false;
	cpuid(CPUID_EXT_MAX, &a, &d);
	uint32_t max_ext = a;
	if (max_ext >= CPUID_EXT_FEATURES) {
		cpuid(CPUID_EXT_FEATURES, &a, &d);
		m->page_1g = (d & CPUID_E1_EDX_PAGE1GB) != 0;
	}
	if (max_ext >= CPUID_ADDR) {
		cpuid(CPUID_ADDR, &a, &d);
		if ((a & CPUID_ADDR_PHYS_MASK) >= PHYS_BITS_DEFAULT && (a & CPUID_ADDR_PHYS_MASK) < 64)
			bits = a & CPUID_ADDR_PHYS_MASK;
	}
	m->limit = (1ull << bits) < PGT_IDENTITY_LIMIT ? 1ull << bits : PGT_IDENTITY_LIMIT;
}

uint64_t handoff_pt_pages(const struct handoff_kernel *k)
{
	uint64_t pts = (k->size + PAGE_2M - 1) / PAGE_2M + 1;
	/* PML5 + PML4 + the first 4 GiB + the kernel's PDPT, PDs and PTs + RAM above + the switch code */
	return 1 + 1 + LOW_TABLES + KERNEL_TABLES + pts + QB_HANDOFF_PT_BUDGET / PAGE_4K + SWITCH_TABLES;
}

uint64_t handoff_pt_build(const struct handoff_map *m, const struct handoff_kernel *k, bool la57,
			  handoff_alloc_fn alloc, void *ctx, struct pgt_ram *ram)
{
	struct pgtable t;
	struct pgt_ram local;
	uint64_t pml4_phys = alloc(ctx), pml5_phys = la57 ? alloc(ctx) : 0;
	if (!pml4_phys || (la57 && !pml5_phys))
		return 0;
	pgtable_init(&t, pml4_phys, alloc, ctx, 0, m->page_1g ? PAGE_1G : PAGE_2M);
	/* What the kernel needs first; no NX bit anywhere: EFER.NXE may be
	 * clear, and then NX is a reserved bit. */
	if (pgtable_map(&t, 0, 0, HANDOFF_LOW_TOP, PGT_P | PGT_W, PAGE_2M, 0) != PGT_OK ||
	    pgtable_map(&t, k->virt, k->phys, k->size, PGT_P | PGT_W, PAGE_4K, 0) != PGT_OK)
		return 0;
	/* Then the rest of RAM, as far as the budget and the tables go. */
	pgtable_map_ram(&t, m->map, m->n, m->limit, m->limit < PGT_IDENTITY_LIMIT ? PGT_WHY_ADDRESS_WIDTH
			: PGT_WHY_IDENTITY_LIMIT, 0, QB_HANDOFF_PT_BUDGET / PAGE_4K, ram ? ram : &local);
	/* The switch code, where the RAM map left it out: its pages alone. */
	uint64_t sw = k->switch_code & ~(PAGE_4K - 1);
	uint64_t sw_end = (k->switch_code + k->switch_size + PAGE_4K - 1) & ~(PAGE_4K - 1);
	if (k->switch_size && (sw_end <= sw || sw_end > PGT_IDENTITY_LIMIT ||
			       pgtable_map(&t, sw, sw, sw_end - sw, PGT_P | PGT_W, PAGE_4K, 0) != PGT_OK))
		return 0;
	if (!la57)
		return pml4_phys;
	uint64_t *pml5 = (uint64_t *)(uintptr_t)pml5_phys;
	pml5[PML5_LOW_SLOT] = pml4_phys | PGT_P | PGT_W;
	pml5[PML5_HIGH_SLOT] = pml4_phys | PGT_P | PGT_W;
	return pml5_phys;
}
