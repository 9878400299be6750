/* test_fbcon.c - host tests for kernel/fbcon.c and fbcon_px.c: text drawn into in-memory framebuffers of several sizes and formats, checked pixel by pixel against the font. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "console.h"
#include "fbcon.h"
#include "paging.h"

/* kernel/fbcon.c's colours (0xRRGGBB), restated so a change is a visible decision. */
#define BODY_FG 0xd0d0d0u
#define BODY_BG 0x000000u
#define HEAD_FG 0xffffffu
#define HEAD_BG 0x1c3f73u
#define STAT_FG 0x101010u
#define STAT_BG 0xc8c8c8u
#define ERR_FG 0xff5a5au
#define TITLE_FG 0xffe070u
#define CANARY 0xa5a5a5a5u
#define TAIL_WORDS 1024 /* canary words after the framebuffer */

/* ---- Stubs ------------------------------------------------------------------ */
static int n_errors;
static char last_what[64], last_detail[256];
static bool map_fails;

void console_error(const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_detail, sizeof(last_detail), fmt, ap);
	va_end(ap);
	snprintf(last_what, sizeof(last_what), "%s", what);
	n_errors++;
}

void *paging_map_mmio(uint64_t phys, uint64_t size)
{
	(void)size;
	return map_fails ? NULL : (void *)(uintptr_t)phys;
}

/* ---- A framebuffer in memory -------------------------------------------------- */
struct fake {
	uint32_t *mem;
	size_t words;             /* framebuffer words, canary tail excluded */
	struct boot_fb fb;
	uint32_t scale, cw, ch, cols, rows;
};

static struct fake fake;

static void fake_free(void)
{
	free(fake.mem);
	memset(&fake, 0, sizeof(fake));
}

/* A fresh fbcon and a canary-filled framebuffer of w x h with pitch_px pixels per line. */
static struct boot_fb *fake_new(uint32_t w, uint32_t h, uint32_t pitch_px, uint32_t format)
{
	fake_free();
	fbcon_test_reset();
	n_errors = 0;
	map_fails = false;
	fake.words = (size_t)pitch_px * h;
	fake.mem = malloc((fake.words + TAIL_WORDS) * sizeof(uint32_t));
	for (size_t i = 0; i < fake.words + TAIL_WORDS; i++)
		fake.mem[i] = CANARY;
	fake.fb.base = (uint64_t)(uintptr_t)fake.mem;
	fake.fb.size = (uint64_t)fake.words * 4;
	fake.fb.width = w;
	fake.fb.height = h;
	fake.fb.pitch = pitch_px * 4;
	fake.fb.format = format;
	fake.scale = w >= 1920 ? 2 : 1;
	fake.cw = fbcon_font.width * fake.scale;
	fake.ch = fbcon_font.height * fake.scale;
	fake.cols = w / fake.cw < FBCON_MAX_COLS ? w / fake.cw : FBCON_MAX_COLS;
	fake.rows = h / fake.ch < FBCON_MAX_ROWS ? h / fake.ch : FBCON_MAX_ROWS;
	return &fake.fb;
}

/* The pixel an 0xRRGGBB colour becomes, worked out from the byte layout. */
static uint32_t encode(uint32_t rgb)
{
	uint8_t r = (uint8_t)(rgb >> 16), g = (uint8_t)(rgb >> 8), b = (uint8_t)rgb;
	uint8_t bytes[4] = { 0, 0, 0, 0 };
	uint32_t px;
	switch (fake.fb.format) {
	case BOOT_FB_RGBX:
		bytes[0] = r, bytes[1] = g, bytes[2] = b;
		break;
	case BOOT_FB_BGRX:
		bytes[0] = b, bytes[1] = g, bytes[2] = r;
		break;
	default: { /* BITMASK: each channel's 8 bits spread over its mask, low bit first */
		uint32_t v = 0;
		uint32_t masks[3] = { fake.fb.mask_red, fake.fb.mask_green, fake.fb.mask_blue };
		uint8_t chans[3] = { r, g, b };
		for (int c = 0; c < 3; c++) {
			int k = 0;
			for (int bit = 0; bit < 32; bit++)
				if (masks[c] >> bit & 1)
					v |= (uint32_t)(chans[c] >> k++ & 1) << bit;
		}
		return v;
	}
	}
	memcpy(&px, bytes, 4);
	return px;
}

