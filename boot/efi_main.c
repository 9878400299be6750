/* efi_main.c - the UEFI boot path: gathers what the kernel needs, leaves the firmware, jumps (UEFI 2.10).
 *
 * Everything that needs boot services happens before ExitBootServices; after
 * it this file only converts the memory map and jumps. */
#include <efi.h>
#include <efilib.h>

#include "boot_info.h"
#include "cpu.h"
#include "efi_mmap.h"
#include "efi_results.h"
#include "efi_smbios.h"
#include "handoff_pt.h"
#include "kernel_image.h"
#include "mmap.h"

/* ---- Constants ------------------------------------------------------------ */

#define BOOT_STACK_SIZE (64 * 1024)
#define LOW_MEM_LIMIT 0xFFFFFull          /* the trampoline page must sit below 1 MiB */
#define BELOW_4G (HANDOFF_LOW_TOP - 1)    /* the kernel's pages: the handoff tables map the first 4 GiB whole */
#define EXIT_TRIES 8                      /* ExitBootServices attempts before giving up */
#define MMAP_SLACK_DESCS 32               /* room for the map to grow between calls */

/* The kernel's flat image, linked in by boot/kernel_blob.S. */
extern const uint8_t kernel_blob_start[], kernel_blob_end[];

/* Switches to the kernel's tables and stack and jumps (boot/efi_handoff.S):
 * [efi_handoff, efi_handoff_end) runs under both tables. */
void efi_handoff(uint64_t cr3, uint64_t stack_top, uint64_t entry, struct boot_info *bi)
	__attribute__((noreturn));
extern const char efi_handoff_end[];

static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static EFI_GUID acpi10_guid = ACPI_TABLE_GUID;
static EFI_GUID gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
static EFI_GUID loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;

/* ---- Private Functions ---------------------------------------------------- */

static EFI_SYSTEM_TABLE *st;

static void say(const CHAR16 *msg)
{
	st->ConOut->OutputString(st->ConOut, (CHAR16 *)msg);
}

static void fail(const CHAR16 *what, EFI_STATUS status)
{
	say(L"quietbench: boot failed: ");
	say(what);
	Print(L" (status %r)\r\n", status);
}

static uint64_t alloc_pages(EFI_ALLOCATE_TYPE how, uint64_t max_or_addr, uint64_t pages)
{
	EFI_PHYSICAL_ADDRESS a = max_or_addr;
	EFI_STATUS s = st->BootServices->AllocatePages(how, EfiLoaderData, pages, &a);
	if (EFI_ERROR(s))
		return 0;
	st->BootServices->SetMem((void *)(uintptr_t)a, pages * EFI_PAGE_SIZE, 0);
	return a;
}

static uint64_t loader_bytes;

/* handoff_alloc_fn for the page tables: one zeroed page from below 4 GiB. */
static uint64_t alloc_table_page(void *ctx)
{
	(void)ctx;
	uint64_t p = alloc_pages(AllocateMaxAddress, BELOW_4G, 1);
	if (p)
		loader_bytes += EFI_PAGE_SIZE;
	return p;
}

static void copy_ascii(char *dst, uint32_t cap, const CHAR16 *src, uint64_t max_chars,
		       uint32_t *truncated)
{
	uint32_t n = 0;
	uint64_t i = 0;
	for (; src && i < max_chars && src[i]; i++) {
		if (n + 1 >= cap) {
			if (truncated)
				*truncated = 1;
			break;
		}
		CHAR16 c = src[i];
		dst[n++] = (c >= 0x20 && c < 0x7f) || c == '\t' ? (char)c : (c == '\n' || c == '\r' ? ' ' : '?');
	}
	dst[n] = 0;
}

static void find_rsdp(struct boot_info *bi)
{
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi20_guid)) {
			bi->rsdp_phys = (uint64_t)(uintptr_t)t->VendorTable;
			bi->rsdp_source = BOOT_RSDP_ACPI20;
			return;
		}
	}
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi10_guid)) {
			bi->rsdp_phys = (uint64_t)(uintptr_t)t->VendorTable;
			bi->rsdp_source = BOOT_RSDP_ACPI10;
			return;
		}
	}
}

