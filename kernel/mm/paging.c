/* paging.c - builds and extends the kernel's 4-level page tables (Intel SDM vol. 3A §4.5) over pgtable.c; see paging.h. */
#include "paging.h"
#include "memtype.h"
#include "console.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"
#include "pgtable.h"
#include "pmm.h"

/* ---- Constants ------------------------------------------------------------ */
#define PAGE PGT_4K
#define BELOW_4G 0x100000000ull
#define PML4_KERNEL_SLOT 511     /* the image at 0xffffffff80000000 */
#define PML4_IDENTITY_SLOTS 256  /* the low half, VA = PA: RAM and MMIO up to 2^47 */
#define CPUID_ADDR_EAX_PHYS CPUID_MASK(7, 0) /* CPUID 80000008H EAX[7:0]: MAXPHYADDR */
#define PHYS_BITS_DEFAULT 36     /* without leaf 80000008H (Intel SDM vol. 3A §4.1.4) */
#define PML5_LOW_SLOT 0          /* 5-level paging: VA bits 56:48 = 0 */
#define PML5_HIGH_SLOT 511       /* and all ones: both lead to the one PML4 */
#define MIB_SHIFT 20
#define GIB (1ull << 30)

/* ---- Private Variables ---------------------------------------------------- */
static struct pgtable pt;
static uint64_t *pml5;           /* only with 5-level paging (CR4.LA57 at entry) */
static uint64_t nx_bit;          /* PGT_NX if the CPU supports it, else 0 */
static uint64_t mmio_top = 1ull << PHYS_BITS_DEFAULT; /* device registers below this can be mapped */
static uint32_t phys_bits = PHYS_BITS_DEFAULT;
static bool has_1g;              /* CPUID.80000001H:EDX[26] Page1GB */
static bool own_tables;          /* CR3 holds our tables: a new table may lie anywhere in RAM */
static struct pgt_ram ram = { .end = ~0ull };
static uint64_t image_pages, setup_ticks;
static uint64_t tlb_gen;                    /* bumped at each split of a 1 GiB page */
static uint64_t tlb_seen[QB_MAX_CPUS];      /* per CPU: the generation its TLB has caught up with */

/* Section bounds from linker.ld. */
extern char __kernel_start[], __text_start[], __text_end[], __rodata_start[], __rodata_end[],
	__kernel_end[];

/* ---- Private Functions ---------------------------------------------------- */
/* pgt_alloc_fn: until CR3 is ours, a table must be reachable through the boot
 * path's tables, which map the first 4 GiB whole; after, any RAM the
 * allocator has is mapped. */
static uint64_t table_page(void *ctx)
{
	(void)ctx;
	uint64_t p = pmm_alloc(1, PMM_ANY_NODE, PAGE, own_tables ? 0 : BELOW_4G, PMM_KERNEL);
	if (p)
		memset((void *)(uintptr_t)p, 0, PAGE);
	return p;
}

/* A page below 4 GiB for a top-level table (the trampoline loads CR3 in 32 bits). */
static uint64_t low_table_page(void)
{
	uint64_t p = pmm_alloc(1, PMM_ANY_NODE, PAGE, BELOW_4G, PMM_KERNEL);
	if (p)
		memset((void *)(uintptr_t)p, 0, PAGE);
	return p;
}

static void read_cpu(void)
{
	struct cpuid_regs r;
	cpuid_raw(CPUID_LEAF_EXT_MAX, 0, &r);
	uint32_t max_ext = r.eax;
	if (max_ext >= CPUID_LEAF_ADDR) {
		cpuid_raw(CPUID_LEAF_ADDR, 0, &r);
		uint32_t bits = CPUID_FIELD(r.eax, CPUID_ADDR_EAX_PHYS);
		if (bits >= PHYS_BITS_DEFAULT && bits < 64)
			phys_bits = bits;
	}
	mmio_top = MIN(1ull << phys_bits, PGT_IDENTITY_LIMIT);
	if (max_ext >= CPUID_LEAF_EXT_FEATURES) {
		cpuid_raw(CPUID_LEAF_EXT_FEATURES, 0, &r);
		if (r.edx & (1u << CPUID_E1_EDX_NX)) {
			wrmsr(MSR_IA32_EFER, rdmsr(MSR_IA32_EFER) | EFER_NXE);
			nx_bit = PGT_NX;
		}
		has_1g = (r.edx & (1u << CPUID_E1_EDX_PAGE1GB)) != 0;
	}
}

