/* test_fbcon.c - host tests for kernel/console/fbcon.c and fbcon_px.c: refusals, glyphs pixel by pixel in every format, wrapping and scrolling. */
#include "fbcon_testlib.h"
#include "fbcon_header.h"

TEST(no_framebuffer_is_a_no_op)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	fb->base = 0;
	CHECK(!fbcon_init(fb, paging_map_mmio));
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
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK(!fbcon_active());
	CHECK_EQ_U(n_errors, 1);
	CHECK_STR(last_what, "framebuffer");
	CHECK(strstr(last_detail, "pixel format 0") != NULL);
	CHECK(!fbcon_init(fb, paging_map_mmio)); /* asked again: still off, no second record */
	CHECK_EQ_U(n_errors, 1);
	write_str("text after the refusal\n");
	fbcon_show_summary();
	for (size_t i = 0; i < fake.words; i++)
		if (fake.mem[i] != CANARY) {
			CHECK(!"framebuffer touched");
			break;
		}

	fb = fake_new(640, 480, 640, 7);
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);
}

TEST(sixteen_bit_masks_refused)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BITMASK);
	fb->mask_red = 0xf800, fb->mask_green = 0x07e0, fb->mask_blue = 0x001f; /* RGB565 */
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_detail, "8 bits per channel") != NULL);

	fb = fake_new(640, 480, 640, BOOT_FB_BITMASK);
	fb->mask_red = 0xff0000, fb->mask_green = 0xff0000, fb->mask_blue = 0xff; /* overlapping */
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);
}

TEST(bad_geometry_refused)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	fb->pitch = 639 * 4; /* shorter than a line */
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	fb->pitch = 640 * 4 + 2; /* not whole pixels */
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(200, 60, 200, BOOT_FB_RGBX); /* 25x3 cells: too small */
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);

	fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	map_fails = true;
	CHECK(!fbcon_init(fb, paging_map_mmio));
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_detail, "cannot map") != NULL);
}

TEST(text_cells_match_the_font)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
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
		CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
		CHECK(fbcon_init(fb, paging_map_mmio));
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

/* A header line too wide for the screen wraps at its fields: an 800x600
 * screen (99 cells of text) shows the whole machine on four rows, and the
 * body starts below them; a wide screen keeps two rows. */
TEST(header_wraps_at_its_fields)
{
	static const char h1[] = "QuietBench e1da305  |  QEMU TCG CPU version 2.5+  |  TSC 2.096 GHz (hpet)  |  "
				 "L1d 64K x2, L2 512K x2, L3 16M";
	static const char h2[] = "virtual machine (QEMU TCG)  |  2 of 2 CPUs online  |  1017 MiB RAM  |  "
				 "1 NUMA node(s)  |  EDK II rev 0x10000, UEFI 2.70";
	char out[FBCON_HEADER_MAX_ROWS][FBCON_LINE_LEN];
	const char *lines[] = { h1, h2 };
	CHECK_EQ_U(fbcon_header_layout(lines, 2, 200, out, FBCON_HEADER_MAX_ROWS), 2);
	CHECK_STR(out[0], h1);
	CHECK_EQ_U(fbcon_header_layout(lines, 2, 99, out, FBCON_HEADER_MAX_ROWS), 4);
	CHECK_STR(out[0], "QuietBench e1da305  |  QEMU TCG CPU version 2.5+  |  TSC 2.096 GHz (hpet)");
	CHECK_STR(out[1], "L1d 64K x2, L2 512K x2, L3 16M");
	CHECK_STR(out[2], "virtual machine (QEMU TCG)  |  2 of 2 CPUs online  |  1017 MiB RAM  |  1 NUMA node(s)");
	CHECK_STR(out[3], "EDK II rev 0x10000, UEFI 2.70");
	CHECK_EQ_U(fbcon_header_layout(lines, 2, 60, out, 4), 4); /* past max: the rest is left out */
	CHECK_STR(out[1], "TSC 2.096 GHz (hpet)  |  L1d 64K x2, L2 512K x2, L3 16M");
	CHECK_STR(out[3], "1017 MiB RAM  |  1 NUMA node(s)");
	CHECK_EQ_U(fbcon_header_layout(lines, 2, 10, out, 2), 2); /* a field longer than a row is cut */
	CHECK_STR(out[0], "QuietBench");
	CHECK_EQ_U(fbcon_header_layout(lines, 2, 0, out, 4), 0);

	struct boot_fb *fb = fake_new(800, 600, 800, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
	write_str("early line\n");
	fbcon_set_header(h1, h2);
	row_text(2, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " virtual machine (QEMU TCG)  |  2 of 2 CPUs online  |  1017 MiB RAM  |  1 NUMA node(s)");
	row_text(3, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " EDK II rev 0x10000, UEFI 2.70");
	write_str("body line\n");
	row_text(4, BODY_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "body line"); /* the body starts below the header */
	fake_free();
}

/* The third header line (issue 37): the system, its BIOS and its memory from SMBIOS, below the two
 * others; on an 800x600 screen its fields wrap too, and the body starts below all of them. */
TEST(header_machine_line)
{
	static const char h1[] = "QuietBench e1da305  |  QEMU TCG CPU version 2.5+";
	static const char h2[] = "virtual machine (QEMU TCG)  |  2 of 2 CPUs online  |  1017 MiB RAM";
	static const char h3[] = "Acme Labs Roadrunner 9000  |  BIOS 0.0.0 (02/06/2015)  |  "
				 "memory: 1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC";
	struct boot_fb *fb = fake_new(1280, 800, 1280, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_set_header(h1, h2);
	write_str("body line\n");
	row_text(2, BODY_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "body line");           /* two lines until the third is set */
	fbcon_set_header_machine(h3);
	row_text(2, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " Acme Labs Roadrunner 9000  |  BIOS 0.0.0 (02/06/2015)  |  memory: 1 of 1 slot: 1 x 1 GiB "
			    "RAM-4800 DIMM, ECC");
	write_str("after\n");
	row_text(3, BODY_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "after");
	fb = fake_new(800, 600, 800, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_set_header(h1, h2);
	fbcon_set_header_machine(h3);
	row_text(2, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " Acme Labs Roadrunner 9000  |  BIOS 0.0.0 (02/06/2015)");
	row_text(3, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " memory: 1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC");
	fake_free();
}

TEST(scroll_redraws_only_changed_cells)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	RUN(header_wraps_at_its_fields);
	RUN(header_machine_line);
	RUN(scroll_redraws_only_changed_cells);
	fake_free();
	return check_summary("fbcon");
}
