/* test_paging.c - host tests of kernel/mm/paging.c on machines of 3 and 6 TiB, its tables walked by the software MMU: all RAM in 1 GiB pages, or in 2 MiB pages within QB_PT_BUDGET with the rest reported; the top table below 4 GiB, tables above 4 GiB once CR3 is ours; workload memory (specific-purpose memory lent too) split to 2 MiB pages and every CPU's TLB dropped once. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "check.h"
#include "console.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "memtype.h"
#include "msr.h"
#include "pagewalk.h"
#include "paging.h"
#include "pgtable.h"
#include "pmm.h"
#include "record.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define TIB (1ull << 40)
#define BELOW_4G (4 * GIB)
#define LOW_ARENA (8 * MIB)    /* the allocator's RAM below 4 GiB: the budget fits */
#define HIGH_ARENA (4 * MIB)
#define TRAMPOLINE 0x9e000ull
#define KERNEL_PHYS 0x1000000ull
#define WORK_BASE (2 * TIB)    /* "RAM" the allocator hands to workloads: mapped, never touched */
#define WORK_BYTES (8 * GIB)
#define EDX_NX (1u << 20)
#define EDX_PAGE1GB (1u << 26)

/* ---- The CPU ------------------------------------------------------------------ */
static uint32_t cpu_phys_bits, cpu_e1_edx;
static uint64_t efer, cr0, cr3, cr4;
static unsigned cr3_writes, invlpgs;

void cpuid_raw(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	(void)sub;
	*r = (struct cpuid_regs){ 0 };
	if (leaf == CPUID_LEAF_EXT_MAX)
		r->eax = CPUID_LEAF_ADDR;
	else if (leaf == CPUID_LEAF_EXT_FEATURES)
		r->edx = cpu_e1_edx;
	else if (leaf == CPUID_LEAF_ADDR)
		r->eax = cpu_phys_bits;
}

uint64_t rdmsr(uint32_t msr) { return msr == MSR_IA32_EFER ? efer : 0; }
void wrmsr(uint32_t msr, uint64_t v) { if (msr == MSR_IA32_EFER) efer = v; }
uint64_t read_cr0(void) { return cr0; }
void write_cr0(uint64_t v) { cr0 = v; }
uint64_t read_cr3(void) { return cr3; }
void write_cr3(uint64_t v) { cr3 = v; cr3_writes++; }
uint64_t read_cr4(void) { return cr4; }
void cpu_invlpg(uint64_t va) { (void)va; invlpgs++; }

/* The MTRRs: write-back everywhere. */
bool memtype_uniform(uint64_t base, uint64_t len) { (void)base; (void)len; return true; }

/* The kernel image, as linker.ld lays it out: text, rodata, data, a page each.
 * Aligned to its own 16 KiB size so that, wherever ASLR puts the test, it
 * never straddles a 2 MiB (or larger) boundary: the tables it takes are then
 * always one PDPT, one PD and one PT, as the counts below say. */
__asm__(".data\n.balign 16384\n"
	".globl __kernel_start, __text_start, __text_end, __rodata_start, __rodata_end, __kernel_end\n"
	"__kernel_start:\n__text_start:\n.skip 4096\n__text_end:\n__rodata_start:\n.skip 4096\n"
	"__rodata_end:\n.skip 8192\n__kernel_end:\n.text\n");
extern char __kernel_start[], __text_start[], __rodata_start[], __rodata_end[];

/* ---- The console: error records kept ----------------------------------------- */
static char errs[4][1024];
static unsigned n_errs, n_console_errors;
static struct rec cur;
static char cur_buf[1024];

void kprintf(const char *fmt, ...) { (void)fmt; }
void console_error(const char *what, const char *fmt, ...) { (void)what; (void)fmt; n_console_errors++; }
struct rec *console_rec_open(const char *kind)
{
	rec_begin(&cur, cur_buf, sizeof(cur_buf), kind);
	return &cur;
}
void console_rec_emit(struct rec *r)
{
	const char *line = rec_finish(r, 0);
	if (line && strstr(line, "\"kind\":\"error\"") && n_errs < 4)
		snprintf(errs[n_errs++], sizeof(errs[0]), "%s", line);
}