/* One error record per reason RAM was left out, with its bytes. */
static void report_left_out(void)
{
	static const char *const code[PGT_WHY_COUNT] = { "address width", "identity limit", "budget", "no memory" };
	char why[160];
	for (int w = 0; w < PGT_WHY_COUNT; w++) {
		if (!ram.left_out[w])
			continue;
		switch (w) {
		case PGT_WHY_ADDRESS_WIDTH:
			fmt_snprintf(why, sizeof(why), "at or above 2^%u, the CPU's physical address width (CPUID 80000008H): "
				     "the memory map is wrong", phys_bits);
			break;
		case PGT_WHY_IDENTITY_LIMIT:
			fmt_snprintf(why, sizeof(why), "at or above 128 TiB (2^47), past what 4-level paging's low half "
				     "identity-maps");
			break;
		case PGT_WHY_BUDGET:
			fmt_snprintf(why, sizeof(why), has_1g ? "its page tables would pass their budget of %llu MiB "
				     "(the memory map is that fragmented)" : "this CPU has no 1 GiB pages (CPUID 80000001H "
				     "EDX[26]) and 2 MiB pages for it would pass the page-table budget of %llu MiB",
				     (unsigned long long)(QB_PT_BUDGET >> MIB_SHIFT));
			break;
		default:
			fmt_snprintf(why, sizeof(why), "no free page below 4 GiB for its page tables");
			break;
		}
		kprintf("error: paging: %llu bytes of RAM from 0x%llx not mapped: %s\n",
			(unsigned long long)ram.left_out[w], (unsigned long long)ram.first[w], why);
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "paging");
		char detail[256];
		fmt_snprintf(detail, sizeof(detail), "%llu bytes of RAM from 0x%llx not mapped: %s",
			     (unsigned long long)ram.left_out[w], (unsigned long long)ram.first[w], why);
		rec_str(r, "detail", detail);
		rec_u64(r, "bytes", ram.left_out[w]);
		rec_hex(r, "from", ram.first[w]);
		rec_str(r, "reason", code[w]);
		rec_u64(r, "cpu", 0);
		console_rec_emit(r);
	}
}

/* The 1 GiB pages over [base, base + bytes) become 2 MiB pages, as the
 * twin's buffers get (docs/timing.md); false if a table could not be had.
 * Other CPUs drop stale translations at their next job (paging_tlb_sync). */
static bool workload_split(uint64_t base, uint64_t bytes)
{
	bool ok = true;
	if (!pt.leaves[2])
		return true; /* no 1 GiB page left */
	for (uint64_t a = ALIGN_DOWN(base, PGT_1G); a < base + bytes; a += PGT_1G) {
		uint64_t size = 0;
		if (!pgtable_lookup(&pt, a, &size) || size != PGT_1G)
			continue;
		if (pgtable_split(&pt, a, PGT_2M) != PGT_OK) {
			console_error("paging", "no page for a table: workload memory at 0x%llx stays in a 1 GiB page",
				      (unsigned long long)a);
			ok = false;
			continue;
		}
		cpu_invlpg(a); /* this CPU's 1 GiB translation (and its paging-structure caches) */
		__atomic_add_fetch(&tlb_gen, 1, __ATOMIC_RELEASE);
	}
	return ok;
}

/* pmm's workload hook: runs inside pmm_alloc, under its caller's serialisation. */
static void workload_pages(uint64_t base, uint64_t bytes)
{
	(void)workload_split(base, bytes);
}

