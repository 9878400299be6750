/* fbcon_px.c - pixel formats and glyph cells for fbcon (UEFI 2.10 §12.9, EFI_GRAPHICS_PIXEL_FORMAT); see fbcon_px.h. */
#include "fbcon_px.h"

/* ---- Constants ------------------------------------------------------------ */
#define BYTES_PER_PIXEL 4
#define CHANNEL_MASK 0xffu
#define MAX_CELL_W (FBCON_FONT_MAX_DIM * 2)

/* ---- Private Functions ---------------------------------------------------- */
/* Bit position of an 8-bit contiguous mask, or -1 if the mask is anything else. */
static int channel_shift(uint32_t mask)
{
	if (!mask)
		return -1;
	int shift = __builtin_ctz(mask);
	return (mask >> shift) == CHANNEL_MASK ? shift : -1;
}

static enum fbcon_px_status set_format(struct fbcon_surface *s, const struct boot_fb *fb)
{
	switch (fb->format) {
	case BOOT_FB_RGBX: /* PixelRedGreenBlueReserved8BitPerColor: byte 0 is red */
		s->shift_r = 0, s->shift_g = 8, s->shift_b = 16;
		return FBCON_PX_OK;
	case BOOT_FB_BGRX: /* PixelBlueGreenRedReserved8BitPerColor: byte 0 is blue */
		s->shift_r = 16, s->shift_g = 8, s->shift_b = 0;
		return FBCON_PX_OK;
	case BOOT_FB_BITMASK: {
		int r = channel_shift(fb->mask_red), g = channel_shift(fb->mask_green), b = channel_shift(fb->mask_blue);
		if (r < 0 || g < 0 || b < 0 || (fb->mask_red & fb->mask_green) || (fb->mask_red & fb->mask_blue) ||
		    (fb->mask_green & fb->mask_blue))
			return FBCON_PX_BAD_MASKS;
		s->shift_r = (uint8_t)r, s->shift_g = (uint8_t)g, s->shift_b = (uint8_t)b;
		return FBCON_PX_OK;
	}
	default:
		return FBCON_PX_BAD_FORMAT;
	}
}

/* Store one scan line of a cell; two pixels per store where alignment allows,
 * since every store to an uncached framebuffer is its own bus transaction. */
static void store_line(uint32_t *dst, const uint32_t *src, uint32_t n)
{
	uint32_t i = 0;
	if (!((uintptr_t)dst & 7)) {
		uint64_t *d = (uint64_t *)(void *)dst;
		for (; i + 1 < n; i += 2)
			d[i / 2] = (uint64_t)src[i] | (uint64_t)src[i + 1] << 32;
	}
	for (; i < n; i++)
		dst[i] = src[i];
}

/* ---- Public Functions ----------------------------------------------------- */
enum fbcon_px_status fbcon_px_setup(struct fbcon_surface *s, const struct boot_fb *fb, void *base,
				    const struct fbcon_font *font)
{
	enum fbcon_px_status st = set_format(s, fb);
	if (st != FBCON_PX_OK)
		return st;
	if (!fb->width || !fb->height || fb->pitch % BYTES_PER_PIXEL ||
	    fb->pitch / BYTES_PER_PIXEL < fb->width)
		return FBCON_PX_BAD_GEOMETRY;
	uint32_t height = fb->height;
	if (fb->size && fb->size / fb->pitch < height)
		height = (uint32_t)(fb->size / fb->pitch);
	if (!height)
		return FBCON_PX_BAD_GEOMETRY;
	if (!font->width || !font->height || font->width > FBCON_FONT_MAX_DIM || font->height > FBCON_FONT_MAX_DIM)
		return FBCON_PX_BAD_FONT;
	s->base = base;
	s->width = fb->width;
	s->height = height;
	s->pitch_px = fb->pitch / BYTES_PER_PIXEL;
	s->scale = fb->width >= FBCON_SCALE2_WIDTH ? 2 : 1;
	s->cell_w = font->width * s->scale;
	s->cell_h = font->height * s->scale;
	return FBCON_PX_OK;
}

uint32_t fbcon_px_color(const struct fbcon_surface *s, uint32_t rgb)
{
	uint32_t r = (rgb >> 16) & CHANNEL_MASK, g = (rgb >> 8) & CHANNEL_MASK, b = rgb & CHANNEL_MASK;
	return r << s->shift_r | g << s->shift_g | b << s->shift_b;
}