/* ---- The machine ------------------------------------------------------------- */
static uint8_t *low, *high;
static struct boot_info bi;

/* q35's layout: RAM below 2 GiB with firmware code in it, the PCI hole, the rest from 4 GiB. */
static void machine(uint64_t ram_top, uint32_t phys_bits, bool page_1g, bool la57)
{
	static const struct boot_mem_range below_4g[] = {
		{ 0, 0x9f000, BOOT_MEM_USABLE, 0 },
		{ 0x9f000, 0x61000, BOOT_MEM_RESERVED, 0 },
		{ 0x100000, 0x7f000000 - 0x100000, BOOT_MEM_USABLE, 0 },
		{ 0x7f000000, 4 * MIB, BOOT_MEM_FW_CODE, 0 },
		{ 0x7f400000, 12 * MIB, BOOT_MEM_FW_DATA, 0 },
		{ 0xb0000000, 0x10000000, BOOT_MEM_MMIO, 0 },
	};
	memset(&bi, 0, sizeof(bi));
	memcpy(bi.mmap, below_4g, sizeof(below_4g));
	bi.mmap_count = sizeof(below_4g) / sizeof(below_4g[0]);
	bi.mmap[bi.mmap_count++] = (struct boot_mem_range){ 4 * GIB, ram_top - 4 * GIB, BOOT_MEM_USABLE, 0 };
	bi.trampoline_phys = TRAMPOLINE;
	bi.kernel_phys = KERNEL_PHYS;
	cpu_phys_bits = phys_bits;
	cpu_e1_edx = EDX_NX | (page_1g ? EDX_PAGE1GB : 0);
	efer = cr0 = cr3 = 0;
	cr4 = la57 ? CR4_LA57 : 0;
	cr3_writes = invlpgs = n_errs = n_console_errors = 0;
	/* The allocator: host pages below 4 GiB and above, and the workloads' "RAM" on node 0. */
	if (!low)
		low = mmap(0, LOW_ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (!high)
		high = aligned_alloc(4096, HIGH_ARENA);
	uint64_t l = (uint64_t)(uintptr_t)low, h = (uint64_t)(uintptr_t)high;
	struct pmm_node_range nodes[] = { { l, l + LOW_ARENA, 1 }, { h, h + HIGH_ARENA, 1 },
					  { WORK_BASE, WORK_BASE + WORK_BYTES, 0 } };
	pmm_reset(nodes, 3);
	pmm_add(l, LOW_ARENA);
	pmm_add(h, HIGH_ARENA);
}

static uint64_t ram_bytes(void)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < bi.mmap_count; i++)
		if (bi.mmap[i].type != BOOT_MEM_RESERVED && bi.mmap[i].type != BOOT_MEM_MMIO)
			sum += bi.mmap[i].length;
	return sum;
}

static struct pw_result walk(uint64_t va)
{
	return pw_walk(cr3, va, paging_levels());
}

static bool identity(uint64_t a, uint64_t size, bool nx)
{
	struct pw_result r = walk(a);
	return r.mapped && r.phys == a && r.page_size == size && r.writable && r.nx == nx;
}

/* Every table reachable from t at level (4: a PML4) below limit; counts them. */
static bool tables_below(uint64_t t, int level, uint64_t limit, unsigned *n)
{
	const uint64_t *e = (const uint64_t *)(uintptr_t)t;
	bool ok = t < limit;
	(*n)++;
	for (int i = 0; level > 1 && i < 512; i++)
		if ((e[i] & PW_P) && !(level <= 3 && (e[i] & PW_PS)))
			ok &= tables_below(e[i] & PW_ADDR, level - 1, limit, n);
	return ok;
}

/* The image at its link address, with each section's permissions. */
static void check_kernel(void)
{
	struct pw_result text = walk((uint64_t)(uintptr_t)__text_start + 8);
	struct pw_result ro = walk((uint64_t)(uintptr_t)__rodata_start);
	struct pw_result data = walk((uint64_t)(uintptr_t)__rodata_end + 4096);
	CHECK(text.mapped && !text.nx && !text.writable && text.phys == KERNEL_PHYS + 8);
	CHECK(ro.mapped && ro.nx && !ro.writable && ro.phys == KERNEL_PHYS + 4096);
	CHECK(data.mapped && data.nx && data.writable && data.phys == KERNEL_PHYS + 3 * 4096);
}