static uint32_t px_at(uint32_t x, uint32_t y)
{
	return fake.mem[(size_t)y * (fake.fb.pitch / 4) + x];
}

static bool glyph_bit(uint8_t ch, uint32_t gx, uint32_t gy)
{
	const struct fbcon_font *f = &fbcon_font;
	uint32_t g = ch >= f->first && ch - f->first < f->count ? ch - f->first : f->count;
	const uint8_t *row = f->bits + ((size_t)g * f->height + gy) * f->row_bytes;
	return row[gx / 8] >> (7 - gx % 8) & 1;
}

/* Pixels of cell (col, row) that differ from ch drawn in fg on bg. */
static int cell_mismatches(uint32_t col, uint32_t row, uint8_t ch, uint32_t fg_rgb, uint32_t bg_rgb)
{
	uint32_t fg = encode(fg_rgb), bg = encode(bg_rgb);
	int bad = 0;
	for (uint32_t y = 0; y < fake.ch; y++)
		for (uint32_t x = 0; x < fake.cw; x++) {
			bool on = glyph_bit(ch, x / fake.scale, y / fake.scale);
			bad += px_at(col * fake.cw + x, row * fake.ch + y) != (on ? fg : bg);
		}
	return bad;
}

/* True if cell (col, row) is exactly ch in fg on bg (stops at the first wrong pixel). */
static bool cell_is(uint32_t col, uint32_t row, uint8_t ch, uint32_t fg, uint32_t bg)
{
	for (uint32_t y = 0; y < fake.ch; y++)
		for (uint32_t x = 0; x < fake.cw; x++)
			if (px_at(col * fake.cw + x, row * fake.ch + y) !=
			    (glyph_bit(ch, x / fake.scale, y / fake.scale) ? fg : bg))
				return false;
	return true;
}

/* Read grid row `row` back as text in the given colours ('#' where no glyph fits). */
static void row_text(uint32_t row, uint32_t fg, uint32_t bg, char *out)
{
	uint32_t c = 0;
	for (; c < fake.cols; c++) {
		out[c] = '#';
		for (int ch = ' '; ch <= '~'; ch++)
			if (cell_is(c, row, (uint8_t)ch, encode(fg), encode(bg))) {
				out[c] = (char)ch;
				break;
			}
	}
	while (c > 0 && out[c - 1] == ' ')
		c--;
	out[c] = 0;
}

static char text_buf[FBCON_MAX_COLS + 1];

static const char *body_row(uint32_t r)
{
	row_text(FBCON_HEADER_ROWS + r, BODY_FG, BODY_BG, text_buf);
	return text_buf;
}

static uint32_t body_rows(void)
{
	return fake.rows - FBCON_HEADER_ROWS - 1;
}

static bool tail_intact(void)
{
	for (size_t i = fake.words; i < fake.words + TAIL_WORDS; i++)
		if (fake.mem[i] != CANARY)
			return false;
	return true;
}

static void write_str(const char *s)
{
	fbcon_write(s, strlen(s));
}

/* ---- Tests ------------------------------------------------------------------- */
TEST(no_framebuffer_is_a_no_op)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	fb->base = 0;
	CHECK(!fbcon_init(fb));
	CHECK(!fbcon_active());
	write_str("hello\n");
	fbcon_set_header("a", "b");
	fbcon_set_status("s");
	fbcon_summary_add("x");
	fbcon_show_summary();
	CHECK_EQ_U(n_errors, 0);
	for (size_t i = 0; i < fake.words; i++)
		if (fake.mem[i] != CANARY) {
			CHECK(!"framebuffer touched");
			break;
		}
}

