/* paging.c - builds and extends the kernel's 4-level page tables (Intel SDM vol. 3A §4.5); see paging.h. */
#include "paging.h"
#include "memtype.h"
#include "console.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "lib.h"
#include "msr.h"
#include "pmm.h"

/* ---- Constants: entry bits, Intel SDM vol. 3A §4.5 Tables 4-15..4-20 ------ */
#define PTE_P (1ull << 0)
#define PTE_W (1ull << 1)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)      /* with PWT: PAT entry 3, UC in the power-on PAT */
#define PTE_PS (1ull << 7)       /* 2 MiB page in a PD entry */
#define PTE_G (1ull << 8)
#define PTE_NX (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

#define PAGE 0x1000ull
#define LARGE 0x200000ull
#define BELOW_4G 0x100000000ull
#define PML4_SHIFT 39
#define PML4_KERNEL_SLOT 511     /* the image at 0xffffffff80000000 */
#define PML4_IDENTITY_SLOTS 256  /* the low half, VA = PA: RAM up to QB_MAX_PHYS, MMIO up to 2^47 */
#define IDENTITY_LIMIT (1ull << 47)
#define CPUID_ADDR_EAX_PHYS CPUID_MASK(7, 0) /* CPUID 80000008H EAX[7:0]: MAXPHYADDR */
#define PHYS_BITS_DEFAULT 36     /* without leaf 80000008H (Intel SDM vol. 3A §4.1.4) */
#define PML5_LOW_SLOT 0          /* 5-level paging: VA bits 56:48 = 0 */
#define PML5_HIGH_SLOT 511       /* and all ones: both lead to the one PML4 */

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t *pml4;
static uint64_t *pml5;           /* only with 5-level paging (CR4.LA57 at entry) */
static uint64_t nx_bit;          /* PTE_NX if the CPU supports it, else 0 */
static uint64_t table_pages;
static uint64_t mmio_top = 1ull << PHYS_BITS_DEFAULT; /* device registers below this can be mapped */
static uint64_t unmapped_ram;

/* Section bounds from linker.ld. */
extern char __kernel_start[], __text_start[], __text_end[], __rodata_start[], __rodata_end[],
	__kernel_end[];

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t *new_table(void)
{
	uint64_t p = pmm_alloc(1, PMM_ANY_NODE, PAGE, BELOW_4G, PMM_KERNEL);
	if (!p)
		return 0;
	memset((void *)(uintptr_t)p, 0, PAGE);
	table_pages++;
	return (uint64_t *)(uintptr_t)p;
}

/* The table entry e points to, created if absent; NULL if a large page is in the way or memory ran out. */
static uint64_t *next_level(uint64_t *e)
{
	if (*e & PTE_P) {
		if (*e & PTE_PS)
			return 0;
		return (uint64_t *)(uintptr_t)(*e & PTE_ADDR);
	}
	uint64_t *t = new_table();
	if (!t)
		return 0;
	*e = (uint64_t)(uintptr_t)t | PTE_P | PTE_W; /* permissions are set at the leaves */
	return t;
}

/* Entry for va at the PD level (2 MiB) or PT level (4 KiB). */
static uint64_t *walk(uint64_t va, bool large, bool *blocked)
{
	uint64_t *pdpt = next_level(&pml4[(va >> 39) & 511]);
	uint64_t *pd = pdpt ? next_level(&pdpt[(va >> 30) & 511]) : 0;
	if (!pd) {
		*blocked = true;
		return 0;
	}
	uint64_t *pde = &pd[(va >> 21) & 511];
	if (large)
		return pde;
	if ((*pde & (PTE_P | PTE_PS)) == (PTE_P | PTE_PS)) {
		*blocked = true; /* already covered by a 2 MiB page */
		return 0;
	}
	uint64_t *pt = next_level(pde);
	if (!pt) {
		*blocked = true;
		return 0;
	}
	return &pt[(va >> 12) & 511];
}

