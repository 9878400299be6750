/* test_mb2.c - host tests of the multiboot2 tag parser (boot/mb2.c) and the placement of the boot path's pages (boot/mb2_mem.c). */
#include <stdlib.h>

#include "check.h"
#include "mb2.h"
#include "mb2_mem.h"
#include "mmap.h"

#define PG 4096ull
#define MIB (1ull << 20)

/* ---- a boot information builder ---------------------------------------------- */

static uint8_t buf[8192] __attribute__((aligned(8)));
static size_t used;

static void put32(size_t off, uint32_t v) { memcpy(buf + off, &v, 4); }

static void begin(void)
{
	memset(buf, 0xcc, sizeof(buf));
	used = 8;
}

/* Append a tag with body bytes; returns its offset. */
static size_t tag(uint32_t type, const void *body, size_t len)
{
	size_t off = used;
	put32(off, type);
	put32(off + 4, (uint32_t)(8 + len));
	if (len)
		memcpy(buf + off + 8, body, len);
	used = (off + 8 + len + 7) & ~(size_t)7;
	return off;
}

static void tag_str(uint32_t type, const char *s)
{
	tag(type, s, strlen(s) + 1);
}

static size_t finish(void)
{
	tag(MB2_TAG_END, 0, 0);
	put32(0, (uint32_t)used);
	put32(4, 0);
	return used;
}

struct ent { uint64_t base, len; uint32_t type; };

static void tag_mmap(const struct ent *e, int n, uint32_t esize)
{
	uint8_t body[1024];
	memset(body, 0, sizeof(body));
	memcpy(body, &esize, 4);
	uint32_t ver = 0;
	memcpy(body + 4, &ver, 4);
	for (int i = 0; i < n; i++) {
		uint8_t *p = body + 8 + (size_t)i * esize;
		memcpy(p, &e[i].base, 8);
		memcpy(p + 8, &e[i].len, 8);
		memcpy(p + 16, &e[i].type, 4);
	}
	tag(MB2_TAG_MMAP, body, 8 + (size_t)n * esize);
}

static const struct ent qemu_map[] = {
	{ 0, 0x9fc00, MB2_MEM_AVAILABLE },
	{ 0x9fc00, 0x400, 2 },
	{ 0xf0000, 0x10000, 2 },
	{ 0x100000, 0x3fee0000, MB2_MEM_AVAILABLE },
	{ 0x3ffe0000, 0x20000, 2 },
	{ 0xb0000000, 0x10000000, 2 },
	{ 0xfeffc000, 0x4000, 2 },
};

static struct boot_info bi;
static struct boot_mem_range raw[64];
static struct mb2_found x;

static int parse(size_t len)
{
	memset(&bi, 0x5a, sizeof(bi));
	memset(&x, 0, sizeof(x));
	x.raw = raw;
	x.raw_cap = 64;
	return mb2_parse(buf, len, &bi, &x);
}

/* ---- parser ------------------------------------------------------------------- */

TEST(grub_like_info_parses)
{
	uint8_t rsdp[36];
	for (int i = 0; i < 36; i++)
		rsdp[i] = (uint8_t)i;
	begin();
	tag_str(MB2_TAG_CMDLINE, "/boot/quietbench-mb2.elf profile=quick finish=qemu");
	tag_str(MB2_TAG_LOADER_NAME, "GRUB 2.06-13+deb12u2");
	tag_mmap(qemu_map, 7, 24);
	tag(MB2_TAG_ACPI_OLD, rsdp, 20);
	tag(MB2_TAG_ACPI_NEW, rsdp, 36);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_STR(bi.cmdline, "profile=quick finish=qemu");
	CHECK_EQ_U(bi.cmdline_truncated, 0);
	CHECK_STR(x.loader_name, "GRUB 2.06-13+deb12u2");
	CHECK_EQ_U(x.mem_source, MB2_MEMSRC_MMAP);
	CHECK_EQ_U(x.raw_count, 7);
	CHECK_EQ_U(raw[3].base, 0x100000);
	CHECK_EQ_U(raw[3].length, 0x3fee0000);
	CHECK_EQ_U(raw[3].type, BOOT_MEM_USABLE);
	CHECK_EQ_U(raw[1].type, BOOT_MEM_RESERVED);
	CHECK_EQ_U(bi.rsdp_source, BOOT_RSDP_ACPI20);
	CHECK_EQ_U(x.rsdp_len, 36);
	CHECK(!memcmp(x.rsdp, rsdp, 36));
	CHECK_EQ_U(bi.fb.base, 0);
	CHECK_EQ_U(x.tags, 6);
}

