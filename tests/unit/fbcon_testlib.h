/* fbcon_testlib.h - shared by the fbcon host tests: stubs for what kernel/console/fbcon.c calls, an in-memory framebuffer, and helpers that read cells back against the font. */
#ifndef QB_TESTS_FBCON_TESTLIB_H
#define QB_TESTS_FBCON_TESTLIB_H
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

/* kernel/console/fbcon.c's colours (0xRRGGBB), restated so a change is a visible decision. */
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

#endif