void fbcon_px_clear(const struct fbcon_surface *s, uint32_t px)
{
	uint32_t line[MAX_CELL_W];
	for (uint32_t i = 0; i < MAX_CELL_W; i++)
		line[i] = px;
	for (uint32_t y = 0; y < s->height; y++) {
		uint32_t *row = s->base + (uint64_t)y * s->pitch_px;
		for (uint32_t x = 0; x < s->width; x += MAX_CELL_W)
			store_line(row + x, line, s->width - x < MAX_CELL_W ? s->width - x : MAX_CELL_W);
	}
}

void fbcon_px_cell(const struct fbcon_surface *s, const struct fbcon_font *font, uint32_t col, uint32_t row,
		   uint8_t ch, uint32_t fg, uint32_t bg)
{
	uint64_t x0 = (uint64_t)col * s->cell_w, y0 = (uint64_t)row * s->cell_h;
	if (x0 + s->cell_w > s->width || y0 + s->cell_h > s->height)
		return;
	uint32_t g = ch >= font->first && ch - font->first < font->count ? ch - font->first : font->count;
	const uint8_t *bits = font->bits + (uint64_t)g * font->height * font->row_bytes;
	uint32_t diff = fg ^ bg, align = 32 - 8 * font->row_bytes;
	uint32_t line[MAX_CELL_W];
	uint32_t *dst = s->base + y0 * s->pitch_px + x0;
	for (uint32_t gy = 0; gy < font->height; gy++, bits += font->row_bytes) {
		uint32_t row_bits = 0;
		for (uint32_t b = 0; b < font->row_bytes; b++)
			row_bits = row_bits << 8 | bits[b];
		row_bits <<= align; /* leftmost pixel in bit 31 */
		/* Without branches: bg where the bit is clear, bg ^ (fg ^ bg) = fg where set. */
		if (s->scale == 1) {
			for (uint32_t gx = 0; gx < font->width; gx++, row_bits <<= 1)
				line[gx] = bg ^ (diff & (uint32_t)-(int32_t)(row_bits >> 31));
		} else {
			for (uint32_t gx = 0; gx < font->width; gx++, row_bits <<= 1) {
				uint32_t px = bg ^ (diff & (uint32_t)-(int32_t)(row_bits >> 31));
				for (uint32_t k = 0; k < s->scale; k++)
					line[gx * s->scale + k] = px;
			}
		}
		for (uint32_t k = 0; k < s->scale; k++, dst += s->pitch_px)
			store_line(dst, line, s->cell_w);
	}
}

void fbcon_px_fill(const struct fbcon_surface *s, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t px)
{
	uint32_t line[MAX_CELL_W];
	for (uint32_t i = 0; i < MAX_CELL_W; i++)
		line[i] = px;
	if (x >= s->width || y >= s->height)
		return;
	w = w > s->width - x ? s->width - x : w;
	h = h > s->height - y ? s->height - y : h;
	for (uint32_t r = 0; r < h; r++) {
		uint32_t *row = s->base + (uint64_t)(y + r) * s->pitch_px + x;
		for (uint32_t c = 0; c < w; c += MAX_CELL_W)
			store_line(row + c, line, w - c < MAX_CELL_W ? w - c : MAX_CELL_W);
	}
}

void fbcon_px_text_big(const struct fbcon_surface *s, const struct fbcon_font *font, uint32_t x, uint32_t y,
		       uint32_t scale, const char *text, uint32_t fg, uint32_t bg)
{
	scale = scale < 1 ? 1 : scale > FBCON_PX_MAX_SCALE ? FBCON_PX_MAX_SCALE : scale;
	uint32_t gw = font->width * scale, align = 32 - 8 * font->row_bytes;
	for (; *text; text++, x += gw) {
		if (x >= s->width)
			return;
		uint8_t ch = (uint8_t)*text;
		uint32_t g = ch >= font->first && ch - font->first < font->count ? ch - font->first : font->count;
		const uint8_t *bits = font->bits + (uint64_t)g * font->height * font->row_bytes;
		for (uint32_t gy = 0; gy < font->height; gy++, bits += font->row_bytes) {
			uint32_t row_bits = 0;
			for (uint32_t b = 0; b < font->row_bytes; b++)
				row_bits = row_bits << 8 | bits[b];
			row_bits <<= align;
			/* Runs of equal pixels in a glyph row become one fill each. */
			for (uint32_t gx = 0; gx < font->width;) {
				uint32_t on = row_bits >> 31, run = 0;
				while (gx < font->width && (row_bits >> 31) == on) {
					row_bits <<= 1;
					gx++;
					run++;
				}
				fbcon_px_fill(s, x + (gx - run) * scale, y + gy * scale, run * scale, scale, on ? fg : bg);
			}
		}
	}
}