TEST(unknown_format_refused_once)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_NONE);
	CHECK(!fbcon_init(fb));
	CHECK(!fbcon_active());
	CHECK_EQ_U(n_errors, 1);
	CHECK_STR(last_what, "framebuffer");
	CHECK(strstr(last_detail, "pixel format 0") != NULL);
	CHECK(!fbcon_init(fb)); /* asked again: still off, no second record */
	CHECK_EQ_U(n_errors, 1);
	write_str("text after the refusal\n");
	fbcon_show_summary();
	for (size_t i = 0; i < fake.words; i++)
		if (fake.mem[i] != CANARY) {
			CHECK(!"framebuffer touched");
			break;
		}

	fb = fake_new(640, 480, 640, 7);
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);
}

TEST(sixteen_bit_masks_refused)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BITMASK);
	fb->mask_red = 0xf800, fb->mask_green = 0x07e0, fb->mask_blue = 0x001f; /* RGB565 */
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_detail, "8 bits per channel") != NULL);

	fb = fake_new(640, 480, 640, BOOT_FB_BITMASK);
	fb->mask_red = 0xff0000, fb->mask_green = 0xff0000, fb->mask_blue = 0xff; /* overlapping */
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);
}

TEST(bad_geometry_refused)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	fb->pitch = 639 * 4; /* shorter than a line */
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	fb->pitch = 640 * 4 + 2; /* not whole pixels */
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(200, 60, 200, BOOT_FB_RGBX); /* 25x3 cells: too small */
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	map_fails = true;
	CHECK(!fbcon_init(fb));
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_detail, "cannot map") != NULL);
}

TEST(text_cells_match_the_font)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	CHECK(fbcon_active());
	CHECK_EQ_U(n_errors, 0);
	write_str("Hi! {QuietBench} 0123456789\n");
	const char *want = "Hi! {QuietBench} 0123456789";
	for (uint32_t c = 0; c < strlen(want); c++)
		CHECK_EQ_U(cell_mismatches(c, FBCON_HEADER_ROWS, (uint8_t)want[c], BODY_FG, BODY_BG), 0);
	CHECK_STR(body_row(0), want);
	CHECK_STR(body_row(1), "");
	/* default header before machine_report_boot: the name, on the header colours */
	row_text(0, HEAD_FG, HEAD_BG, text_buf);
	CHECK(!strncmp(text_buf, " QuietBench ", 12));
	CHECK_EQ_U(cell_mismatches(0, 0, ' ', HEAD_FG, HEAD_BG), 0);
	CHECK_EQ_U(cell_mismatches(fake.cols - 1, fake.rows - 1, ' ', STAT_FG, STAT_BG), 0);
	CHECK(tail_intact());
}

TEST(every_format_places_the_channels)
{
	static const struct { uint32_t format, r, g, b; } cases[] = {
		{ BOOT_FB_RGBX, 0, 0, 0 },
		{ BOOT_FB_BGRX, 0, 0, 0 },
		{ BOOT_FB_BITMASK, 0x00ff0000, 0x0000ff00, 0x000000ff },
		{ BOOT_FB_BITMASK, 0x000000ff, 0x0000ff00, 0x00ff0000 },
		{ BOOT_FB_BITMASK, 0xff000000, 0x00ff0000, 0x0000ff00 }, /* reserved byte lowest */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct boot_fb *fb = fake_new(800, 600, 800, cases[i].format);
		fb->mask_red = cases[i].r, fb->mask_green = cases[i].g, fb->mask_blue = cases[i].b;
		CHECK(fbcon_init(fb));
		write_str("RGB ok\n");
		CHECK_STR(body_row(0), "RGB ok");
		CHECK_EQ_U(px_at(0, 0), encode(HEAD_BG));
		CHECK_EQ_U(cell_mismatches(0, FBCON_HEADER_ROWS, 'R', BODY_FG, BODY_BG), 0);
	}
	/* and the encodings are what the formats say, not merely self-consistent */
	fake_new(800, 600, 800, BOOT_FB_RGBX);
	CHECK_EQ_U(encode(0x1c3f73), 0x00733f1c);
	fake.fb.format = BOOT_FB_BGRX;
	CHECK_EQ_U(encode(0x1c3f73), 0x001c3f73);
	fake.fb.format = BOOT_FB_BITMASK;
	fake.fb.mask_red = 0xff000000, fake.fb.mask_green = 0xff0000, fake.fb.mask_blue = 0xff00;
	CHECK_EQ_U(encode(0x1c3f73), 0x1c3f7300);
}