/* ---- Tests ------------------------------------------------------------------- */
/* 6 TiB in four nodes' worth of RAM, phys-bits 43: every byte mapped in
 * 1 GiB pages, in a few tables, all below 4 GiB while the boot path's
 * tables were live; the top table too. */
TEST(six_tib_all_mapped_in_1g_pages)
{
	machine(6 * TIB + 2 * GIB, 43, true, false);
	CHECK(paging_init(&bi) == 0);
	CHECK(cr3 == paging_cr3() && cr3 < BELOW_4G && cr3_writes == 1 && paging_levels() == 4);
	CHECK((efer & EFER_NXE) && (cr0 & CR0_WP));
	CHECK_EQ_U(paging_unmapped_ram(), 0);
	CHECK_EQ_U(paging_ram_end(), ~0ull);
	CHECK_EQ_U(n_errs, 0);
	CHECK(identity(4 * GIB, GIB, true) && identity(3 * TIB + 5, GIB, true) && identity(6 * TIB + 2 * GIB - 1, GIB, true));
	CHECK(!walk(6 * TIB + 2 * GIB).mapped && !walk(0xb0000000).mapped && !walk(0xa0000).mapped);
	CHECK(identity(0x100000, 4096, true) && identity(0x200000, 2 * MIB, true));
	CHECK(identity(0x7f000000, 2 * MIB, false));       /* firmware code executes */
	CHECK(identity(0x7f400000, 2 * MIB, true));
	CHECK(identity(TRAMPOLINE, 4096, false) && identity(TRAMPOLINE - 4096, 4096, true));
	check_kernel();
	unsigned n = 0;
	CHECK(tables_below(cr3, 4, BELOW_4G, &n));
	CHECK_EQ_U(n * 4096ull, paging_table_bytes());
	CHECK(((uint64_t)(uintptr_t)__kernel_start >> 39) > 12); /* the image in a PML4 slot of its own (the test is PIE) */
	CHECK_EQ_U(paging_table_bytes(), (1 + 13 + 3 + 3) * 4096ull); /* PML4, 13 PDPTs, PDs and a PT below 2 GiB, the image's three */
	CHECK(!paging_is_mapped(0x100000, 8 * GIB)); /* across the PCI hole */
	CHECK(paging_is_mapped(4 * GIB, 6 * TIB - 2 * GIB) && paging_page_size(5 * TIB) == GIB);
}

/* Once CR3 is ours, tables may lie anywhere: a device's registers get theirs
 * from above 4 GiB; registers inside a RAM page cost nothing. */
TEST(tables_above_4g_after_the_switch)
{
	machine(3 * TIB, 43, true, false);
	CHECK(paging_init(&bi) == 0);
	uint64_t tables = paging_table_bytes();
	CHECK(paging_map_mmio(0xfed00000, 0x2000) == (void *)(uintptr_t)0xfed00000);
	struct pw_result r = walk(0xfed01000);
	CHECK(r.mapped && r.phys == 0xfed01000 && r.page_size == 4096 && r.nx && (r.entry & (PGT_PCD | PGT_PWT)) == (PGT_PCD | PGT_PWT));
	CHECK(paging_table_bytes() == tables + 2 * 4096); /* a PD and a PT for the fourth GiB */
	const uint64_t *pdpt = (const uint64_t *)(uintptr_t)(((const uint64_t *)(uintptr_t)cr3)[0] & PW_ADDR);
	uint64_t pd = pdpt[3] & PW_ADDR, pt = ((const uint64_t *)(uintptr_t)pd)[(0xfed00000 >> 21) & 511] & PW_ADDR;
	CHECK(pd >= BELOW_4G && pt >= BELOW_4G);
	CHECK(paging_map_mmio(4 * GIB + 0x1000, 0x1000) != 0 && paging_table_bytes() == tables + 2 * 4096);
	CHECK(paging_page_size(4 * GIB) == GIB);
	CHECK(!paging_map_mmio(1ull << 43, 4096)); /* past the address width */
}