static void find_framebuffer(struct boot_info *bi)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	if (EFI_ERROR(st->BootServices->LocateProtocol(&gop_guid, NULL, (void **)&gop)) || !gop ||
	    !gop->Mode || !gop->Mode->Info)
		return;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	struct boot_fb *fb = &bi->fb;
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor: fb->format = BOOT_FB_RGBX; break;
	case PixelBlueGreenRedReserved8BitPerColor: fb->format = BOOT_FB_BGRX; break;
	case PixelBitMask:
		fb->format = BOOT_FB_BITMASK;
		fb->mask_red = info->PixelInformation.RedMask;
		fb->mask_green = info->PixelInformation.GreenMask;
		fb->mask_blue = info->PixelInformation.BlueMask;
		fb->mask_reserved = info->PixelInformation.ReservedMask;
		break;
	default: return; /* BltOnly: no linear framebuffer */
	}
	fb->base = gop->Mode->FrameBufferBase;
	fb->size = gop->Mode->FrameBufferSize;
	fb->width = info->HorizontalResolution;
	fb->height = info->VerticalResolution;
	fb->pitch = info->PixelsPerScanLine * 4;
	fb->mode = gop->Mode->Mode;
}

static void read_cmdline(EFI_HANDLE image, struct boot_info *bi)
{
	EFI_LOADED_IMAGE *li = NULL;
	if (EFI_ERROR(st->BootServices->HandleProtocol(image, &loaded_image_guid, (void **)&li)) || !li)
		return;
	if (li->LoadOptions && li->LoadOptionsSize >= sizeof(CHAR16))
		copy_ascii(bi->cmdline, sizeof(bi->cmdline), li->LoadOptions,
			   li->LoadOptionsSize / sizeof(CHAR16), &bi->cmdline_truncated);
}

/* ---- quietbench.cfg hook (issue 7) ----------------------------------------
 * Without load options, take the options from \quietbench.cfg on the volume
 * this application was loaded from (the USB image's FAT; boot/grub/quietbench.cfg
 * is the template). The file is GRUB script: only `[set ]qb_options=VALUE`
 * lines are read (VALUE quoted, or one word), the last one wins; lines
 * starting with # are comments. Any failure leaves the command line empty. */

#define QBCFG_PATH L"\\quietbench.cfg"
#define QBCFG_MAX 4096                   /* bytes read; the rest of a longer file is ignored */
#define QBCFG_KEY "qb_options="
#define QBCFG_SET "set"
#define QBCFG_PROGRAM_SUFFIX ".efi"      /* as kernel/run/options.c: a first word naming the program */

static int qbcfg_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Load options count as given when they are text with a word besides the
 * program's own path. Firmware boot entries may pass binary data: not given. */
static int qbcfg_options_given(EFI_LOADED_IMAGE *li)
{
	if (!li->LoadOptions || li->LoadOptionsSize < sizeof(CHAR16))
		return 0;
	const CHAR16 *s = li->LoadOptions;
	UINTN n = li->LoadOptionsSize / sizeof(CHAR16), words = 0, i = 0, first = 1;
	while (i < n && s[i]) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		UINTN w = i, eq = 0;
		for (; i < n && s[i] && s[i] != ' ' && s[i] != '\t'; i++) {
			if (s[i] < 0x20 || s[i] > 0x7e)
				return 0;
			eq |= s[i] == '=';
		}
		UINTN len = i - w, sl = sizeof(QBCFG_PROGRAM_SUFFIX) - 1, prog = first && !eq && len >= sl;
		for (UINTN k = 0; prog && k < sl; k++)
			prog = (s[w + len - sl + k] | 0x20) == QBCFG_PROGRAM_SUFFIX[k];
		if (len && !prog)
			words++;
		if (len)
			first = 0;
	}
	return words > 0;
}

/* Parse text[0, n) for the last qb_options line into bi->cmdline. */
static void qbcfg_parse(const char *text, UINTN n, struct boot_info *bi)
{
	UINTN i = 0, kl = sizeof(QBCFG_KEY) - 1, sl = sizeof(QBCFG_SET) - 1;
	while (i < n) {
		UINTN eol = i;
		while (eol < n && text[eol] != '\n')
			eol++;
		UINTN p = i;
		while (p < eol && qbcfg_space(text[p]))
			p++;
		if (eol - p > sl && !CompareMem(text + p, QBCFG_SET, sl) && qbcfg_space(text[p + sl]))
			for (p += sl; p < eol && qbcfg_space(text[p]); p++)
				;
		if (eol - p >= kl && !CompareMem(text + p, QBCFG_KEY, kl)) {
			/* As GRUB reads it: a quoted value runs to its closing quote,
			 * an unquoted one to the first blank. */
			UINTN v = p + kl, e = v;
			if (v < eol && (text[v] == '"' || text[v] == '\'')) {
				for (e = ++v; e < eol && text[e] != text[v - 1]; e++)
					;
			} else {
				while (e < eol && !qbcfg_space(text[e]) && text[e] != '\r')
					e++;
			}
			UINTN len = 0;
			for (; v < e && len + 1 < sizeof(bi->cmdline); v++)
				bi->cmdline[len++] = text[v] >= 0x20 && text[v] < 0x7f ? text[v] : '?';
			bi->cmdline[len] = 0;
			bi->cmdline_truncated = v < e;
		}
		i = eol + 1;
	}
}