/* ---- Public Functions ----------------------------------------------------- */
int paging_init(const struct boot_info *bi)
{
	uint64_t t0 = rdtsc();
	pml5 = 0;                /* from nothing (the host tests build several machines) */
	own_tables = false;
	image_pages = 0;
	nx_bit = 0;
	has_1g = false;
	phys_bits = PHYS_BITS_DEFAULT;
	read_cpu();
	uint64_t pml4 = low_table_page();
	if (!pml4) {
		console_error("paging", "no memory below 4 GiB for the PML4");
		return -1;
	}
	pgtable_init(&pt, pml4, table_page, 0, memtype_uniform, has_1g ? PGT_1G : PGT_2M);

	/* RAM, identity-mapped write-back; only firmware runtime code executes. */
	bool width_first = (1ull << phys_bits) < PGT_IDENTITY_LIMIT;
	pgtable_map_ram(&pt, bi->mmap, bi->mmap_count, mmio_top,
			width_first ? PGT_WHY_ADDRESS_WIDTH : PGT_WHY_IDENTITY_LIMIT, nx_bit, QB_PT_BUDGET / PAGE, &ram);
	report_left_out();

	/* The AP trampoline runs from its identity-mapped page: executable,
	 * in a 4 KiB page of its own (a large page over it is split). */
	if (bi->trampoline_phys) {
		enum pgt_status st;
		uint64_t *e = pgtable_entry_4k(&pt, bi->trampoline_phys, &st);
		if (!e) {
			console_error("paging", "cannot map the trampoline page");
			return -1;
		}
		pt.leaves[0] += !(*e & PGT_P);
		*e = bi->trampoline_phys | PGT_P | PGT_W;
	}

	/* The kernel image at its link address: text RX, rodata R, the rest RW+NX. */
	uint64_t kbase = (uint64_t)(uintptr_t)__kernel_start;
	struct { char *start, *end; uint64_t flags; } sect[] = {
		{ __kernel_start, __text_start, PGT_P | nx_bit },
		{ __text_start, __text_end, PGT_P },
		{ __rodata_start, __rodata_end, PGT_P | nx_bit },
		{ __rodata_end, __kernel_end, PGT_P | PGT_W | nx_bit },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(sect); i++) {
		uint64_t off = (uint64_t)(uintptr_t)sect[i].start - kbase;
		uint64_t len = (uint64_t)(sect[i].end - sect[i].start), done = 0;
		if (pgtable_map(&pt, (uint64_t)(uintptr_t)sect[i].start, bi->kernel_phys + off, len, sect[i].flags,
				PGT_4K, &done) != PGT_OK) {
			console_error("paging", "out of memory mapping the kernel");
			return -1;
		}
		image_pages += done / PAGE;
	}

	/* The firmware (or paging=5 on the multiboot2 path) may have left
	 * 5-level paging on, which cannot be turned off in 64-bit mode: put a
	 * PML5 on top whose low and high entries both lead to the PML4, so
	 * every address maps as with 4 levels. */
	if (read_cr4() & CR4_LA57) {
		pml5 = (uint64_t *)(uintptr_t)low_table_page();
		if (!pml5) {
			console_error("paging", "no memory below 4 GiB for the PML5");
			return -1;
		}
		pml5[PML5_LOW_SLOT] = pml4 | PGT_P | PGT_W;
		pml5[PML5_HIGH_SLOT] = pml4 | PGT_P | PGT_W;
	}
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(paging_cr3());
	own_tables = true;
	pmm_set_workload_hook(workload_pages);
	setup_ticks = rdtsc() - t0;
	return 0;
}

uint64_t paging_ram_end(void)
{
	return ram.end;
}

void *paging_map_mmio(uint64_t phys, uint64_t size)
{
	if (size == 0 || phys >= mmio_top || size > mmio_top - phys)
		return 0;
	uint64_t base = ALIGN_DOWN(phys, PAGE);
	uint64_t end = ALIGN_UP(phys + size, PAGE);
	for (uint64_t a = base; a < end; a += PAGE) {
		if (pgtable_lookup(&pt, a, 0))
			continue; /* mapped already (RAM, or an earlier mapping): left as it is */
		enum pgt_status st;
		uint64_t *e = pgtable_entry_4k(&pt, a, &st);
		if (!e)
			return 0;
		*e = a | PGT_P | PGT_W | PGT_PCD | PGT_PWT | nx_bit;
		pt.leaves[0]++;
		cpu_invlpg(a);
	}
	return (void *)(uintptr_t)phys;
}

bool paging_is_mapped(uint64_t phys, uint64_t len)
{
	uint64_t end = phys + len;
	for (uint64_t a = ALIGN_DOWN(phys, PAGE); a < end;) {
		uint64_t size = PAGE;
		if (!pt.pml4 || !pgtable_lookup(&pt, a, &size))
			return false;
		a = ALIGN_DOWN(a, size) + size;
	}
	return true;
}

uint64_t paging_page_size(uint64_t phys)
{
	uint64_t size = 0;
	return pt.pml4 && pgtable_lookup(&pt, phys, &size) ? size : 0;
}

/* pmm.h's pointer lookup on bare metal: a walk of the live tables, so the
 * kernel image's static data (mapped at its link address), the identity map
 * and demand regions all resolve. */
