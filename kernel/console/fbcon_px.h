/* fbcon_px.h - the pixel side of fbcon: 32-bit linear framebuffer formats (UEFI 2.10 §12.9, EFI_GRAPHICS_PIXEL_FORMAT) and glyph cells drawn into them. */
#ifndef QB_KERNEL_FBCON_PX_H
#define QB_KERNEL_FBCON_PX_H

#include <stdint.h>
#include "boot_info.h"
#include "fbcon.h"

/* Why a framebuffer cannot be drawn on. */
enum fbcon_px_status {
	FBCON_PX_OK = 0,
	FBCON_PX_BAD_FORMAT,    /* not RGBX, BGRX or an 8-bit-per-channel bit mask */
	FBCON_PX_BAD_MASKS,     /* BITMASK whose masks are not three separate 8-bit fields */
	FBCON_PX_BAD_GEOMETRY,  /* zero size, or a pitch that is not whole 32-bit pixels covering the width */
	FBCON_PX_BAD_FONT,      /* the built-in font is larger than FBCON_FONT_MAX_DIM */
};

/* A framebuffer ready to draw on, and the cell size of the font on it. */
struct fbcon_surface {
	uint32_t *base;                 /* first pixel, mapped */
	uint32_t width, height;         /* visible pixels */
	uint32_t pitch_px;              /* pixels from one scan line to the next */
	uint8_t shift_r, shift_g, shift_b; /* bit position of each 8-bit channel in a pixel */
	uint32_t scale;                 /* 1, or 2 on screens FBCON_SCALE2_WIDTH wide and more */
	uint32_t cell_w, cell_h;        /* pixels of one character cell */
};

/* Check fb's format and geometry and fill s for drawing at base (the mapped
 * fb->base). A size smaller than pitch x height shortens the screen to fit. */
enum fbcon_px_status fbcon_px_setup(struct fbcon_surface *s, const struct boot_fb *fb, void *base,
				    const struct fbcon_font *font);

/* The pixel value of an 0xRRGGBB colour in s's format. */
uint32_t fbcon_px_color(const struct fbcon_surface *s, uint32_t rgb);

/* Fill the whole visible screen with one pixel value. */
void fbcon_px_clear(const struct fbcon_surface *s, uint32_t px);

/* Draw ch (replacement glyph if outside the font) in the cell at (col, row)
 * in pixel values fg and bg. Cells outside the screen are ignored. */
void fbcon_px_cell(const struct fbcon_surface *s, const struct fbcon_font *font, uint32_t col, uint32_t row,
		   uint8_t ch, uint32_t fg, uint32_t bg);

/* Draw text at pixel (x, y) with every font pixel a scale x scale block, in
 * pixel values fg and bg (a banner). Glyphs that do not fit are cut at the
 * screen's edge; scale is clamped to 1..FBCON_PX_MAX_SCALE. */
#define FBCON_PX_MAX_SCALE 16
void fbcon_px_text_big(const struct fbcon_surface *s, const struct fbcon_font *font, uint32_t x, uint32_t y,
		       uint32_t scale, const char *text, uint32_t fg, uint32_t bg);

/* Fill the rectangle [x, x + w) x [y, y + h), cut at the screen's edge. */
void fbcon_px_fill(const struct fbcon_surface *s, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t px);

#endif