TEST(cmdline_without_path_is_kept_and_nonascii_replaced)
{
	begin();
	tag_str(MB2_TAG_CMDLINE, "cpus=1\tworkloads=selftest \x81x=1");
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_STR(bi.cmdline, "cpus=1 workloads=selftest ?x=1");

	begin();
	tag_str(MB2_TAG_CMDLINE, "/boot/quietbench-mb2.elf");
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_STR(bi.cmdline, "");

	begin();
	tag_str(MB2_TAG_CMDLINE, "dir=/a/b x=1");  /* a path-like value is an option, not the kernel */
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_STR(bi.cmdline, "dir=/a/b x=1");
}

TEST(long_cmdline_is_truncated_and_flagged)
{
	static char line[QB_MAX_CMDLINE + 100];
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	line[0] = 'k';
	line[1] = '=';
	begin();
	tag_str(MB2_TAG_CMDLINE, line);
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(strlen(bi.cmdline), QB_MAX_CMDLINE - 1);
	CHECK_EQ_U(bi.cmdline_truncated, 1);
}

TEST(unterminated_string_stops_at_the_tag_end)
{
	begin();
	tag(MB2_TAG_CMDLINE, "a=1 b=2", 7);  /* no NUL */
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_STR(bi.cmdline, "a=1 b=2");
}

TEST(old_rsdp_alone_is_acpi10_and_never_beats_new)
{
	uint8_t r1[20], r2[36];
	memset(r1, 1, sizeof(r1));
	memset(r2, 2, sizeof(r2));
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag(MB2_TAG_ACPI_OLD, r1, 20);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.rsdp_source, BOOT_RSDP_ACPI10);
	CHECK_EQ_U(x.rsdp_len, 20);

	begin();
	tag_mmap(qemu_map, 7, 24);
	tag(MB2_TAG_ACPI_NEW, r2, 36);
	tag(MB2_TAG_ACPI_OLD, r1, 20);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.rsdp_source, BOOT_RSDP_ACPI20);
	CHECK_EQ_U(x.rsdp[0], 2);

	begin();
	tag_mmap(qemu_map, 7, 24);
	tag(MB2_TAG_ACPI_NEW, r2, 30); /* too short for an ACPI 2.0 RSDP: ignored */
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.rsdp_source, BOOT_RSDP_NONE);
	CHECK_EQ_U(x.rsdp_len, 0);
}

static void tag_fb(uint64_t addr, uint32_t pitch, uint32_t w, uint32_t h, uint8_t bpp, uint8_t type,
		   const uint8_t rgb[6], size_t extra)
{
	uint8_t body[64];
	memset(body, 0, sizeof(body));
	memcpy(body, &addr, 8);
	memcpy(body + 8, &pitch, 4);
	memcpy(body + 12, &w, 4);
	memcpy(body + 16, &h, 4);
	body[20] = bpp;
	body[21] = type;
	if (rgb)
		memcpy(body + 24, rgb, 6);
	tag(MB2_TAG_FRAMEBUFFER, body, 24 + extra);
}

TEST(framebuffer_formats)
{
	static const uint8_t bgrx[6] = { 16, 8, 8, 8, 0, 8 }, rgbx[6] = { 0, 8, 8, 8, 16, 8 };
	static const uint8_t odd[6] = { 11, 5, 5, 6, 0, 5 };
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 5120, 1280, 800, 32, MB2_FB_RGB, bgrx, 6);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.base, 0xfd000000);
	CHECK_EQ_U(bi.fb.format, BOOT_FB_BGRX);
	CHECK_EQ_U(bi.fb.width, 1280);
	CHECK_EQ_U(bi.fb.height, 800);
	CHECK_EQ_U(bi.fb.pitch, 5120);
	CHECK_EQ_U(bi.fb.size, 5120ull * 800);

	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 4096, 1024, 768, 32, MB2_FB_RGB, rgbx, 6);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.format, BOOT_FB_RGBX);

	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 4096, 1024, 768, 32, MB2_FB_RGB, odd, 6);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.format, BOOT_FB_BITMASK);
	CHECK_EQ_U(bi.fb.mask_red, 0x1f << 11);
	CHECK_EQ_U(bi.fb.mask_green, 0x3f << 5);
	CHECK_EQ_U(bi.fb.mask_blue, 0x1f);

	/* Unusable: 16 bpp, EGA text, pitch below width, colour info cut off. */
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 2048, 1024, 768, 16, MB2_FB_RGB, odd, 6);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.format, BOOT_FB_NONE);
	CHECK_EQ_U(bi.fb.base, 0);
	CHECK_EQ_U(x.fb_bpp, 16);
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xb8000, 160, 80, 25, 16, MB2_FB_EGA_TEXT, 0, 0);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.base, 0);
	CHECK_EQ_U(x.fb_type, MB2_FB_EGA_TEXT);
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 100, 1024, 768, 32, MB2_FB_RGB, bgrx, 6);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.base, 0);
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_fb(0xfd000000, 4096, 1024, 768, 32, MB2_FB_RGB, bgrx, 3);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(bi.fb.base, 0);
}