TEST(pitch_padding_and_size_respected)
{
	struct boot_fb *fb = fake_new(800, 600, 832, BOOT_FB_RGBX);
	CHECK(fbcon_init(fb));
	for (int i = 0; i < 200; i++)
		write_str("a line long enough to reach past the middle of the screen, with some more words after it\n");
	bool pad_ok = true;
	for (uint32_t y = 0; y < 600; y++)
		for (uint32_t x = 800; x < 832; x++)
			pad_ok &= px_at(x, y) == CANARY;
	CHECK(pad_ok);
	CHECK(tail_intact());

	/* a size short of pitch x height: the screen ends where the memory does */
	fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	fb->size = 640 * 4 * 400;
	CHECK(fbcon_init(fb));
	for (int i = 0; i < 100; i++)
		write_str("scrolling in a shortened screen\n");
	fbcon_set_status("status at the bottom of the memory");
	bool beyond_ok = true;
	for (size_t i = 640 * 400; i < fake.words; i++)
		beyond_ok &= fake.mem[i] == CANARY;
	CHECK(beyond_ok);
	CHECK_EQ_U(cell_mismatches(1, 400 / fake.ch - 1, 's', STAT_FG, STAT_BG), 0);
}

TEST(wrap_return_and_tab)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	CHECK_EQ_U(fake.cols, 640 / fbcon_font.width);
	char line[200];
	memset(line, 'x', fake.cols + 3);
	line[fake.cols + 3] = 0;
	write_str(line);
	line[fake.cols] = 0;
	CHECK_STR(body_row(0), line);
	CHECK_STR(body_row(1), "xxx");
	write_str("\nabc\rX\n");
	CHECK_STR(body_row(2), "Xbc");
	write_str("a\tb\n12345\tc\n1234567\td\n\t\te\n");
	CHECK_STR(body_row(3), "a       b");
	CHECK_STR(body_row(4), "12345   c");
	CHECK_STR(body_row(5), "1234567 d");
	CHECK_STR(body_row(6), "                e");
	/* a tab near the right edge stops there; the next character wraps */
	memset(line, 'y', fake.cols - 2);
	line[fake.cols - 2] = 0;
	write_str(line);
	write_str("\tz\n");
	CHECK_STR(body_row(8), "z");
}

/* Which "line i" each body row should show after lines 0..n-1, by the rule in
 * fbcon.h: at the bottom the body moves up by a quarter of its rows (-1: empty). */
static void model_scroll(uint32_t n, uint32_t br, int *vis)
{
	uint32_t jump = br / FBCON_SCROLL_DIV > 0 ? br / FBCON_SCROLL_DIV : 1, row = 0;
	for (uint32_t r = 0; r < br; r++)
		vis[r] = -1;
	for (uint32_t i = 0; i < n; i++) {
		vis[row] = (int)i;
		if (row + 1 < br) {
			row++;
			continue;
		}
		memmove(vis, vis + jump, (br - jump) * sizeof(int));
		for (uint32_t r = br - jump; r < br; r++)
			vis[r] = -1;
		row = br - jump;
	}
}

