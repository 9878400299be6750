/* fbcon.h - the screen as a console: people's text on the firmware's linear framebuffer (UEFI 2.10 §12.9 GOP), with a machine header, a status line and an end-of-run summary.
 *
 * Layout, in character cells: the header (two lines, the machine; their
 * fields wrap onto more rows on a narrow screen), the body
 * (kprintf text, scrolling), and the status line (progress) at the bottom.
 * Records are not drawn: they stay on the serial port. Without a usable
 * framebuffer every call is a no-op. */
#ifndef QB_KERNEL_FBCON_H
#define QB_KERNEL_FBCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "boot_info.h"

#define FBCON_MAX_COLS 256      /* text grid bounds; a larger screen keeps its right and bottom edges blank */
#define FBCON_MAX_ROWS 128
#define FBCON_MIN_COLS 40       /* smaller than this is not worth a console */
#define FBCON_MIN_ROWS 6
#define FBCON_HEADER_ROWS 2      /* the header's rows where its lines fit the width */
#define FBCON_HEADER_MAX_ROWS 6  /* on a narrow screen its fields wrap onto up to this many (fbcon_header.h) */
#define FBCON_HEADER_LINES 3     /* the machine, the run's CPUs and memory, the SMBIOS system and its memory */
#define FBCON_SCROLL_DIV 4      /* a scroll moves the body up by a quarter of its rows at once */
#define FBCON_SCALE2_WIDTH 1920 /* from this width on, every font pixel is drawn as 2x2 */
#define FBCON_FONT_MAX_DIM 32   /* widest and tallest glyph the renderer accepts */
#define FBCON_SUMMARY_LINES 64
#define FBCON_LINE_LEN 160      /* longest header or status line kept */
#define FBCON_SUMMARY_LEN 320   /* longest summary line kept (the noise line: a count per cause); wrapped on screen */
#define FBCON_SUMMARY_INDENT 11 /* a wrapped summary line goes on under its text, past the workload's name */

/* A bitmap font, generated at build time by tools/mkfont from a PSF console
 * font (build/gen/fbcon_font.c). Glyph g is height rows of row_bytes bytes,
 * most significant bit leftmost; g = ch - first for first <= ch < first +
 * count, and g = count is the replacement glyph for everything else. */
struct fbcon_font {
	uint32_t width, height;     /* pixels of one glyph */
	uint32_t row_bytes;         /* bytes per glyph row: (width + 7) / 8 */
	uint32_t first, count;      /* code points first .. first + count - 1 */
	const uint8_t *bits;        /* (count + 1) * height * row_bytes bytes */
	const char *name;           /* the PSF file it came from */
};

extern const struct fbcon_font fbcon_font;

/* How the framebuffer is mapped: phys for size bytes, uncached (mm's
 * paging_map_mmio: the console sits below mm and is given it). NULL: cannot. */
typedef void *(*fbcon_map_fn)(uint64_t phys, uint64_t size);

/* Take over the framebuffer fb describes (mapped with map, so call after
 * paging_init) and draw the text written so far. A missing framebuffer (base 0) leaves fbcon off silently; a format
 * it cannot draw (not 32 bits per pixel, bad pitch, too small) leaves it off
 * with one `error` record. Returns true if the screen is now a console. */
bool fbcon_init(const struct boot_fb *fb, fbcon_map_fn map);

/* True once fbcon_init has taken the screen. */
bool fbcon_active(void);

/* Append text to the body: \n, \r, \t, wrapping at the right edge and
 * scrolling at the bottom (by FBCON_SCROLL_DIV of the body at once); other
 * bytes outside the font show the replacement glyph. Lines starting
 * "error:", "fatal:" or "panic:" are drawn in red. Before fbcon_init the
 * first few KiB are kept and drawn at init; after fbcon_show_summary the
 * body is frozen and text is dropped. Called by console.c for kprintf and
 * console_write. */
void fbcon_write(const char *s, size_t n);

/* Set the two header lines (NULL or "" leaves a line empty); they stay on top. */
void fbcon_set_header(const char *line1, const char *line2);

/* Set the third header line, the system and its memory from SMBIOS (issue
 * 37); until it is set the header has two. */
void fbcon_set_header_machine(const char *line3);

/* Set the status line at the bottom, e.g. "workload 2 of 3: counter". */
void fbcon_set_status(const char *line);

/* Collect one line for the end-of-run summary (at most FBCON_SUMMARY_LINES
 * of FBCON_SUMMARY_LEN - 1 characters). On the screen a line wider than the
 * grid wraps at a space onto more rows, FBCON_SUMMARY_INDENT cells in. */
void fbcon_summary_add(const char *line);

/* Clear the body and draw the collected summary lines, then the first red
 * lines the body showed (the text of error records, a fault, a panic),
 * then freeze the body so the summary stays on screen. Lines that do not fit
 * are counted in a last line. */
void fbcon_show_summary(void);

/* The same, under a large banner across the top of the body: banner in
 * letters several cells high (as big as fit three quarters of the width,
 * up to 8x the font), white on green when ok, on red when not. A screen too
 * small for it gets the banner as a title line instead. */
void fbcon_show_summary_banner(const char *banner, bool ok);

/* The body's text size in cells (0 without a screen), for a pager. */
void fbcon_body_size(uint32_t *text_cols, uint32_t *text_rows);

/* Draw a page over the body: title on its first row, then lines[0 .. n-1]
 * (each cut at the width; "error:" lines red). The body stays frozen; the
 * summary comes back with fbcon_show_summary_banner. */
void fbcon_show_page(const char *title, const char *const *lines, uint32_t n);

/* Keep one short line per result ("counter packed 4t  12.3 ns") for the
 * summary screen, which lays them out in columns below the summary (at most
 * FBCON_RESULTS; failed ones red). */
#define FBCON_RESULTS 1024
void fbcon_result_add(const char *line, bool failed);

/* Count a failed check (finish_mark_failed calls this), so the summary line
 * of a workload can say whether it failed. */
void fbcon_note_failure(void);

/* Failed checks counted so far. */
unsigned long fbcon_failures(void);

#ifdef QB_HOST_TEST
/* Forget everything, as at boot (host tests only). */
void fbcon_test_reset(void);
#endif

#endif