int pmm_node_of_ptr(const void *p)
{
	uint64_t va = (uint64_t)(uintptr_t)p, size = 0;
	uint64_t e = pt.pml4 ? pgtable_lookup(&pt, va, &size) : 0;
	if (!(e & PGT_P) || !size)
		return -1;
	return pmm_node_of((e & PGT_ADDR & ~(size - 1)) + (va & (size - 1)));
}

bool paging_set_pml4(unsigned slot, uint64_t entry)
{
	if (!pt.pml4 || slot < PML4_IDENTITY_SLOTS || slot >= PML4_KERNEL_SLOT ||
	    (entry && (pt.pml4[slot] & PGT_P)))
		return false;
	pt.pml4[slot] = entry;
	return true;
}

uint64_t paging_nx_bit(void)
{
	return nx_bit;
}

uint64_t paging_cr3(void)
{
	return (uint64_t)(uintptr_t)(pml5 ? pml5 : pt.pml4);
}

int paging_levels(void)
{
	return pml5 ? 5 : 4;
}

uint64_t paging_table_bytes(void)
{
	return (pt.tables + (pml5 != 0)) * PAGE;
}

uint64_t paging_mmio_top(void)
{
	return mmio_top;
}

uint64_t paging_unmapped_ram(void)
{
	return pgtable_left_out(&ram);
}

const char *paging_unmapped_text(char *buf, size_t cap)
{
	uint64_t b = paging_unmapped_ram();
	if (!b)
		fmt_snprintf(buf, cap, "%s", "");
	else if (b >= GIB && !(b & (GIB - 1)))
		fmt_snprintf(buf, cap, "%llu GiB", (unsigned long long)(b / GIB));
	else if (b >= GIB)
		fmt_snprintf(buf, cap, "%.1f GiB", (double)b / (double)GIB);
	else
		fmt_snprintf(buf, cap, "%llu MiB", (unsigned long long)(b >> MIB_SHIFT));
	return buf;
}

uint64_t paging_setup_ticks(void)
{
	return setup_ticks;
}

void paging_tlb_sync(uint32_t cpu)
{
	uint64_t g = __atomic_load_n(&tlb_gen, __ATOMIC_ACQUIRE);
	if (cpu >= QB_MAX_CPUS || tlb_seen[cpu] == g)
		return;
	tlb_seen[cpu] = g;
	write_cr3(read_cr3()); /* drops every translation: none of ours is global */
}

void paging_say(uint64_t setup_us)
{
	kprintf("paging: %llu MiB of RAM identity-mapped in %llu 1 GiB, %llu 2 MiB and %llu 4 KiB pages, "
		"%llu KiB of tables, built in %llu us\n", (unsigned long long)(ram.mapped >> MIB_SHIFT),
		(unsigned long long)pt.leaves[2], (unsigned long long)pt.leaves[1],
		(unsigned long long)(pt.leaves[0] - MIN(image_pages, pt.leaves[0])),
		(unsigned long long)(paging_table_bytes() >> 10), (unsigned long long)setup_us);
	if (paging_unmapped_ram())
		kprintf("paging: %llu MiB of RAM NOT MAPPED: not used, not measured (the paging error records say why)\n",
			(unsigned long long)(paging_unmapped_ram() >> MIB_SHIFT));
}

void paging_report(struct rec *r)
{
	rec_u64(r, "phys_bits", phys_bits);
	rec_bool(r, "page_1g", has_1g);
	rec_u64(r, "mapped_ram_bytes", ram.mapped);
	rec_u64(r, "identity_pages_1g", pt.leaves[2]);
	rec_u64(r, "identity_pages_2m", pt.leaves[1]);
	rec_u64(r, "identity_pages_4k", pt.leaves[0] - MIN(image_pages, pt.leaves[0]));
	rec_u64(r, "page_table_budget_bytes", QB_PT_BUDGET);
}

int paging_map_ram(uint64_t phys, uint64_t len)
{
	uint64_t base = ALIGN_DOWN(phys, PAGE), end = ALIGN_UP(phys + len, PAGE);
	if (!pt.pml4 || !len || end <= base || end > mmio_top)
		return -1;
	/* As RAM: write-back, in 2 MiB pages where alignment allows; what is
	 * there stays, but as workload memory never in a 1 GiB page
	 * (specific-purpose RAM is in the boot map, mapped with the rest). */
	if (!paging_is_mapped(base, end - base) &&
	    pgtable_map(&pt, base, base, end - base, PGT_P | PGT_W | nx_bit, PGT_2M, 0) != PGT_OK)
		return -1;
	return workload_split(base, end - base) ? 0 : -1;
}