TEST(scrolls_keeping_header_and_status)
{
	static const uint32_t sizes[][2] = { { 640, 480 }, { 800, 600 }, { 1024, 768 } };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct boot_fb *fb = fake_new(sizes[k][0], sizes[k][1], sizes[k][0], BOOT_FB_BGRX);
		CHECK(fbcon_init(fb));
		fbcon_set_header("QuietBench test | Some CPU", "4 of 4 CPUs online");
		fbcon_set_status("workload 1 of 2: selftest");
		char buf[64];
		int vis[FBCON_MAX_ROWS];
		for (uint32_t n = 1; n <= 3 * body_rows() + 5; n++) {
			snprintf(buf, sizeof(buf), "line %u\n", n - 1);
			write_str(buf);
			if (n % 7 && n != 3 * body_rows() + 5)
				continue; /* reading the screen back is slow: look every 7 lines */
			model_scroll(n, body_rows(), vis);
			for (uint32_t r = 0; r < body_rows(); r++) {
				if (vis[r] >= 0)
					snprintf(buf, sizeof(buf), "line %d", vis[r]);
				else
					buf[0] = 0;
				CHECK_STR(body_row(r), buf);
			}
		}
		row_text(0, HEAD_FG, HEAD_BG, text_buf);
		CHECK_STR(text_buf, " QuietBench test | Some CPU");
		row_text(1, HEAD_FG, HEAD_BG, text_buf);
		CHECK_STR(text_buf, " 4 of 4 CPUs online");
		row_text(fake.rows - 1, STAT_FG, STAT_BG, text_buf);
		CHECK_STR(text_buf, " workload 1 of 2: selftest");
	}
	fbcon_set_status("workload 2 of 2: counter");
	row_text(fake.rows - 1, STAT_FG, STAT_BG, text_buf);
	CHECK_STR(text_buf, " workload 2 of 2: counter");
	fbcon_set_header(NULL, "");
	row_text(0, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, "");
}

TEST(scroll_redraws_only_changed_cells)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	uint32_t br = body_rows(), jump = br / FBCON_SCROLL_DIV;
	for (uint32_t i = 0; i + 1 < br; i++)
		write_str("same\n"); /* the cursor is now on the last body row */
	/* Spoil one pixel of an 's' that the scroll leaves in place, and one of a
	 * cell that changes; only the second is drawn again. */
	uint32_t y = FBCON_HEADER_ROWS * fake.ch;
	fake.mem[(size_t)y * 640 + 1] = CANARY;
	uint32_t y2 = (FBCON_HEADER_ROWS + br - 1 - jump) * fake.ch;
	fake.mem[(size_t)y2 * 640 + 4 * fake.cw + 1] = CANARY; /* after "same": becomes 'X' */
	write_str("sameX\n");
	CHECK_EQ_U(px_at(1, y), CANARY);
	CHECK(px_at(4 * fake.cw + 1, y2) != CANARY);
	CHECK_STR(body_row(br - 1 - jump), "sameX");
	for (uint32_t r = br - jump; r < br; r++)
		CHECK_STR(body_row(r), "");
}

TEST(error_lines_are_red)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	CHECK(fbcon_init(fb));
	write_str("error: framebuffer: something\nerror-free line\n");
	row_text(FBCON_HEADER_ROWS, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "error: framebuffer: something");
	CHECK_STR(body_row(1), "error-free line");
	char line[200];
	memset(line, 'e', fake.cols + 4);
	memcpy(line, "error:", 6);
	line[fake.cols + 4] = 0;
	write_str(line);
	write_str("\nplain\n");
	row_text(FBCON_HEADER_ROWS + 2, ERR_FG, BODY_BG, text_buf);
	CHECK(!strncmp(text_buf, "error:eeee", 10) && strlen(text_buf) == fake.cols);
	row_text(FBCON_HEADER_ROWS + 3, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "eeee"); /* the wrapped part stays red */
	CHECK_STR(body_row(4), "plain");
}

TEST(bytes_outside_the_font_get_the_replacement_glyph)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	write_str("a\x01\x7f\xe9z\n");
	const uint8_t rep = 0x01; /* any byte outside 0x20..0x7e draws glyph `count` */
	CHECK_EQ_U(cell_mismatches(0, FBCON_HEADER_ROWS, 'a', BODY_FG, BODY_BG), 0);
	for (uint32_t c = 1; c <= 3; c++)
		CHECK_EQ_U(cell_mismatches(c, FBCON_HEADER_ROWS, rep, BODY_FG, BODY_BG), 0);
	CHECK_EQ_U(cell_mismatches(4, FBCON_HEADER_ROWS, 'z', BODY_FG, BODY_BG), 0);
	CHECK(cell_mismatches(1, FBCON_HEADER_ROWS, ' ', BODY_FG, BODY_BG) > 0); /* a visible glyph */
}