TEST(basic_meminfo_is_the_fallback)
{
	uint32_t mi[2] = { 639, 1047552 }; /* KiB below 640 K, and above 1 MiB */
	begin();
	tag(MB2_TAG_BASIC_MEMINFO, mi, 8);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(x.mem_source, MB2_MEMSRC_BASIC);
	CHECK_EQ_U(x.raw_count, 2);
	CHECK_EQ_U(raw[0].length, 639 * 1024);
	CHECK_EQ_U(raw[1].base, MIB);
	CHECK_EQ_U(raw[1].length, 1047552ull * 1024);

	begin(); /* a memory map wins over basic meminfo, wherever it comes */
	tag_mmap(qemu_map, 7, 24);
	tag(MB2_TAG_BASIC_MEMINFO, mi, 8);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(x.mem_source, MB2_MEMSRC_MMAP);
	CHECK_EQ_U(x.raw_count, 7);
}

TEST(larger_entry_size_and_last_map_wins)
{
	begin();
	tag_mmap(qemu_map, 7, 24);
	tag_mmap(qemu_map + 3, 2, 32);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(x.raw_count, 2);
	CHECK_EQ_U(raw[0].base, 0x100000);
	CHECK_EQ_U(raw[1].base, 0x3ffe0000);
}

TEST(map_past_the_buffer_is_counted_as_dropped)
{
	begin();
	tag_mmap(qemu_map, 7, 24);
	finish();
	memset(&x, 0, sizeof(x));
	x.raw = raw;
	x.raw_cap = 3;
	CHECK_EQ_U(mb2_parse(buf, used, &bi, &x), MB2_OK);
	CHECK_EQ_U(x.raw_count, 3);
	CHECK_EQ_U(x.raw_dropped, 4);
}

TEST(malformed_info_is_refused)
{
	CHECK_EQ_U(mb2_parse(0, 100, &bi, &x), MB2_ERR_ARGS);
	begin();
	tag_mmap(qemu_map, 7, 24);
	size_t len = finish();
	CHECK_EQ_U(parse(len - 1), MB2_ERR_SIZE);   /* total_size beyond max_len */
	CHECK_EQ_U(parse(7), MB2_ERR_SIZE);
	put32(0, 8);
	CHECK_EQ_U(parse(len), MB2_ERR_SIZE);       /* no room for any tag */

	begin();
	tag_mmap(qemu_map, 7, 24);
	len = finish();
	put32(8 + 4, 4);                            /* tag size below 8 */
	CHECK_EQ_U(parse(len), MB2_ERR_TAG);
	put32(8 + 4, 4096);                         /* tag past total_size */
	CHECK_EQ_U(parse(len), MB2_ERR_TAG);

	begin();
	tag_mmap(qemu_map, 7, 16);                  /* entry_size below 24 */
	CHECK_EQ_U(parse(finish()), MB2_ERR_TAG);

	begin();
	tag_mmap(qemu_map, 7, 24);
	len = used;                                 /* no end tag */
	put32(0, (uint32_t)len);
	CHECK_EQ_U(parse(len), MB2_ERR_NO_END);

	begin();
	tag_str(MB2_TAG_CMDLINE, "a=1");
	CHECK_EQ_U(parse(finish()), MB2_ERR_NO_MEMORY);
	CHECK(strcmp(mb2_status_name(MB2_ERR_NO_MEMORY), "unknown error") != 0);
}

TEST(unknown_tags_are_skipped)
{
	begin();
	tag(3, "mod", 3);
	tag(99, "whatever", 8);
	tag(12, "\x10\x20\x30\x40\0\0\0\0", 8);
	tag_mmap(qemu_map, 7, 24);
	CHECK_EQ_U(parse(finish()), MB2_OK);
	CHECK_EQ_U(x.unknown_tags, 2);
	CHECK_EQ_U(x.efi_systab, 1);
}

/* Random bytes and random mutations of a good info must never read out of
 * bounds (ASan checks the heap copy) and always end with a status. */
