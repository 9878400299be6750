/* mb2_main.c - the multiboot2 boot path's C half: boot information to struct boot_info, handoff tables, jump (Multiboot2 spec 1.0).
 *
 * Runs in 64-bit mode on the early 4 GiB identity map (mb2_entry.S). It
 * does what boot/efi_main.c does with firmware services, by hand: the memory
 * map and RSDP come from the tags, and this image, the page tables and the
 * trampoline page are marked BOOT_MEM_LOADER in the map it hands over. */
#include "boot_info.h"
#include "handoff_pt.h"
#include "kernel_image.h"
#include "lib.h"
#include "mb2.h"
#include "mb2_boot.h"
#include "mb2_mem.h"
#include "mb2_smbios.h"
#include "mmap.h"

/* ---- Constants ------------------------------------------------------------ */

#define LOW_MEM_END 0x100000ull           /* the trampoline page must sit below 1 MiB */
#define TRAMP_LOWEST 0x1000ull            /* never page 0 (real-mode IVT) */
#define EARLY_MAP_END 0x100000000ull      /* the early tables reach 4 GiB */
#define MB2_INFO_MAX (1u << 20)           /* more boot information than this is not believed */
#define LOADER_SPANS 4                    /* this image, the page tables, the trampoline page, the SMBIOS copy */
#define PAGING5_WORD "paging=5"           /* kernel/run/options.h: enter the kernel with 5-level paging */
#define CPUID_LEAF_EXT_FEATURES7 7        /* Intel SDM vol. 2A CPUID leaf 07H, subleaf 0 */
#define CPUID_7_ECX_LA57 (1u << 16)       /* 57-bit linear addresses, 5-level paging */

/* ---- Private Variables ---------------------------------------------------- */

static struct boot_info bi;
static struct boot_mem_range raw[QB_MAX_MEM_RANGES + LOADER_SPANS];
static struct mb2_found found;            /* also holds the RSDP copy the kernel reads */

/* ---- Private Functions ---------------------------------------------------- */

static inline void mb2_outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t mb2_inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* COM1 as GRUB left it (serial --speed=115200 in our grub.cfg). */
static void mb2_serial(const char *s)
{
	for (; *s; s++) {
		uint64_t t0 = __builtin_ia32_rdtsc();
		while (!(mb2_inb(MB2_COM1 + MB2_UART_LSR) & MB2_LSR_THR_EMPTY) &&
		       __builtin_ia32_rdtsc() - t0 < MB2_TX_WAIT_TICKS)
			__asm__ volatile("pause");
		mb2_outb(MB2_COM1 + MB2_UART_THR, (uint8_t)*s);
	}
}

static void mb2_hex(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < 16; i++)
		buf[2 + i] = digits[(v >> (60 - 4 * i)) & 0xf];
	buf[18] = 0;
}

/* Stop with a message on serial and on the VGA text screen (harmless in graphics modes). */
static __attribute__((noreturn)) void mb2_fail(const char *what, const char *detail)
{
	static const char *const parts[] = { "quietbench: multiboot2 boot failed: ", 0, ": ", 0, "\r\n" };
	const char *msg[5] = { parts[0], what, parts[2], detail, parts[4] };
	volatile uint16_t *vga = (volatile uint16_t *)(uintptr_t)MB2_VGA_TEXT;
	unsigned cell = 0;
	for (int p = 0; p < 5; p++) {
		mb2_serial(msg[p]);
		for (const char *c = msg[p]; *c && cell < MB2_VGA_CELLS; c++)
			if (*c >= ' ')
				vga[cell++] = (uint16_t)(MB2_VGA_ATTR << 8 | (uint8_t)*c);
	}
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* handoff_alloc_fn over the pages mb2_mem_find() reserved. */
struct mb2_pool {
	uint64_t next, end;
};

static uint64_t mb2_alloc_page(void *ctx)
{
	struct mb2_pool *p = ctx;
	if (p->next >= p->end)
		return 0;
	uint64_t a = p->next;
	p->next += MB2_MEM_PAGE;
	memset((void *)(uintptr_t)a, 0, MB2_MEM_PAGE);
	return a;
}

static void mb2_append(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);
	while (*s && n + 1 < cap)
		dst[n++] = *s++;
	dst[n] = 0;
}

/* True if the command line holds the word w. */
static bool mb2_has_word(const char *cmdline, const char *w)
{
	size_t n = strlen(w);
	for (const char *s = cmdline; *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *e = s;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if ((size_t)(e - s) == n && !memcmp(s, w, n))
			return true;
		s = e;
	}
	return false;
}

/* paging=5 and a CPU with LA57: enter the kernel with 5-level paging. */
static bool mb2_want_la57(void)
{
	if (!mb2_has_word(bi.cmdline, PAGING5_WORD))
		return false;
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (a >= CPUID_LEAF_EXT_FEATURES7) {
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_EXT_FEATURES7), "c"(0));
		if (c & CPUID_7_ECX_LA57)
			return true;
	}
	mb2_serial("quietbench: paging=5: this CPU has no 5-level paging; entering with 4 levels\r\n");
	return false;
}

/* ---- Public Functions ----------------------------------------------------- */