TEST(text_before_init_is_drawn_at_init)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	write_str("QuietBench: noise-free\nerror: option x=y\n");
	fbcon_set_header("early header", NULL);
	CHECK(fbcon_init(fb));
	CHECK_STR(body_row(0), "QuietBench: noise-free");
	row_text(FBCON_HEADER_ROWS + 1, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "error: option x=y");
	row_text(0, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " early header");
	/* a flood before init is bounded */
	fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	for (int i = 0; i < 10000; i++)
		write_str("flood before the screen is up\n");
	CHECK(fbcon_init(fb));
	CHECK(tail_intact());
}

TEST(summary_replaces_the_body_and_stays)
{
	struct boot_fb *fb = fake_new(1024, 768, 1024, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	for (int i = 0; i < 100; i++)
		write_str("workload output that the summary replaces\n");
	fbcon_summary_add("selftest          101 ms  ok, 0 error record(s)");
	fbcon_summary_add("counter: packed 8 threads 1489% of 1 thread, padded 100%");
	fbcon_summary_add("locality          900 ms  FAIL, 1 error record(s)");
	fbcon_set_status("done: status ok");
	fbcon_show_summary();
	row_text(FBCON_HEADER_ROWS, TITLE_FG, BODY_BG, text_buf);
	CHECK(!strncmp(text_buf, " Summary", 8));
	CHECK_STR(body_row(1), "");
	CHECK_STR(body_row(2), " selftest          101 ms  ok, 0 error record(s)");
	CHECK_STR(body_row(3), " counter: packed 8 threads 1489% of 1 thread, padded 100%");
	row_text(FBCON_HEADER_ROWS + 4, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " locality          900 ms  FAIL, 1 error record(s)");
	for (uint32_t r = 5; r < body_rows(); r++)
		CHECK_STR(body_row(r), "");
	row_text(fake.rows - 1, STAT_FG, STAT_BG, text_buf);
	CHECK_STR(text_buf, " done: status ok");
	/* frozen: later text leaves the screen as it is */
	uint32_t *copy = malloc(fake.words * 4);
	memcpy(copy, fake.mem, fake.words * 4);
	write_str("quietbench: halted; results above\n");
	CHECK(!memcmp(copy, fake.mem, fake.words * 4));
	free(copy);
}

TEST(summary_keeps_the_error_lines)
{
	struct boot_fb *fb = fake_new(1280, 1024, 1280, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	write_str("error: exception: page fault (vector 14) at rip 0xffffffff80001234 on cpu 1\n");
	for (int i = 0; i < 100; i++)
		write_str("other text, and a line that merely mentions error: in the middle\n");
	write_str("\nfatal:\tsecond\n");
	fbcon_summary_add("selftest          101 ms  FAIL, 1 error record(s)");
	fbcon_show_summary();
	row_text(FBCON_HEADER_ROWS + 2, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " selftest          101 ms  FAIL, 1 error record(s)");
	CHECK_STR(body_row(3), "");
	row_text(FBCON_HEADER_ROWS + 4, TITLE_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " Errors: 2 line(s) during the run:");
	row_text(FBCON_HEADER_ROWS + 5, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " error: exception: page fault (vector 14) at rip 0xffffffff80001234 on cpu 1");
	row_text(FBCON_HEADER_ROWS + 6, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " fatal:  second");
	CHECK_STR(body_row(7), "");

	/* many errors: the first ones are kept, the rest counted */
	fb = fake_new(1280, 960, 1280, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	char buf[64];
	for (int i = 0; i < 30; i++) {
		snprintf(buf, sizeof(buf), "error: number %d\n", i);
		write_str(buf);
	}
	fbcon_show_summary();
	row_text(FBCON_HEADER_ROWS + 3, TITLE_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " Errors: 30 line(s) during the run, the first ones:");
	row_text(FBCON_HEADER_ROWS + 4, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " error: number 0");
	row_text(FBCON_HEADER_ROWS + 11, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " error: number 7");
	row_text(FBCON_HEADER_ROWS + 12, TITLE_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " ... and 22 more lines that do not fit");
}

TEST(summary_overflow_is_counted)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX); /* 8x16: 30 rows, 27 body rows */
	CHECK(fbcon_init(fb));
	char buf[64];
	for (int i = 0; i < FBCON_SUMMARY_LINES + 36; i++) {
		snprintf(buf, sizeof(buf), "summary line %d", i);
		fbcon_summary_add(buf);
	}
	fbcon_show_summary();
	uint32_t room = body_rows() - 2, shown = room - 1;
	for (uint32_t i = 0; i < shown; i++) {
		snprintf(buf, sizeof(buf), " summary line %u", i);
		CHECK_STR(body_row(2 + i), buf);
	}
	row_text(FBCON_HEADER_ROWS + 2 + shown, TITLE_FG, BODY_BG, text_buf);
	snprintf(buf, sizeof(buf), " ... and %u more lines that do not fit", FBCON_SUMMARY_LINES + 36 - shown);
	CHECK_STR(text_buf, buf);
}

TEST(large_screens_double_the_font)
{
	struct boot_fb *fb = fake_new(1920, 1080, 1920, BOOT_FB_RGBX);
	CHECK(fbcon_init(fb));
	CHECK_EQ_U(fake.scale, 2);
	CHECK_EQ_U(fake.cols, 1920 / (2 * fbcon_font.width)); /* 120 x 33 with the 8x16 font */
	CHECK_EQ_U(fake.rows, 1080 / (2 * fbcon_font.height));
	write_str("Scaled glyphs: W@g|\n");
	CHECK_STR(body_row(0), "Scaled glyphs: W@g|");
	CHECK_EQ_U(cell_mismatches(15, FBCON_HEADER_ROWS, 'W', BODY_FG, BODY_BG), 0);
	fbcon_set_status("status");
	row_text(fake.rows - 1, STAT_FG, STAT_BG, text_buf);
	CHECK_STR(text_buf, " status");
	/* 8x16: 1080 = 33 * 32 + 24, and the 24 lines below the grid stay background */
	if (1080 % fake.ch)
		CHECK_EQ_U(px_at(5, 1079), encode(BODY_BG));

	/* wider than the grid bound: the grid stops at FBCON_MAX_COLS cells */
	uint32_t wide = (FBCON_MAX_COLS + 19) * 2 * fbcon_font.width; /* 4400 with the 8x16 font */
	fb = fake_new(wide, 400, wide, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb));
	CHECK_EQ_U(fake.cols, FBCON_MAX_COLS);
	char line[400];
	memset(line, 'M', 300);
	line[300] = 0;
	write_str(line);
	bool right_clear = true;
	for (uint32_t y = 0; y < 400; y++)
		for (uint32_t x = FBCON_MAX_COLS * fake.cw; x < wide; x++)
			right_clear &= px_at(x, y) == encode(BODY_BG);
	CHECK(right_clear);
	CHECK(tail_intact());
}

