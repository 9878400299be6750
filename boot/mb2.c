/* mb2.c - parses the Multiboot2 boot information into a struct boot_info (Multiboot2 spec 1.0 §3.6); see mb2.h.
 *
 * Every read goes through mb2_rd32/64 at an offset checked against the
 * tag's size and the total size, and through memcpy, so an unaligned or
 * hostile buffer cannot make it read out of bounds. */
#include "mb2.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */

#define MB2_TAG_ALIGN 8
#define MB2_MIN_TOTAL (sizeof(struct mb2_info_header) + sizeof(struct mb2_tag))
#define KIB 1024ull
#define LOW_MEMORY_END 0x100000ull /* basic meminfo counts mem_upper from 1 MiB */
#define ASCII_FIRST 0x20
#define ASCII_LAST 0x7e
#define BAD_CHAR '?'

/* ---- Private Functions ---------------------------------------------------- */

static uint32_t mb2_rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t mb2_rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Length of the string in s[0, max): up to the first NUL, else max. */
static size_t mb2_strnlen(const uint8_t *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

/* Copy n bytes as printable ASCII; returns 1 if they did not fit in cap - 1. */
static uint32_t mb2_copy_ascii(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	size_t keep = n < cap - 1 ? n : cap - 1;
	for (size_t i = 0; i < keep; i++) {
		uint8_t c = s[i];
		if (c == '\t' || c == '\n' || c == '\r')
			c = ' ';
		dst[i] = c >= ASCII_FIRST && c <= ASCII_LAST ? (char)c : BAD_CHAR;
	}
	dst[keep] = 0;
	return n > keep;
}

static int mb2_is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* GRUB passes "PATH options...": drop a first word that is a path, not an option. */
static void mb2_cmdline(struct boot_info *out, const uint8_t *s, size_t n)
{
	size_t i = 0, end;
	while (i < n && mb2_is_space(s[i]))
		i++;
	for (end = i; end < n && !mb2_is_space(s[end]); end++)
		;
	int has_eq = 0, has_slash = 0;
	for (size_t k = i; k < end; k++) {
		has_eq |= s[k] == '=';
		has_slash |= s[k] == '/';
	}
	if (has_slash && !has_eq) {
		i = end;
		while (i < n && mb2_is_space(s[i]))
			i++;
	}
	out->cmdline_truncated = mb2_copy_ascii(out->cmdline, sizeof(out->cmdline), s + i, n - i);
}

static uint32_t mb2_mem_type(uint32_t t)
{
	switch (t) {
	case MB2_MEM_AVAILABLE: return BOOT_MEM_USABLE;
	case MB2_MEM_ACPI_RECLAIM: return BOOT_MEM_ACPI_RECLAIM;
	case MB2_MEM_NVS: return BOOT_MEM_ACPI_NVS;
	case MB2_MEM_BAD: return BOOT_MEM_UNUSABLE;
	default: return BOOT_MEM_RESERVED;
	}
}

static void mb2_add_range(struct mb2_found *x, uint64_t base, uint64_t len, uint32_t type)
{
	if (!x->raw || x->raw_count >= x->raw_cap) {
		x->raw_dropped++;
		return;
	}
	struct boot_mem_range *r = &x->raw[x->raw_count++];
	r->base = base;
	r->length = len;
	r->type = type;
	r->pad = 0;
}

/* §3.6.8: the last memory map tag wins. */
static int mb2_mmap(struct mb2_found *x, const uint8_t *t, size_t size)
{
	if (size < sizeof(struct mb2_tag_mmap))
		return MB2_ERR_TAG;
	uint32_t esize = mb2_rd32(t + offsetof(struct mb2_tag_mmap, entry_size));
	if (esize < sizeof(struct mb2_mmap_entry))
		return MB2_ERR_TAG;
	x->raw_count = 0;
	x->raw_dropped = 0;
	for (size_t e = sizeof(struct mb2_tag_mmap); size - e >= esize; e += esize) {
		const uint8_t *p = t + e;
		mb2_add_range(x, mb2_rd64(p + offsetof(struct mb2_mmap_entry, base)),
			      mb2_rd64(p + offsetof(struct mb2_mmap_entry, length)),
			      mb2_mem_type(mb2_rd32(p + offsetof(struct mb2_mmap_entry, type))));
	}
	x->mem_source = MB2_MEMSRC_MMAP;
	return MB2_OK;
}

static uint32_t mb2_mask(uint8_t pos, uint8_t size)
{
	if (size == 0 || pos >= 32)
		return 0;
	uint64_t m = ((1ull << (size > 32 ? 32 : size)) - 1) << pos;
	return (uint32_t)m;
}

/* §3.6.12: only 32-bit direct-colour framebuffers are usable by the kernel. */
static void mb2_framebuffer(struct boot_info *out, struct mb2_found *x, const uint8_t *t, size_t size)
{
	if (size < sizeof(struct mb2_tag_fb))
		return;
	struct boot_fb *fb = &out->fb;
	memset(fb, 0, sizeof(*fb));
	x->fb_type = t[offsetof(struct mb2_tag_fb, fb_type)];
	x->fb_bpp = t[offsetof(struct mb2_tag_fb, bpp)];
	if (x->fb_type != MB2_FB_RGB || x->fb_bpp != 32 ||
	    size < sizeof(struct mb2_tag_fb) + sizeof(struct mb2_fb_rgb))
		return;
	uint64_t addr = mb2_rd64(t + offsetof(struct mb2_tag_fb, addr));
	uint32_t pitch = mb2_rd32(t + offsetof(struct mb2_tag_fb, pitch));
	uint32_t width = mb2_rd32(t + offsetof(struct mb2_tag_fb, width));
	uint32_t height = mb2_rd32(t + offsetof(struct mb2_tag_fb, height));
	if (!addr || !width || !height || pitch / 4 < width)
		return;
	struct mb2_fb_rgb c;
	memcpy(&c, t + sizeof(struct mb2_tag_fb), sizeof(c));
	uint32_t r = mb2_mask(c.red_pos, c.red_size), g = mb2_mask(c.green_pos, c.green_size);
	uint32_t b = mb2_mask(c.blue_pos, c.blue_size);
	if (r == 0xff0000u && g == 0xff00u && b == 0xffu) {
		fb->format = BOOT_FB_BGRX;          /* byte order B, G, R, X */
	} else if (r == 0xffu && g == 0xff00u && b == 0xff0000u) {
		fb->format = BOOT_FB_RGBX;
	} else {
		fb->format = BOOT_FB_BITMASK;
		fb->mask_red = r;
		fb->mask_green = g;
		fb->mask_blue = b;
		fb->mask_reserved = ~(r | g | b);
	}
	fb->base = addr;
	fb->pitch = pitch;
	fb->width = width;
	fb->height = height;
	fb->size = (uint64_t)pitch * height;
}

/* §3.6.14-15: a copy of the RSDP; the ACPI 2.0 one wins over 1.0. */
static void mb2_acpi(struct boot_info *out, struct mb2_found *x, const uint8_t *t, size_t size, int is_new)
{
	size_t want = is_new ? MB2_RSDP_MAX : MB2_RSDP_V1_LEN;
	if (size - sizeof(struct mb2_tag) < want)
		return;
	if (!is_new && out->rsdp_source == BOOT_RSDP_ACPI20)
		return;
	memset(x->rsdp, 0, sizeof(x->rsdp));
	memcpy(x->rsdp, t + sizeof(struct mb2_tag), want);
	x->rsdp_len = (uint32_t)want;
	out->rsdp_source = is_new ? BOOT_RSDP_ACPI20 : BOOT_RSDP_ACPI10;
}

/* ---- Public Functions ----------------------------------------------------- */

int mb2_parse(const void *info, size_t max_len, struct boot_info *out, struct mb2_found *x)
{
	if (!info || !out || !x)
		return MB2_ERR_ARGS;
	const uint8_t *p = info;
	uint32_t lower = 0, upper = 0;
	int have_basic = 0, end = 0;

	x->raw_count = x->raw_dropped = 0;
	x->mem_source = MB2_MEMSRC_NONE;
	x->rsdp_len = 0;
	x->loader_name[0] = 0;
	x->fb_type = x->fb_bpp = 0;
	x->efi_systab = 0;
	x->tags = x->unknown_tags = 0;
	out->cmdline[0] = 0;
	out->cmdline_truncated = 0;
	out->rsdp_source = BOOT_RSDP_NONE;
	memset(&out->fb, 0, sizeof(out->fb));

	if (max_len < MB2_MIN_TOTAL)
		return MB2_ERR_SIZE;
	size_t total = mb2_rd32(p + offsetof(struct mb2_info_header, total_size));
	if (total < MB2_MIN_TOTAL || total > max_len)
		return MB2_ERR_SIZE;

	size_t off = sizeof(struct mb2_info_header);
	while (total - off >= sizeof(struct mb2_tag)) {
		const uint8_t *t = p + off;
		uint32_t type = mb2_rd32(t + offsetof(struct mb2_tag, type));
		size_t size = mb2_rd32(t + offsetof(struct mb2_tag, size));
		if (size < sizeof(struct mb2_tag) || size > total - off)
			return MB2_ERR_TAG;
		x->tags++;
		const uint8_t *body = t + sizeof(struct mb2_tag);
		size_t blen = size - sizeof(struct mb2_tag);
		int st = MB2_OK;
		switch (type) {
		case MB2_TAG_END:
			end = 1;
			break;
		case MB2_TAG_CMDLINE:
			mb2_cmdline(out, body, mb2_strnlen(body, blen));
			break;
		case MB2_TAG_LOADER_NAME:
			mb2_copy_ascii(x->loader_name, sizeof(x->loader_name), body, mb2_strnlen(body, blen));
			break;
		case MB2_TAG_BASIC_MEMINFO:
			if (size >= sizeof(struct mb2_tag_meminfo)) {
				lower = mb2_rd32(t + offsetof(struct mb2_tag_meminfo, mem_lower));
				upper = mb2_rd32(t + offsetof(struct mb2_tag_meminfo, mem_upper));
				have_basic = 1;
			}
			break;
		case MB2_TAG_MMAP:
			st = mb2_mmap(x, t, size);
			break;
		case MB2_TAG_FRAMEBUFFER:
			mb2_framebuffer(out, x, t, size);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			mb2_acpi(out, x, t, size, type == MB2_TAG_ACPI_NEW);
			break;
		case MB2_TAG_EFI32_SYSTAB:
		case MB2_TAG_EFI64_SYSTAB:
			x->efi_systab = 1;
			break;
		default:
			x->unknown_tags++;
			break;
		}
		if (st != MB2_OK)
			return st;
		if (end)
			break;
		/* The next tag starts at the next 8-byte boundary; size <= total - off. */
		size_t step = (size + MB2_TAG_ALIGN - 1) & ~(size_t)(MB2_TAG_ALIGN - 1);
		if (step > total - off)
			break;
		off += step;
	}
	if (!end)
		return MB2_ERR_NO_END;
	if (x->mem_source == MB2_MEMSRC_NONE && have_basic) {
		mb2_add_range(x, 0, lower * KIB, BOOT_MEM_USABLE);
		mb2_add_range(x, LOW_MEMORY_END, upper * KIB, BOOT_MEM_USABLE);
		x->mem_source = MB2_MEMSRC_BASIC;
	}
	return x->mem_source == MB2_MEMSRC_NONE ? MB2_ERR_NO_MEMORY : MB2_OK;
}

const char *mb2_status_name(int status)
{
	switch (status) {
	case MB2_OK: return "ok";
	case MB2_ERR_ARGS: return "no boot information";
	case MB2_ERR_SIZE: return "bad total size";
	case MB2_ERR_TAG: return "malformed tag";
	case MB2_ERR_NO_END: return "no end tag";
	case MB2_ERR_NO_MEMORY: return "no memory map";
	default: return "unknown error";
	}
}