/* Workload memory leaves its 1 GiB page for 2 MiB pages (as the twin's
 * buffers get), the kernel's does not; each CPU drops its TLB once, at its
 * next job. */
TEST(workload_memory_in_2m_pages)
{
	machine(3 * TIB, 43, true, false);
	CHECK(paging_init(&bi) == 0);
	pmm_add(WORK_BASE, WORK_BYTES);
	uint64_t k = pmm_alloc(1, 0, 4096, 0, PMM_KERNEL);
	CHECK(k == WORK_BASE + WORK_BYTES - 4096 && paging_page_size(k) == GIB);
	uint64_t w = pmm_alloc(1024, 0, 2 * MIB, 0, PMM_WORKLOAD);
	CHECK(w == WORK_BASE + WORK_BYTES - 2 * MIB - 4 * MIB);
	CHECK(identity(w, 2 * MIB, true) && identity(w + 4 * MIB - 1, 2 * MIB, true));
	CHECK(identity(WORK_BASE + WORK_BYTES - GIB - 1, GIB, true)); /* the GiB below: untouched */
	CHECK(identity(k, 2 * MIB, true));                            /* split with it: the same translation */
	CHECK(invlpgs == 1);
	unsigned before = cr3_writes;
	paging_tlb_sync(5);
	paging_tlb_sync(5);
	paging_tlb_sync(0);
	CHECK_EQ_U(cr3_writes, before + 2);
	/* A second allocation in the same GiB: nothing more to split or drop. */
	CHECK(pmm_alloc(1, 0, 4096, 0, PMM_WORKLOAD) != 0);
	paging_tlb_sync(5);
	CHECK_EQ_U(cr3_writes, before + 2);
	CHECK_EQ_U(n_console_errors, 0);
}

/* Specific-purpose memory is in the boot map, so the identity map holds it
 * in 1 GiB pages; lent to a workload (spmem_borrow -> paging_map_ram) it is
 * workload memory and leaves its 1 GiB page for 2 MiB pages, as the
 * allocator's is. */
TEST(specific_purpose_memory_lent_in_2m_pages)
{
	machine(3 * TIB, 43, true, false);
	bi.mmap[bi.mmap_count++] = (struct boot_mem_range){ 3 * TIB, 4 * GIB, BOOT_MEM_SPECIFIC, 0 };
	CHECK(paging_init(&bi) == 0);
	CHECK(identity(3 * TIB + GIB, GIB, true));
	unsigned before = cr3_writes;
	CHECK(paging_map_ram(3 * TIB + GIB + 2 * MIB, 4 * MIB) == 0);
	CHECK(identity(3 * TIB + GIB + 2 * MIB, 2 * MIB, true) && identity(3 * TIB + GIB + 6 * MIB - 1, 2 * MIB, true));
	CHECK_EQ_U(paging_page_size(3 * TIB + GIB + 2 * MIB), 2 * MIB);
	CHECK(identity(3 * TIB, GIB, true) && identity(3 * TIB + 2 * GIB, GIB, true)); /* the GiBs beside: untouched */
	paging_tlb_sync(3);
	CHECK_EQ_U(cr3_writes, before + 1); /* another CPU drops its 1 GiB translation */
	/* Not in the boot map: mapped now, in 2 MiB pages. */
	CHECK(!walk(3 * TIB + 4 * GIB).mapped);
	CHECK(paging_map_ram(3 * TIB + 4 * GIB, 2 * MIB) == 0);
	CHECK(identity(3 * TIB + 4 * GIB, 2 * MIB, true));
	CHECK(paging_map_ram(1ull << 43, 2 * MIB) == -1); /* past the address width */
	CHECK_EQ_U(n_console_errors, 0);
}

/* Without 1 GiB pages: 2 MiB pages from the bottom as far as QB_PT_BUDGET
 * goes (about 1.5 TiB), the rest left out, in one error record that names
 * its bytes, where it starts and why; the allocator gets RAM below the end. */