TEST(failures_are_counted)
{
	fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK_EQ_U(fbcon_failures(), 0);
	fbcon_note_failure();
	fbcon_note_failure();
	CHECK_EQ_U(fbcon_failures(), 2);
}

int main(void)
{
	CHECK_EQ_U(fbcon_font.count, 95);
	CHECK_EQ_U(fbcon_font.first, ' ');
	RUN(no_framebuffer_is_a_no_op);
	RUN(unknown_format_refused_once);
	RUN(sixteen_bit_masks_refused);
	RUN(bad_geometry_refused);
	RUN(text_cells_match_the_font);
	RUN(every_format_places_the_channels);
	RUN(pitch_padding_and_size_respected);
	RUN(wrap_return_and_tab);
	RUN(scrolls_keeping_header_and_status);
	RUN(scroll_redraws_only_changed_cells);
	RUN(error_lines_are_red);
	RUN(bytes_outside_the_font_get_the_replacement_glyph);
	RUN(text_before_init_is_drawn_at_init);
	RUN(summary_replaces_the_body_and_stays);
	RUN(summary_keeps_the_error_lines);
	RUN(summary_overflow_is_counted);
	RUN(large_screens_double_the_font);
	RUN(failures_are_counted);
	fake_free();
	return check_summary("fbcon");
}