/* Map [pa, pa+len) at va with flags, 2 MiB pages where both ends allow. */
static int map_range(uint64_t va, uint64_t pa, uint64_t len, uint64_t flags, bool allow_large)
{
	uint64_t end = pa + len;
	while (pa < end) {
		bool blocked = false;
		/* A 2 MiB page never spans two memory types (SDM §12.11.9: the
		 * processor may then use any of them, or UC). */
		bool large = allow_large && !(pa & (LARGE - 1)) && !(va & (LARGE - 1)) && end - pa >= LARGE &&
			     memtype_uniform(pa, LARGE);
		uint64_t *e = walk(va, large, &blocked);
		if (!e) {
			if (!blocked)
				return -1;
			uint64_t step = large ? LARGE : PAGE;
			pa += step;
			va += step;
			continue;
		}
		if (large && (*e & PTE_P) && !(*e & PTE_PS)) {
			/* A 4 KiB table exists here already: fill it instead. */
			large = false;
			e = walk(va, false, &blocked);
			if (!e)
				return -1;
		}
		if (!(*e & PTE_P))
			*e = pa | flags | (large ? PTE_PS : 0);
		uint64_t step = large ? LARGE : PAGE;
		pa += step;
		va += step;
	}
	return 0;
}

static bool is_ram(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
	case BOOT_MEM_LOADER:
	case BOOT_MEM_ACPI_RECLAIM:
	case BOOT_MEM_ACPI_NVS:
	case BOOT_MEM_FW_CODE:
	case BOOT_MEM_FW_DATA:
		return true;
	default:
		return false;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
int paging_init(const struct boot_info *bi)
{
	struct cpuid_regs r;
	cpuid_raw(CPUID_LEAF_EXT_MAX, 0, &r);
	uint32_t max_ext = r.eax;
	if (max_ext >= CPUID_LEAF_ADDR) {
		cpuid_raw(CPUID_LEAF_ADDR, 0, &r);
		uint32_t bits = CPUID_FIELD(r.eax, CPUID_ADDR_EAX_PHYS);
		if (bits >= PHYS_BITS_DEFAULT && bits < 64)
			mmio_top = MIN(1ull << bits, IDENTITY_LIMIT);
	}
	if (max_ext >= CPUID_LEAF_EXT_FEATURES) {
		cpuid_raw(CPUID_LEAF_EXT_FEATURES, 0, &r);
		if (r.edx & (1u << CPUID_E1_EDX_NX)) {
			wrmsr(MSR_IA32_EFER, rdmsr(MSR_IA32_EFER) | EFER_NXE);
			nx_bit = PTE_NX;
		}
	}
	pml4 = new_table();
	if (!pml4) {
		console_error("paging", "no memory below 4 GiB for the PML4");
		return -1;
	}

	/* RAM, identity-mapped write-back; only firmware runtime code executes. */
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_range *m = &bi->mmap[i];
		if (!is_ram(m->type))
			continue;
		uint64_t base = m->base, len = m->length;
		if (base >= QB_MAX_PHYS) {
			unmapped_ram += len;
			continue;
		}
		if (base + len > QB_MAX_PHYS) {
			unmapped_ram += base + len - QB_MAX_PHYS;
			len = QB_MAX_PHYS - base;
		}
		uint64_t flags = PTE_P | PTE_W | (m->type == BOOT_MEM_FW_CODE ? 0 : nx_bit);
		if (map_range(base, base, len, flags, true)) {
			console_error("paging", "out of memory mapping RAM at 0x%llx", (unsigned long long)base);
			return -1;
		}
	}
	if (unmapped_ram)
		console_error("paging", "%llu bytes of RAM above the %llu GiB mapping limit are not used",
			      (unsigned long long)unmapped_ram, (unsigned long long)(QB_MAX_PHYS >> 30));

	/* The AP trampoline runs from its identity-mapped page: executable. */
	if (bi->trampoline_phys) {
		bool blocked = false;
		uint64_t *e = walk(bi->trampoline_phys, false, &blocked);
		if (!e) {
			console_error("paging", "cannot map the trampoline page");
			return -1;
		}
		*e = bi->trampoline_phys | PTE_P | PTE_W;
	}

	/* The kernel image at its link address: text RX, rodata R, the rest RW+NX. */
	uint64_t kbase = (uint64_t)(uintptr_t)__kernel_start;
	struct { char *start, *end; uint64_t flags; } sect[] = {
		{ __kernel_start, __text_start, PTE_P | nx_bit },
		{ __text_start, __text_end, PTE_P },
		{ __rodata_start, __rodata_end, PTE_P | nx_bit },
		{ __rodata_end, __kernel_end, PTE_P | PTE_W | nx_bit },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(sect); i++) {
		uint64_t off = (uint64_t)(uintptr_t)sect[i].start - kbase;
		uint64_t len = (uint64_t)(sect[i].end - sect[i].start);
		if (map_range((uint64_t)(uintptr_t)sect[i].start, bi->kernel_phys + off, len,
			      sect[i].flags, false)) {
			console_error("paging", "out of memory mapping the kernel");
			return -1;
		}
	}

	/* The firmware (or paging=5 on the multiboot2 path) may have left
	 * 5-level paging on, which cannot be turned off in 64-bit mode: put a
	 * PML5 on top whose low and high entries both lead to the PML4, so
	 * every address maps as with 4 levels. */
	if (read_cr4() & CR4_LA57) {
		pml5 = new_table();
		if (!pml5) {
			console_error("paging", "no memory below 4 GiB for the PML5");
			return -1;
		}
		pml5[PML5_LOW_SLOT] = (uint64_t)(uintptr_t)pml4 | PTE_P | PTE_W;
		pml5[PML5_HIGH_SLOT] = (uint64_t)(uintptr_t)pml4 | PTE_P | PTE_W;
	}
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(paging_cr3());
	return 0;
}

