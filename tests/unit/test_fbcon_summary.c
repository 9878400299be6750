/* test_fbcon_summary.c - host tests for kernel/console/fbcon.c: red error lines, replacement glyphs, early text, the summary screen, large screens, failures. */
#include "fbcon_testlib.h"
#include "fbcon_wrap.h"

TEST(error_lines_are_red)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX);
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
	CHECK_STR(body_row(0), "QuietBench: noise-free");
	row_text(FBCON_HEADER_ROWS + 1, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, "error: option x=y");
	row_text(0, HEAD_FG, HEAD_BG, text_buf);
	CHECK_STR(text_buf, " early header");
	/* a flood before init is bounded */
	fb = fake_new(640, 480, 640, BOOT_FB_BGRX);
	for (int i = 0; i < 10000; i++)
		write_str("flood before the screen is up\n");
	CHECK(fbcon_init(fb, paging_map_mmio));
	CHECK(tail_intact());
}

TEST(summary_replaces_the_body_and_stays)
{
	struct boot_fb *fb = fake_new(1024, 768, 1024, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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
	CHECK(fbcon_init(fb, paging_map_mmio));
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

/* The end of a run, seen from across the room: a band in the pass or fail
 * colour with the word in letters several cells high, the summary below it,
 * and a screen too small for a band gets a title line instead. */
TEST(pass_and_fail_banners)
{
	struct boot_fb *fb = fake_new(1024, 768, 1024, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_summary_add("selftest          101 ms  FAIL, 1 error record(s)");
	fbcon_show_summary_banner("FAIL", false);
	uint32_t top = FBCON_HEADER_ROWS * fake.ch;
	uint32_t scale = 8; /* 4 letters x 8 px x 8 = 256 px <= 3/4 of 1024 */
	uint32_t band_px = fbcon_font.height * scale + 2 * fake.ch;
	uint32_t band_rows = (band_px + fake.ch - 1) / fake.ch;
	CHECK_EQ_U(px_at(0, top), encode(0xb01c1c));
	CHECK_EQ_U(px_at(fake.fb.width - 1, top + band_rows * fake.ch - 1), encode(0xb01c1c));
	/* Each pixel of 'F' (first letter) is an 8x8 block of white or band colour. */
	uint32_t x0 = (1024 - 4 * fbcon_font.width * scale) / 2;
	uint32_t y0 = top + (band_rows * fake.ch - fbcon_font.height * scale) / 2;
	int bad = 0;
	for (uint32_t gy = 0; gy < fbcon_font.height; gy++)
		for (uint32_t gx = 0; gx < fbcon_font.width; gx++)
			for (uint32_t k = 0; k < scale * scale; k++) {
				uint32_t want = glyph_bit('F', gx, gy) ? 0xffffff : 0xb01c1c;
				bad += px_at(x0 + gx * scale + k % scale, y0 + gy * scale + k / scale) != encode(want);
			}
	CHECK_EQ_U(bad, 0);
	row_text(FBCON_HEADER_ROWS + band_rows, TITLE_FG, BODY_BG, text_buf);
	CHECK(!strncmp(text_buf, " Summary", 8));
	row_text(FBCON_HEADER_ROWS + band_rows + 2, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " selftest          101 ms  FAIL, 1 error record(s)");
	/* the status line, redrawn later, leaves the band alone */
	fbcon_set_status("done");
	CHECK_EQ_U(px_at(0, top), encode(0xb01c1c));

	fb = fake_new(1024, 768, 1024, BOOT_FB_BGRX);
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_show_summary_banner("PASS", true);
	CHECK_EQ_U(px_at(0, top), encode(0x1e7b34));

	fb = fake_new(320, 120, 320, BOOT_FB_BGRX); /* 40 x 7 cells: no room for a band */
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_show_summary_banner("BAD OPTIONS", false);
	row_text(FBCON_HEADER_ROWS, ERR_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " BAD OPTIONS");
}

/* The screen below the summary is not left empty: every result's median, in
 * columns, failed ones red, and a count of what does not fit. */
TEST(results_fill_the_rest_of_the_screen)
{
	struct boot_fb *fb = fake_new(1024, 768, 1024, BOOT_FB_BGRX); /* 128 x 48 cells */
	char line[64];
	CHECK(fbcon_init(fb, paging_map_mmio));
	fbcon_summary_add("counter            900 ms  ok, 0 error record(s); clean, cv <= 1.0%");
	for (int i = 0; i < 400; i++) {
		snprintf(line, sizeof(line), "counter packed %dt %d.%02d us", i, i, i % 100);
		fbcon_result_add(line, i == 3);
	}
	fbcon_show_summary();
	/* title, blank, one summary line, blank, then the results title */
	row_text(FBCON_HEADER_ROWS + 4, TITLE_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " Results (400): median of the clean repetitions; ~ noisy: of all");
	CHECK(!strncmp(body_row(5), " counter packed 0t 0.00 us", 26));
	CHECK(!strncmp(body_row(6), " counter packed 1t 1.01 us", 26));
	/* the second column starts after RESULT_LEN + 2 cells */
	uint32_t rows_avail = body_rows() - 5;
	snprintf(line, sizeof(line), "counter packed %ut", rows_avail);
	CHECK(strstr(body_row(5), line) != NULL);
	CHECK(cell_mismatches(1, FBCON_HEADER_ROWS + 8, 'c', ERR_FG, BODY_BG) == 0); /* result 3 failed: red */
	/* 2 columns of 128 / 52 hold fewer than 400: the last cell counts the rest */
	uint32_t cells = rows_avail * 2;
	snprintf(line, sizeof(line), "... %u more", 400 - (cells - 1));
	int found = 0;
	for (uint32_t r = 5; r < body_rows(); r++) {
		row_text(FBCON_HEADER_ROWS + r, TITLE_FG, BODY_BG, text_buf); /* drawn as a title */
		found += strstr(text_buf, line) != NULL;
	}
	CHECK_EQ_U(found, 1);
}

/* fbcon_wrap_row: the rest where it fits, else at the last space of the row's second half (the spaces there
 * dropped, on both sides), else a hard cut. */
TEST(wrap_breaks_at_spaces)
{
	const char *next, *s;
	CHECK_EQ_U(fbcon_wrap_row(s = "abc def", 10, &next), 7);
	CHECK(*next == 0);
	CHECK_EQ_U(fbcon_wrap_row(s = "aaaa bbbb cccc", 10, &next), 9);
	CHECK_STR(next, "cccc");
	CHECK_EQ_U(fbcon_wrap_row(s = "aaaa bbbb cc", 9, &next), 9); /* a space right after a full row */
	CHECK_STR(next, "cc");
	CHECK_EQ_U(fbcon_wrap_row(s = "aaaa   bbbbbbbb", 8, &next), 4);
	CHECK_STR(next, "bbbbbbbb");
	CHECK_EQ_U(fbcon_wrap_row(s = "aaaaaaaaaaaa bb", 10, &next), 10); /* no space in the second half */
	CHECK_STR(next, "aa bb");
	CHECK_EQ_U(fbcon_wrap_row(s = "aaaaaaaaaaaa", 0, &next), 12);  /* no width: the caller cuts */
	CHECK(*next == 0);
	CHECK_EQ_U(fbcon_wrap_rows("", 10, 2), 1);
	CHECK_EQ_U(fbcon_wrap_rows("aaaa bbbb cccc dddd", 10, 0), 2);
	CHECK_EQ_U(fbcon_wrap_rows("aaaa bbbb cccc dddd", 10, 5), 3); /* 9, then rows of 5: cccc, dddd */
	CHECK_EQ_U(fbcon_wrap_rows("aaaaaaaaaaaaaaaaaaaaa", 10, 5), 4); /* hard cuts: 10, 5, 5, 1 */
	(void)s;
}

/* A summary line wider than the screen (the counter's, the noise's) wraps at its spaces onto the rows below,
 * indented past the workload's name, in its colour, and all of it is there; the next line follows it. */
TEST(long_summary_lines_wrap_whole)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX); /* 80 columns: 79 for text */
	CHECK(fbcon_init(fb, paging_map_mmio));
	char line[FBCON_SUMMARY_LEN - 8], failing[FBCON_SUMMARY_LEN];
	size_t n = 0;
	n += (size_t)snprintf(line + n, sizeof(line) - n, "noise       4 CPUs:");
	for (int i = 0; n + 12 < sizeof(line) - 40; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " gap%d,%d", i, i * 7);
	snprintf(failing, sizeof(failing), "counter    FAIL %s", line + 12);
	fbcon_summary_add("selftest   short");
	fbcon_summary_add(line);
	fbcon_summary_add(failing);
	fbcon_summary_add("flush      after");
	fbcon_show_summary();
	CHECK_STR(body_row(2), " selftest   short");
	char joined[2 * FBCON_SUMMARY_LEN] = "";
	uint32_t rows_l = fbcon_wrap_rows(line, fake.cols - 1, FBCON_SUMMARY_INDENT), r = 3;
	CHECK(rows_l >= 3 && 3 + 2 * rows_l + 1 < body_rows());
	for (; r < 3 + rows_l; r++) {
		CHECK(strlen(body_row(r)) <= fake.cols && body_row(r)[1] != 0);
		if (r > 3)
			CHECK(!strncmp(body_row(r), "            ", 1 + FBCON_SUMMARY_INDENT) && body_row(r)[12] != ' ');
		const char *t = body_row(r);
		while (*t == ' ')
			t++;
		strcat(joined, joined[0] ? " " : "");
		strcat(joined, t);
	}
	CHECK_STR(joined, line);
	CHECK(strchr(body_row(r), '#') != NULL); /* not body-coloured: the failing line */
	/* the failing one is red on every row it takes, then the next line */
	uint32_t rows_f = fbcon_wrap_rows(failing, fake.cols - 1, FBCON_SUMMARY_INDENT);
	joined[0] = 0;
	for (uint32_t k = 0; k < rows_f; k++) {
		row_text(FBCON_HEADER_ROWS + r + k, ERR_FG, BODY_BG, text_buf);
		CHECK(k ? !strncmp(text_buf, "            ", 1 + FBCON_SUMMARY_INDENT) : !strncmp(text_buf, " counter", 8));
		const char *t = text_buf;
		while (*t == ' ')
			t++;
		CHECK(*t && !strchr(t, '#'));
		strcat(joined, joined[0] ? " " : "");
		strcat(joined, t);
	}
	CHECK_STR(joined, failing);
	CHECK_STR(body_row(r + rows_f), " flush      after");
}

/* Wrapped lines count their rows: what does not fit whole is left out and counted. */
TEST(wrapped_overflow_is_counted)
{
	struct boot_fb *fb = fake_new(640, 480, 640, BOOT_FB_RGBX); /* 27 body rows: 25 below the title */
	CHECK(fbcon_init(fb, paging_map_mmio));
	char line[FBCON_SUMMARY_LEN];
	memset(line, 0, sizeof(line));
	for (int k = 0; k < 10; k++) { /* 79 + 68 + 68 cells: three rows each */
		size_t n = (size_t)snprintf(line, sizeof(line), "line%d", k);
		while (n + 5 < 79 + 68 + 50)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " word");
		CHECK_EQ_U(fbcon_wrap_rows(line, 79, FBCON_SUMMARY_INDENT), 3);
		fbcon_summary_add(line);
	}
	fbcon_show_summary();
	for (uint32_t k = 0; k < 8; k++) { /* 24 rows, one kept to say what is left out */
		char want[16];
		snprintf(want, sizeof(want), " line%u ", k);
		CHECK(!strncmp(body_row(2 + 3 * k), want, strlen(want)));
	}
	row_text(FBCON_HEADER_ROWS + 26, TITLE_FG, BODY_BG, text_buf);
	CHECK_STR(text_buf, " ... and 2 more lines that do not fit");
}

int main(void)
{
	CHECK_EQ_U(fbcon_font.count, 95);
	CHECK_EQ_U(fbcon_font.first, ' ');
	RUN(error_lines_are_red);
	RUN(bytes_outside_the_font_get_the_replacement_glyph);
	RUN(text_before_init_is_drawn_at_init);
	RUN(summary_replaces_the_body_and_stays);
	RUN(summary_keeps_the_error_lines);
	RUN(summary_overflow_is_counted);
	RUN(large_screens_double_the_font);
	RUN(failures_are_counted);
	RUN(pass_and_fail_banners);
	RUN(results_fill_the_rest_of_the_screen);
	RUN(wrap_breaks_at_spaces);
	RUN(long_summary_lines_wrap_whole);
	RUN(wrapped_overflow_is_counted);
	fake_free();
	return check_summary("fbcon_summary");
}