TEST(fuzz_smoke)
{
	srand(7);
	begin();
	tag_str(MB2_TAG_CMDLINE, "/k profile=quick");
	tag_mmap(qemu_map, 7, 24);
	uint8_t rsdp[36] = { 0 };
	tag(MB2_TAG_ACPI_NEW, rsdp, 36);
	size_t len = finish();
	uint8_t good[8192];
	memcpy(good, buf, len);
	for (int round = 0; round < 20000; round++) {
		size_t n = (size_t)rand() % (len + 1);
		uint8_t *heap = malloc(n ? n : 1);
		memcpy(heap, good, n);
		for (int k = rand() % 4; k >= 0 && n; k--)
			heap[(size_t)rand() % n] = (uint8_t)rand();
		memset(&x, 0, sizeof(x));
		x.raw = raw;
		x.raw_cap = 64;
		int st = mb2_parse(heap, n, &bi, &x);
		CHECK(st >= MB2_OK && st <= MB2_ERR_NO_MEMORY);
		CHECK(strlen(bi.cmdline) < sizeof(bi.cmdline));
		CHECK(x.raw_count <= 64);
		free(heap);
	}
}

/* ---- placement ------------------------------------------------------------------ */

static uint32_t qemu_normalised(struct boot_mem_range *out)
{
	begin();
	tag_mmap(qemu_map, 7, 24);
	parse(finish());
	return mmap_normalise(raw, x.raw_count, out, 64, 0);
}

TEST(find_avoids_busy_spans)
{
	struct boot_mem_range m[64];
	uint32_t n = qemu_normalised(m);
	struct mb2_span busy[2] = { { 0x200000, 0x668000 }, { 0x668000, 0x669123 } };
	uint64_t a = mb2_mem_find(m, n, 12 * PG, MIB, 1ull << 32, busy, 2);
	CHECK_EQ_U(a, 0x100000);
	a = mb2_mem_find(m, n, 2 * MIB, MIB, 1ull << 32, busy, 2);
	CHECK_EQ_U(a, 0x66a000);
	/* Nothing fits: bigger than RAM, or a window with no usable RAM. */
	CHECK_EQ_U(mb2_mem_find(m, n, 2ull << 30, MIB, 1ull << 32, busy, 2), 0);
	CHECK_EQ_U(mb2_mem_find(m, n, PG, 0xb0000000, 0xc0000000, busy, 2), 0);
	CHECK_EQ_U(mb2_mem_find(m, n, 0, MIB, 1ull << 32, busy, 2), 0);
}

TEST(trampoline_is_the_highest_free_low_page)
{
	struct boot_mem_range m[64];
	uint32_t n = qemu_normalised(m);
	CHECK_EQ_U(mb2_mem_find_high_page(m, n, PG, MIB, 0, 0), 0x9e000);
	struct mb2_span busy[1] = { { 0x90000, 0x9f000 } };
	CHECK_EQ_U(mb2_mem_find_high_page(m, n, PG, MIB, busy, 1), 0x8f000);
	struct mb2_span all[1] = { { 0, MIB } };
	CHECK_EQ_U(mb2_mem_find_high_page(m, n, PG, MIB, all, 1), 0);
	struct boot_mem_range only0[1] = { { 0, PG, BOOT_MEM_USABLE, 0 } };
	CHECK_EQ_U(mb2_mem_find_high_page(only0, 1, 0, MIB, 0, 0), 0); /* page 0 is never chosen */
}

TEST(loader_spans_are_carved_out)
{
	struct boot_mem_range m[64], r[80], out[80];
	uint32_t n = qemu_normalised(m);
	struct mb2_span sp[3] = { { 0x200000, 0x668000 }, { 0x100000, 0x10c000 }, { 0x9e000, 0x9f000 } };
	uint32_t k = mb2_mem_with_loader(m, n, sp, 3, r, 80);
	CHECK_EQ_U(k, n + 3);
	uint32_t o = mmap_normalise(r, k, out, 80, 0);
	uint64_t loader = mmap_total(out, o, BOOT_MEM_LOADER);
	CHECK_EQ_U(loader, 0x468000 + 0xc000 + PG);
	CHECK_EQ_U(mmap_total(out, o, BOOT_MEM_USABLE) + loader,
		   mmap_total(m, n, BOOT_MEM_USABLE));
	CHECK_EQ_U(mb2_mem_with_loader(m, n, sp, 3, r, 2), 2); /* bounded by cap */
}

int main(void)
{
	RUN(grub_like_info_parses);
	RUN(cmdline_without_path_is_kept_and_nonascii_replaced);
	RUN(long_cmdline_is_truncated_and_flagged);
	RUN(unterminated_string_stops_at_the_tag_end);
	RUN(old_rsdp_alone_is_acpi10_and_never_beats_new);
	RUN(framebuffer_formats);
	RUN(basic_meminfo_is_the_fallback);
	RUN(larger_entry_size_and_last_map_wins);
	RUN(map_past_the_buffer_is_counted_as_dropped);
	RUN(malformed_info_is_refused);
	RUN(unknown_tags_are_skipped);
	RUN(fuzz_smoke);
	RUN(find_avoids_busy_spans);
	RUN(trampoline_is_the_highest_free_low_page);
	RUN(loader_spans_are_carved_out);
	return check_summary("mb2");
}
