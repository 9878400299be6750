/* fuzz_mb2.c - libFuzzer harness for the Multiboot2 boot information parser (boot/mb2.h, Multiboot2 spec 1.0 §3.6), and the normaliser behind it.
 *
 * The input is the boot information as GRUB leaves it at EBX. It is parsed
 * from an exact-size heap block (so ASan sees any read past max_len), again
 * from an odd address (GRUB's buffer is 8-byte aligned; a hostile one need
 * not be), and again with a small raw[] capacity; all three must agree. The
 * raw memory map then goes through mmap_normalise() and its checks. */
#include <stdbool.h>

#include "fuzz.h"
#include "fuzz_mmap_check.h"
#include "mb2.h"
#include "mmap.h"

/* ---- Constants ---------------------------------------------------------- */

#define RAW_CAP QB_MAX_MEM_RANGES      /* as boot/mb2_main.c */

/* ---- Private Variables -------------------------------------------------- */

static struct boot_info bi, bi2;
static struct boot_mem_range raw[RAW_CAP], raw2[RAW_CAP], out[QB_MAX_MEM_RANGES];

/* ---- Private Functions -------------------------------------------------- */

static int parse(const uint8_t *p, size_t n, struct boot_info *b, struct mb2_found *x,
		 struct boot_mem_range *r, uint32_t cap)
{
	memset(b, 0xa5, sizeof(*b));
	memset(x, 0xa5, sizeof(*x));
	x->raw = r;
	x->raw_cap = cap;
	return mb2_parse(p, n, b, x);
}

/* What mb2_parse() fills, compared field by field. */
static void check_same(const struct boot_info *a, const struct mb2_found *xa,
		       const struct boot_info *b, const struct mb2_found *xb, bool same_raw)
{
	FUZZ_ASSERT(!strcmp(a->cmdline, b->cmdline));
	FUZZ_ASSERT(a->cmdline_truncated == b->cmdline_truncated);
	FUZZ_ASSERT(a->rsdp_source == b->rsdp_source);
	FUZZ_ASSERT(!memcmp(&a->fb, &b->fb, sizeof(a->fb)));
	FUZZ_ASSERT(xa->rsdp_len == xb->rsdp_len && !memcmp(xa->rsdp, xb->rsdp, xa->rsdp_len));
	FUZZ_ASSERT(!strcmp(xa->loader_name, xb->loader_name));
	FUZZ_ASSERT(xa->mem_source == xb->mem_source);
	FUZZ_ASSERT(xa->fb_type == xb->fb_type && xa->fb_bpp == xb->fb_bpp);
	FUZZ_ASSERT(xa->efi_systab == xb->efi_systab);
	FUZZ_ASSERT(xa->tags == xb->tags && xa->unknown_tags == xb->unknown_tags);
	if (same_raw)
		FUZZ_ASSERT(xa->raw_count == xb->raw_count && xa->raw_dropped == xb->raw_dropped &&
			    !memcmp(xa->raw, xb->raw, xa->raw_count * sizeof(*xa->raw)));
}

/* What one parse promises on its own. */
static void check_found(int rc, const struct boot_info *b, const struct mb2_found *x)
{
	FUZZ_ASSERT(rc >= MB2_OK && rc <= MB2_ERR_NO_MEMORY);
	FUZZ_ASSERT(strcmp(mb2_status_name(rc), "unknown error"));
	FUZZ_ASSERT(fuzz_cstr_ok(b->cmdline, sizeof(b->cmdline)));
	FUZZ_ASSERT(b->cmdline_truncated <= 1);
	FUZZ_ASSERT(!b->cmdline_truncated || strlen(b->cmdline) == sizeof(b->cmdline) - 1);
	FUZZ_ASSERT(fuzz_cstr_ok(x->loader_name, sizeof(x->loader_name)));
	FUZZ_ASSERT(x->raw_count <= x->raw_cap);
	FUZZ_ASSERT(x->raw_dropped == 0 || x->raw_count == x->raw_cap);
	FUZZ_ASSERT(x->unknown_tags <= x->tags);
	FUZZ_ASSERT(x->mem_source <= MB2_MEMSRC_BASIC);
	FUZZ_ASSERT((x->mem_source == MB2_MEMSRC_NONE) == (x->raw_count + x->raw_dropped == 0) ||
		    x->mem_source == MB2_MEMSRC_MMAP);
	switch (b->rsdp_source) {
	case BOOT_RSDP_NONE: FUZZ_ASSERT(x->rsdp_len == 0); break;
	case BOOT_RSDP_ACPI10: FUZZ_ASSERT(x->rsdp_len == MB2_RSDP_V1_LEN); break;
	case BOOT_RSDP_ACPI20: FUZZ_ASSERT(x->rsdp_len == MB2_RSDP_MAX); break;
	default: FUZZ_ASSERT(!"rsdp_source out of range");
	}
	if (b->fb.base) {
		FUZZ_ASSERT(b->fb.format >= BOOT_FB_RGBX && b->fb.format <= BOOT_FB_BITMASK);
		FUZZ_ASSERT(b->fb.width && b->fb.height && b->fb.pitch / 4 >= b->fb.width);
		FUZZ_ASSERT(b->fb.size == (uint64_t)b->fb.pitch * b->fb.height);
		FUZZ_ASSERT(x->fb_type == MB2_FB_RGB && x->fb_bpp == 32);
	} else {
		FUZZ_ASSERT(b->fb.format == BOOT_FB_NONE && b->fb.size == 0);
	}
	if (rc == MB2_OK)
		FUZZ_ASSERT(x->mem_source != MB2_MEMSRC_NONE && x->tags >= 1);
	if (rc == MB2_ERR_ARGS || rc == MB2_ERR_SIZE)
		FUZZ_ASSERT(x->tags == 0);
}

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mb2_found x, x2;
	uint8_t *info = malloc(size ? size : 1), *odd = malloc(size + 1);
	uint32_t small = (uint32_t)(size % 5);
	int rc;

	if (!info || !odd) {
		free(info);
		free(odd);
		return 0;
	}
	memcpy(info, data, size);
	memcpy(odd + 1, data, size);

	rc = parse(info, size, &bi, &x, raw, RAW_CAP);
	check_found(rc, &bi, &x);

	FUZZ_ASSERT(parse(odd + 1, size, &bi2, &x2, raw2, RAW_CAP) == rc);
	check_same(&bi, &x, &bi2, &x2, true);

	/* A small raw[] keeps a prefix and counts the rest. */
	FUZZ_ASSERT(parse(info, size, &bi2, &x2, raw2, small) == rc);
	check_found(rc, &bi2, &x2);
	check_same(&bi, &x, &bi2, &x2, false);
	FUZZ_ASSERT(x2.raw_count + x2.raw_dropped == x.raw_count + x.raw_dropped);
	FUZZ_ASSERT(!memcmp(raw2, raw, x2.raw_count * sizeof(raw[0])));

	FUZZ_ASSERT(mb2_parse(NULL, size, &bi2, &x2) == MB2_ERR_ARGS);

	if (rc == MB2_OK)
		fmc_normalise_and_check(raw, x.raw_count, out, QB_MAX_MEM_RANGES);
	free(info);
	free(odd);
	return 0;
}