TEST(without_1g_pages_the_budget_says_what_is_left_out)
{
	machine(3 * TIB, 43, false, false);
	CHECK(paging_init(&bi) == 0);
	uint64_t end = paging_ram_end();
	CHECK(end > 3 * TIB / 2 - 16 * GIB && end <= 3 * TIB / 2 && !(end & (GIB - 1)));
	CHECK_EQ_U(paging_unmapped_ram(), 3 * TIB - end);
	CHECK(identity(end - 1, 2 * MIB, true) && !walk(end).mapped);
	CHECK(paging_table_bytes() <= QB_PT_BUDGET + 16 * 4096);
	CHECK_EQ_U(n_errs, 1);
	char want[128];
	snprintf(want, sizeof(want), "\"bytes\":%llu,\"from\":\"0x%llx\",\"reason\":\"budget\"",
		 (unsigned long long)(3 * TIB - end), (unsigned long long)end);
	CHECK(strstr(errs[0], "\"what\":\"paging\"") && strstr(errs[0], want) && strstr(errs[0], "no 1 GiB pages"));
	unsigned n = 0;
	CHECK(tables_below(cr3, 4, BELOW_4G, &n));
	check_kernel();
	CHECK(identity(TRAMPOLINE, 4096, false));
}

/* RAM past the address width the CPU reports: left out, and said so. */
TEST(address_width_limit_is_reported)
{
	machine(3 * TIB, 40, true, false);
	CHECK(paging_init(&bi) == 0);
	CHECK_EQ_U(paging_ram_end(), TIB);
	CHECK_EQ_U(paging_unmapped_ram(), 2 * TIB);
	CHECK_EQ_U(n_errs, 1);
	CHECK(strstr(errs[0], "\"reason\":\"address width\"") && strstr(errs[0], "2^40"));
	CHECK(identity(TIB - 1, GIB, true) && !walk(TIB).mapped);
	CHECK(ram_bytes() > 3 * TIB - 4 * GIB);
}

/* With LA57 left on, a PML5 below 4 GiB leads to the same tables. */
TEST(five_levels)
{
	machine(3 * TIB, 52, true, true);
	CHECK(paging_init(&bi) == 0);
	CHECK(paging_levels() == 5 && cr3 < BELOW_4G);
	const uint64_t *pml5 = (const uint64_t *)(uintptr_t)cr3;
	CHECK((pml5[0] & PW_ADDR) == (pml5[511] & PW_ADDR) && (pml5[0] & PW_ADDR) < BELOW_4G);
	CHECK(identity(3 * TIB - 1, GIB, true));
	check_kernel();
	CHECK_EQ_U(paging_unmapped_ram(), 0);
}

/* pmm_node_of_ptr: the kernel image's static data (counter's .bss
 * counters) resolves through its link-address mapping to its physical
 * page's node, identity-mapped RAM in a 1 GiB page to its own, and an
 * address nothing maps to -1. */
TEST(the_node_behind_a_pointer)
{
	machine(3 * TIB, 43, true, false);
	CHECK(paging_init(&bi) == 0);
	struct pmm_node_range nodes[] = { { KERNEL_PHYS, KERNEL_PHYS + 16 * MIB, 2 },
					  { WORK_BASE, WORK_BASE + WORK_BYTES, 1 } };
	pmm_set_nodes(nodes, 2);
	CHECK_EQ_U(pmm_node_of_ptr(__rodata_end + 4096 + 8), 2);
	CHECK_EQ_U(pmm_node_of_ptr((const void *)(uintptr_t)(WORK_BASE + 5 * MIB + 3)), 1);
	CHECK(pmm_node_of_ptr((const void *)(uintptr_t)0xffff900000000000ull) == -1);
}

int main(void)
{
	RUN(six_tib_all_mapped_in_1g_pages);
	RUN(tables_above_4g_after_the_switch);
	RUN(workload_memory_in_2m_pages);
	RUN(specific_purpose_memory_lent_in_2m_pages);
	RUN(without_1g_pages_the_budget_says_what_is_left_out);
	RUN(address_width_limit_is_reported);
	RUN(five_levels);
	RUN(the_node_behind_a_pointer);
	pmm_reset(0, 0);
	free(high);
	munmap(low, LOW_ARENA);
	return check_summary("paging");
}