void *paging_map_mmio(uint64_t phys, uint64_t size)
{
	if (size == 0 || phys >= mmio_top || size > mmio_top - phys)
		return 0;
	uint64_t base = ALIGN_DOWN(phys, PAGE);
	uint64_t end = ALIGN_UP(phys + size, PAGE);
	for (uint64_t a = base; a < end; a += PAGE) {
		bool blocked = false;
		uint64_t *e = walk(a, false, &blocked);
		if (!e) {
			if (blocked && paging_is_mapped(a, PAGE))
				continue;
			return 0;
		}
		if (!(*e & PTE_P)) {
			*e = a | PTE_P | PTE_W | PTE_PCD | PTE_PWT | nx_bit;
			cpu_invlpg(a);
		}
	}
	return (void *)(uintptr_t)phys;
}

bool paging_is_mapped(uint64_t phys, uint64_t len)
{
	uint64_t end = phys + len;
	for (uint64_t a = ALIGN_DOWN(phys, PAGE); a < end; a += PAGE) {
		uint64_t e = pml4[(a >> 39) & 511];
		if (!(e & PTE_P))
			return false;
		e = ((uint64_t *)(uintptr_t)(e & PTE_ADDR))[(a >> 30) & 511];
		if (!(e & PTE_P))
			return false;
		e = ((uint64_t *)(uintptr_t)(e & PTE_ADDR))[(a >> 21) & 511];
		if (!(e & PTE_P))
			return false;
		if (e & PTE_PS)
			continue;
		e = ((uint64_t *)(uintptr_t)(e & PTE_ADDR))[(a >> 12) & 511];
		if (!(e & PTE_P))
			return false;
	}
	return true;
}

bool paging_set_pml4(unsigned slot, uint64_t entry)
{
	if (!pml4 || slot < PML4_IDENTITY_SLOTS || slot >= PML4_KERNEL_SLOT || (entry && (pml4[slot] & PTE_P)))
		return false;
	pml4[slot] = entry;
	return true;
}

uint64_t paging_nx_bit(void)
{
	return nx_bit;
}

uint64_t paging_cr3(void)
{
	return (uint64_t)(uintptr_t)(pml5 ? pml5 : pml4);
}

int paging_levels(void)
{
	return pml5 ? 5 : 4;
}

uint64_t paging_table_bytes(void)
{
	return table_pages * PAGE;
}

uint64_t paging_mmio_top(void)
{
	return mmio_top;
}

uint64_t paging_unmapped_ram(void)
{
	return unmapped_ram;
}

int paging_map_ram(uint64_t phys, uint64_t len)
{
	uint64_t base = ALIGN_DOWN(phys, PAGE), end = ALIGN_UP(phys + len, PAGE);
	if (!pml4 || !len || end <= base || end > mmio_top)
		return -1;
	/* 2 MiB pages where the range allows, as for RAM; pages already there stay. */
	return map_range(base, base, end - base, PTE_P | PTE_W | nx_bit, true);
}