void mb2_main(uint32_t magic, uint32_t info_phys, uint64_t entry_tsc)
{
	if (magic != MB2_BOOT_MAGIC)
		mb2_fail("not started by a multiboot2 loader", "EAX holds no multiboot2 magic");
	const void *info = (const void *)(uintptr_t)info_phys;
	uint32_t total = *(const volatile uint32_t *)info;

	found.raw = raw;
	found.raw_cap = QB_MAX_MEM_RANGES;
	int st = mb2_parse(info, total < MB2_INFO_MAX ? total : MB2_INFO_MAX, &bi, &found);
	if (st != MB2_OK)
		mb2_fail("boot information", mb2_status_name(st));

	/* The kernel runs in place; its bss was reserved and zeroed behind it. */
	const struct kernel_image_header *kh = (const void *)mb2_kernel_start;
	uint64_t file = (uint64_t)(mb2_kernel_file_end - mb2_kernel_start);
	uint64_t room = (uint64_t)(mb2_kernel_end - mb2_kernel_start);
	if (kh->magic != KERNEL_IMAGE_MAGIC || kh->file_size != file || kh->mem_size > room ||
	    kh->mem_size & (MB2_MEM_PAGE - 1))
		mb2_fail("kernel image", "bad header, or it does not match the room linked for it");

	struct mmap_stats ms;
	uint32_t n = mmap_normalise(raw, found.raw_count, bi.mmap, QB_MAX_MEM_RANGES, &ms);
	bi.mmap_dropped = ms.dropped + found.raw_dropped;
	bi.mmap_fixups = ms.overlaps + ms.unaligned + ms.wrapped;

	/* Free RAM for our own pages: not this image, not GRUB's boot information. */
	struct mb2_span busy[LOADER_SPANS] = {
		{ (uint64_t)(uintptr_t)mb2_image_start, (uint64_t)(uintptr_t)mb2_image_end },
		{ info_phys, (uint64_t)info_phys + total },
		{ 0, 0 },
	};
	uint64_t tramp = mb2_mem_find_high_page(bi.mmap, n, TRAMP_LOWEST, LOW_MEM_END, busy, 2);
	busy[2].base = tramp;
	busy[2].end = tramp ? tramp + MB2_MEM_PAGE : 0;

	struct handoff_map hm = { bi.mmap, n, 0, false };
	handoff_pt_cpu(&hm);
	/* This image, its switch code included, lies below 4 GiB (a 32-bit entry): mapped anyway. */
	struct handoff_kernel hk = { (uint64_t)(uintptr_t)mb2_kernel_start, kh->link_base, kh->mem_size, 0, 0 };
	uint64_t pt_bytes = handoff_pt_pages(&hk) * MB2_MEM_PAGE;
	uint64_t pt = mb2_mem_find(bi.mmap, n, pt_bytes, LOW_MEM_END, EARLY_MAP_END, busy, LOADER_SPANS);
	if (!pt)
		mb2_fail("page tables", "no free RAM below 4 GiB for them");
	struct mb2_pool pool = { pt, pt + pt_bytes };
	struct mb2_span keep[LOADER_SPANS] = { busy[0], busy[1], busy[2], { pt, pt + pt_bytes } };
	struct mb2_span smbios = mb2_smbios_copy(&bi, bi.mmap, n, keep, LOADER_SPANS); /* the BIOS area scanned, the table copied */
	bool la57 = mb2_want_la57();
	uint64_t pt0 = __builtin_ia32_rdtsc();
	uint64_t cr3 = handoff_pt_build(&hm, &hk, la57, mb2_alloc_page, &pool, 0);
	bi.handoff_pt_ticks = __builtin_ia32_rdtsc() - pt0;
	if (!cr3)
		mb2_fail("page tables", "ran out of the pages reserved for them");

	/* The map the kernel sees: our pages are the loader's, like EfiLoaderData. */
	struct mb2_span loader[LOADER_SPANS] = { busy[0], { pt, pool.next }, busy[2], smbios };
	uint32_t k = mb2_mem_with_loader(bi.mmap, n, loader, LOADER_SPANS, raw, QB_MAX_MEM_RANGES + LOADER_SPANS);
	bi.mmap_count = mmap_normalise(raw, k, bi.mmap, QB_MAX_MEM_RANGES, &ms);
	bi.mmap_dropped += ms.dropped;

	bi.magic = BOOT_INFO_MAGIC;
	bi.version = BOOT_INFO_VERSION;
	bi.loader = BOOT_LOADER_MULTIBOOT2;
	bi.entry_tsc = entry_tsc;
	bi.kernel_phys = (uint64_t)(uintptr_t)mb2_kernel_start;
	bi.kernel_size = kh->mem_size;
	bi.stack_phys = (uint64_t)(uintptr_t)mb2_stack;
	bi.stack_size = MB2_STACK_SIZE;
	bi.trampoline_phys = tramp;
	bi.loader_bytes = (busy[0].end - busy[0].base) + (pool.next - pt) + (tramp ? MB2_MEM_PAGE : 0) +
			  (smbios.end - smbios.base);
	if (found.rsdp_len)
		bi.rsdp_phys = (uint64_t)(uintptr_t)found.rsdp;
	bi.fw_vendor[0] = 0;
	mb2_append(bi.fw_vendor, sizeof(bi.fw_vendor), found.efi_systab ? "UEFI via " : "BIOS via ");
	mb2_append(bi.fw_vendor, sizeof(bi.fw_vendor), found.loader_name[0] ? found.loader_name : "a multiboot2 loader");

	char hex[19];
	mb2_hex(hex, bi.kernel_phys);
	mb2_serial("quietbench: multiboot2 boot path: kernel at ");
	mb2_serial(hex);
	mb2_serial(la57 ? ", leaving for the kernel with 5-level paging\r\n" : ", leaving for the kernel\r\n");
	if (la57)
		mb2_handoff_la57(cr3, bi.stack_phys + MB2_STACK_SIZE, kh->entry, &bi);
	mb2_handoff(cr3, bi.stack_phys + MB2_STACK_SIZE, kh->entry, &bi);
}