static void qbcfg_read(EFI_HANDLE image, struct boot_info *bi)
{
	static char buf[QBCFG_MAX];
	EFI_LOADED_IMAGE *li = NULL;
	if (EFI_ERROR(st->BootServices->HandleProtocol(image, &loaded_image_guid, (void **)&li)) || !li ||
	    qbcfg_options_given(li))
		return;
	bi->cmdline[0] = 0;
	bi->cmdline_truncated = 0;
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle), f = NULL;
	if (!root)
		return;
	UINTN size = sizeof(buf);
	if (!EFI_ERROR(root->Open(root, &f, QBCFG_PATH, EFI_FILE_MODE_READ, 0)) && f) {
		if (EFI_ERROR(f->Read(f, &size, buf)))
			size = 0;
		f->Close(f);
		qbcfg_parse(buf, size, bi);
		say(L"quietbench: options from \\quietbench.cfg\r\n");
	}
	root->Close(root);
}
/* ---- end of quietbench.cfg hook ------------------------------------------- */


/* ---- Public Functions ----------------------------------------------------- */

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	uint64_t t0 = rdtsc();
	EFI_STATUS s;

	InitializeLib(image, systab);
	st = systab;
	st->BootServices->SetWatchdogTimer(0, 0, 0, NULL);

	/* The kernel image and its header. */
	const struct kernel_image_header *kh = (const void *)kernel_blob_start;
	uint64_t blob_size = (uint64_t)(kernel_blob_end - kernel_blob_start);
	if (blob_size < sizeof(*kh) || kh->magic != KERNEL_IMAGE_MAGIC ||
	    kh->file_size > kh->mem_size || blob_size > kh->mem_size) {
		fail(L"embedded kernel image has a bad header", EFI_LOAD_ERROR);
		return EFI_LOAD_ERROR;
	}
	uint64_t kpages = (kh->mem_size + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	/* Below 4 GiB: mapped by the handoff tables whatever RAM they leave to the kernel. */
	uint64_t kphys = alloc_pages(AllocateMaxAddress, BELOW_4G, kpages);
	uint64_t bi_pages = (sizeof(struct boot_info) + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	struct boot_info *bi = (void *)(uintptr_t)alloc_pages(AllocateMaxAddress, BELOW_4G, bi_pages);
	uint64_t stack = alloc_pages(AllocateMaxAddress, BELOW_4G, BOOT_STACK_SIZE / EFI_PAGE_SIZE);
	if (!kphys || !bi || !stack) {
		fail(L"out of memory for the kernel", EFI_OUT_OF_RESOURCES);
		return EFI_OUT_OF_RESOURCES;
	}
	loader_bytes = (kpages + bi_pages) * EFI_PAGE_SIZE + BOOT_STACK_SIZE;
	st->BootServices->CopyMem((void *)(uintptr_t)kphys, (void *)kernel_blob_start, blob_size);

	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->loader = BOOT_LOADER_UEFI;
	bi->entry_tsc = t0;
	bi->kernel_phys = kphys;
	bi->kernel_size = kpages * EFI_PAGE_SIZE;
	bi->stack_phys = stack;
	bi->stack_size = BOOT_STACK_SIZE;
	bi->uefi_revision = st->Hdr.Revision;
	bi->fw_revision = st->FirmwareRevision;
	copy_ascii(bi->fw_vendor, sizeof(bi->fw_vendor), st->FirmwareVendor, 64, NULL);
	/* Runtime services stay callable in physical mode (no SetVirtualAddressMap). */
	bi->efi_runtime_services = (uint64_t)(uintptr_t)st->RuntimeServices;
	bi->efi_reset_system = (uint64_t)(uintptr_t)st->RuntimeServices->ResetSystem;
	read_cmdline(image, bi);
	qbcfg_read(image, bi); /* quietbench.cfg hook (issue 7): options when none were given */
	find_rsdp(bi);
	loader_bytes += efi_smbios_copy(st, bi); /* SMBIOS 3 entry point first, then 2; the table copied (issue 37) */
	find_framebuffer(bi);
	efi_results_find(st, image, bi);   /* where the log can be written (issue 17); a series' boot (issue 37) */
	/* The AP trampoline page; without it the kernel runs on the BSP alone. */
	bi->trampoline_phys = alloc_pages(AllocateMaxAddress, LOW_MEM_LIMIT, 1);
	if (bi->trampoline_phys)
		loader_bytes += EFI_PAGE_SIZE;

	/* Size the map, then allocate its buffer and the conversion scratch
	 * before the exit loop: after a failed ExitBootServices only
	 * GetMemoryMap may be called. */
	UINTN map_size = 0, map_key = 0, desc_size = 0;
	UINT32 desc_ver = 0;
	s = st->BootServices->GetMemoryMap(&map_size, NULL, &map_key, &desc_size, &desc_ver);
	if (s != EFI_BUFFER_TOO_SMALL || desc_size < sizeof(struct efi_mem_desc)) {
		fail(L"GetMemoryMap", s);
		return s;
	}
	UINTN map_cap = map_size + MMAP_SLACK_DESCS * desc_size;
	uint64_t map_pages = (map_cap + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	uint64_t raw_pages = ((map_cap / desc_size) * sizeof(struct boot_mem_range) +
			      EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	void *map = (void *)(uintptr_t)alloc_pages(AllocateAnyPages, 0, map_pages);
	struct boot_mem_range *raw = (void *)(uintptr_t)alloc_pages(AllocateAnyPages, 0, raw_pages);
	if (!map || !raw) {
		fail(L"out of memory for the memory map", EFI_OUT_OF_RESOURCES);
		return EFI_OUT_OF_RESOURCES;
	}

	/* The identity map covers the RAM of the map as it is now (normalised
	 * into bi->mmap, which the final map replaces after the exit). */
	map_size = map_cap;
	s = st->BootServices->GetMemoryMap(&map_size, map, &map_key, &desc_size, &desc_ver);
	if (EFI_ERROR(s)) {
		fail(L"GetMemoryMap", s);
		return s;
	}
	struct efi_mmap_result pre = efi_mmap_convert(map, map_size, desc_size, raw, (uint32_t)(map_cap / desc_size));
	struct handoff_map hm = { bi->mmap, mmap_normalise(raw, pre.count, bi->mmap, QB_MAX_MEM_RANGES, 0), 0, false };
	handoff_pt_cpu(&hm);
	/* The switch code lies where the firmware loaded this image, maybe above
	 * 4 GiB; what it touches after the switch (the stack, *bi) is below. */
	struct handoff_kernel hk = { kphys, kh->link_base, kpages * EFI_PAGE_SIZE, (uint64_t)(uintptr_t)efi_handoff,
				     (uint64_t)(uintptr_t)efi_handoff_end - (uint64_t)(uintptr_t)efi_handoff };
	/* Firmware may run with 5-level paging; LA57 cannot be turned off in
	 * 64-bit mode, so the tables handed over must have five levels too. */
	uint64_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	uint64_t pt0 = rdtsc();
	uint64_t cr3 = handoff_pt_build(&hm, &hk, (cr4 & HANDOFF_CR4_LA57) != 0, alloc_table_page, NULL, NULL);
	bi->handoff_pt_ticks = rdtsc() - pt0;
	if (!cr3) {
		fail(L"out of memory for page tables (or the hand-off code cannot be mapped)", EFI_OUT_OF_RESOURCES);
		return EFI_OUT_OF_RESOURCES;
	}
	bi->loader_bytes = loader_bytes;
	say(L"quietbench: leaving the firmware\r\n");

	/* The exit loop: the map key goes stale whenever the map changes. */
	uint32_t tries = 0;
	for (;;) {
		tries++;
		map_size = map_cap;
		s = st->BootServices->GetMemoryMap(&map_size, map, &map_key, &desc_size, &desc_ver);
		if (EFI_ERROR(s)) {
			if (tries == 1)
				fail(L"GetMemoryMap before exit", s);
			return s; /* after a failed exit nothing can be printed safely */
		}
		s = st->BootServices->ExitBootServices(image, map_key);
		if (!EFI_ERROR(s))
			break;
		if (tries >= EXIT_TRIES)
			return s;
	}
	/* No boot services from here on. */
	bi->exit_tries = tries;

	struct efi_mmap_result r = efi_mmap_convert(map, map_size, desc_size, raw,
						    (uint32_t)(map_cap / desc_size));
	struct mmap_stats ms;
	bi->mmap_count = mmap_normalise(raw, r.count, bi->mmap, QB_MAX_MEM_RANGES, &ms);
	bi->mmap_dropped = ms.dropped + r.dropped + r.bad;
	bi->mmap_fixups = ms.overlaps + ms.unaligned + ms.wrapped;

	efi_handoff(cr3, stack + BOOT_STACK_SIZE, kh->entry, bi);
}
