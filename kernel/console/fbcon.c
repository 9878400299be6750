/* fbcon.c - the screen as a console: a text grid kept in RAM and drawn cell by cell onto the framebuffer; see fbcon.h.
 *
 * Text goes into `want`, the grid as it should look; `shown` is what the
 * framebuffer holds. A flush draws only the cells that differ, so scrolling
 * is a memmove of the text grid plus a redraw of the cells whose character
 * changed, and the framebuffer is never read (it is uncached). */
#include "fbcon.h"
#include "fbcon_header.h"
#include "fbcon_wrap.h"
#include "console.h"
#include "fbcon_px.h"
#include "fmt.h"
#include "lib.h"
#include "spinlock.h"
#ifndef QB_HOST_TEST
#include "percpu.h"
#endif

#ifndef QB_BUILD_ID
#define QB_BUILD_ID "unknown"
#endif

/* ---- Constants ------------------------------------------------------------ */
#define EARLY_BUF 4096              /* text kept from before fbcon_init */
#define FBCON_LOCK_MS 2000 /* a drawing lock held this long is taken as abandoned */
#define TAB_STOP 8
#define TAG_LEN 6                   /* "error:", "fatal:", "panic:" */
#define ERROR_LINES 8               /* "error:" lines kept for the summary */
#define TEXT_COL 1                  /* header, status and summary text start one cell in */
#define RESULT_LEN 50               /* a result's line on the summary screen */
#define RESULT_GAP 2
#define BANNER_MAX_SCALE 8          /* banner letters: at most 8x the font */
#define BANNER_MIN_SCALE 2          /* smaller than 2x is no banner: a title line instead */
#define BANNER_MIN_BODY_LEFT 4      /* body rows left below a banner for the summary */
#define BANNER_OK_RGB 0x1e7b34
#define BANNER_FAIL_RGB 0xb01c1c
#define BANNER_TEXT_RGB 0xffffff

/* Cell colours: a grid cell is (attr << 8) | character. */
enum attr { ATTR_BODY, ATTR_HEADER, ATTR_STATUS, ATTR_ERROR, ATTR_TITLE, ATTR_COUNT };

static const uint32_t attr_rgb[ATTR_COUNT][2] = { /* foreground, background as 0xRRGGBB */
	[ATTR_BODY] = { 0xd0d0d0, 0x000000 },
	[ATTR_HEADER] = { 0xffffff, 0x1c3f73 },
	[ATTR_STATUS] = { 0x101010, 0xc8c8c8 },
	[ATTR_ERROR] = { 0xff5a5a, 0x000000 },
	[ATTR_TITLE] = { 0xffe070, 0x000000 },
};

#define CELL(attr, ch) ((uint16_t)((uint16_t)(attr) << 8 | (uint8_t)(ch)))
#define BLANK CELL(ATTR_BODY, ' ')

/* ---- Private Variables ---------------------------------------------------- */
static struct spinlock lock = SPINLOCK_INIT;
static bool active, refused, frozen;
static struct fbcon_surface surf;
static uint32_t px_color[ATTR_COUNT][2];  /* attr_rgb in the framebuffer's format */
static uint32_t cols, rows;               /* the grid */
static uint32_t body_top, body_rows;      /* body: grid rows body_top .. body_top + body_rows - 1 */
static uint32_t cur_col, cur_row;         /* cursor, cur_row relative to body_top */
static uint8_t cur_attr;                  /* ATTR_BODY, or ATTR_ERROR on an "error:" line */
static uint16_t want[FBCON_MAX_ROWS * FBCON_MAX_COLS];
static uint16_t shown[FBCON_MAX_ROWS * FBCON_MAX_COLS];
static bool row_dirty[FBCON_MAX_ROWS];
static char early[EARLY_BUF];
static size_t early_len;
static char header_src[FBCON_HEADER_LINES][FBCON_LINE_LEN]; /* the header's lines, as set */
static char header[FBCON_HEADER_MAX_ROWS][FBCON_LINE_LEN];   /* laid out on the screen's rows */
static uint32_t header_rows = FBCON_HEADER_ROWS;
static char status[FBCON_LINE_LEN];
static char summary[FBCON_SUMMARY_LINES][FBCON_SUMMARY_LEN];
static uint32_t n_summary, summary_dropped;
static char error_line[ERROR_LINES][FBCON_LINE_LEN]; /* the first "error:" lines of the body */
static uint32_t n_error_lines;            /* seen, kept or not */
static uint32_t error_keep;               /* index in error_line of the line being kept */
static size_t error_len;                  /* its characters so far */
static bool error_keeping;                /* the body's current line is being kept */
static unsigned long n_failures;
static char results[FBCON_RESULTS][RESULT_LEN + 1]; /* one short line per result record */
static bool result_fail[FBCON_RESULTS];
static uint32_t n_results;

/* ---- Private Functions ---------------------------------------------------- */
static int32_t self_cpu(void)
{
#ifdef QB_HOST_TEST
	return 0;
#else
	return (int32_t)this_cpu()->index;
#endif
}

/* Take the lock; false if this CPU already holds it (a fault while drawing):
 * then the caller draws nothing. A holder that never lets go is overruled. */
static bool fb_lock(void)
{
	int32_t me = self_cpu();
	if (lock.locked && lock.owner == me)
		return false;
	if (!spin_lock_ms(&lock, FBCON_LOCK_MS, me))
		lock.owner = me;
	return true;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

static void copy_line(char *dst, const char *src)
{
	copy_text(dst, FBCON_LINE_LEN, src);
}

static uint16_t *grid_row(uint32_t row)
{
	return &want[(row < rows ? row : rows - 1) * cols];
}

/* Fill a whole grid row: n characters of `text` from column TEXT_COL +
 * indent on, blanks around them. */
static void put_cells(uint32_t row, uint32_t indent, const char *text, size_t n, uint8_t attr)
{
	uint16_t *g = grid_row(row);
	uint32_t c = 0;
	for (; c < TEXT_COL + indent && c < cols; c++)
		g[c] = CELL(attr, ' ');
	for (size_t i = 0; text && i < n && text[i] && c < cols; i++, c++)
		g[c] = CELL(attr, text[i]);
	for (; c < cols; c++)
		g[c] = CELL(attr, ' ');
	row_dirty[row < rows ? row : rows - 1] = true;
}

/* Fill a whole grid row with `text` (cut at the right edge). */
static void put_line(uint32_t row, const char *text, uint8_t attr)
{
	put_cells(row, 0, text, text ? strlen(text) : 0, attr);
}

/* Draw every cell that changed since the last flush. */
static void flush(void)
{
	for (uint32_t r = 0; r < rows; r++) {
		if (!row_dirty[r])
			continue;
		row_dirty[r] = false;
		uint16_t *w = &want[r * cols], *s = &shown[r * cols];
		for (uint32_t c = 0; c < cols; c++) {
			if (w[c] == s[c])
				continue;
			uint8_t a = (uint8_t)(w[c] >> 8) < ATTR_COUNT ? (uint8_t)(w[c] >> 8) : ATTR_BODY;
			fbcon_px_cell(&surf, &fbcon_font, c, r, (uint8_t)w[c], px_color[a][0], px_color[a][1]);
			s[c] = w[c];
		}
	}
}

static void clear_body(void)
{
	for (uint32_t r = 0; r < body_rows; r++)
		put_line(body_top + r, 0, ATTR_BODY);
	cur_col = cur_row = 0;
	cur_attr = ATTR_BODY;
}

/* The header's lines on as many rows as the width needs; the body starts
 * below them (on a wider header it starts afresh: the header is set once,
 * early, and serial keeps every line). */
static void lay_out_header(void)
{
	const char *src[FBCON_HEADER_LINES] = { header_src[0], header_src[1], header_src[2] };
	uint32_t lines = header_src[2][0] ? FBCON_HEADER_LINES : FBCON_HEADER_ROWS;
	/* Two rows always (as on every screen before); more only where the body keeps FBCON_MIN_ROWS. */
	uint32_t max = MAX((uint32_t)FBCON_HEADER_ROWS,
			   MIN((uint32_t)FBCON_HEADER_MAX_ROWS, rows > FBCON_MIN_ROWS ? rows - FBCON_MIN_ROWS : 0u));
	memset(header, 0, sizeof(header));
	uint32_t n = fbcon_header_layout(src, lines, cols > TEXT_COL ? cols - TEXT_COL : 1, header, max);
	n = MAX(n, (uint32_t)FBCON_HEADER_ROWS);
	for (uint32_t h = 0; h < n; h++)
		put_line(h, header[h], ATTR_HEADER);
	if (n != header_rows) {
		header_rows = n;
		body_top = n;
		body_rows = rows - n - 1;
		clear_body();
	}
}

/* Move the cursor to the next body line. At the bottom the body scrolls up by
 * a quarter of its height at once: a scroll redraws most of the body, so
 * jumping several lines makes scrolling cost a redraw per quarter screen of
 * text instead of one per line (under QEMU TCG a redraw takes tens of ms). */
static void next_line(void)
{
	cur_col = 0;
	if (cur_row + 1 < body_rows) {
		cur_row++;
		return;
	}
	uint32_t jump = MAX(body_rows / FBCON_SCROLL_DIV, 1u);
	memmove(grid_row(body_top), grid_row(body_top + jump), (size_t)(body_rows - jump) * cols * sizeof(want[0]));
	for (uint32_t r = body_rows - jump; r < body_rows; r++)
		put_line(body_top + r, 0, ATTR_BODY);
	for (uint32_t r = 0; r < body_rows; r++)
		row_dirty[body_top + r] = true;
	cur_row = body_rows - jump;
}

/* A line that starts "error:", "fatal:" or "panic:" turns red, the six cells
 * already written included, and is kept for the summary (which replaces the
 * body). */
static void mark_error_line(uint16_t *g)
{
	static const char tags[][7] = { "error:", "fatal:", "panic:" };
	const char *tag = 0;
	for (uint32_t t = 0; t < ARRAY_SIZE(tags) && !tag; t++) {
		uint32_t i = 0;
		while (i < TAG_LEN && (uint8_t)g[i] == (uint8_t)tags[t][i])
			i++;
		if (i == TAG_LEN)
			tag = tags[t];
	}
	if (!tag)
		return;
	cur_attr = ATTR_ERROR;
	for (uint32_t i = 0; i < TAG_LEN; i++)
		g[i] = CELL(ATTR_ERROR, tag[i]);
	if (n_error_lines < ERROR_LINES) {
		error_keep = n_error_lines;
		memcpy(error_line[error_keep], tag, TAG_LEN + 1);
		error_len = TAG_LEN;
		error_keeping = true;
	}
	n_error_lines++;
}

static void body_char(char ch)
{
	switch (ch) {
	case '\n':
		next_line();
		cur_attr = ATTR_BODY;
		error_keeping = false;
		return;
	case '\r':
		cur_col = 0;
		return;
	case '\t': {
		uint32_t stop = MIN((cur_col / TAB_STOP + 1) * TAB_STOP, cols);
		while (cur_col < stop)
			body_char(' ');
		return;
	}
	default:
		break;
	}
	if (cur_col >= cols)
		next_line(); /* wrap: the line goes on, in its colour */
	uint32_t row = body_top + MIN(cur_row, body_rows - 1), col = MIN(cur_col, cols - 1);
	uint16_t *g = grid_row(row);
	g[col] = CELL(cur_attr, ch);
	row_dirty[row] = true;
	if (error_keeping && error_len + 1 < FBCON_LINE_LEN) {
		char *e = error_line[error_keep];
		e[error_len++] = ch;
		e[error_len] = 0;
	}
	if (col == TAG_LEN - 1 && cur_attr == ATTR_BODY)
		mark_error_line(g);
	cur_col = col + 1;
}

static void body_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		body_char(s[i]);
}

/* Summary lines that report a failure are drawn in red. */
static bool has_fail(const char *line)
{
	for (size_t i = 0; line[i]; i++)
		if (!strncmp(line + i, "FAIL", 4))
			return true;
	return false;
}

static void report_refusal(enum fbcon_px_status st, const struct boot_fb *fb)
{
	switch (st) {
	case FBCON_PX_BAD_FORMAT:
		console_error("framebuffer", "pixel format %u is not a 32-bit format the screen console draws; "
			      "text stays on the serial port", fb->format);
		break;
	case FBCON_PX_BAD_MASKS:
		console_error("framebuffer", "pixel masks r 0x%x g 0x%x b 0x%x are not 8 bits per channel; "
			      "text stays on the serial port", fb->mask_red, fb->mask_green, fb->mask_blue);
		break;
	case FBCON_PX_BAD_FONT:
		console_error("framebuffer", "font %s is %ux%u, larger than %ux%u", fbcon_font.name,
			      fbcon_font.width, fbcon_font.height, FBCON_FONT_MAX_DIM, FBCON_FONT_MAX_DIM);
		break;
	default:
		console_error("framebuffer", "%ux%u with pitch %u bytes (%llu bytes) cannot hold a %ux%u text console; "
			      "text stays on the serial port", fb->width, fb->height, fb->pitch,
			      (unsigned long long)fb->size, FBCON_MIN_COLS, FBCON_MIN_ROWS);
		break;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
bool fbcon_init(const struct boot_fb *fb, fbcon_map_fn map)
{
	if (active || refused)
		return active;
	if (!fb->base) {
		refused = true; /* no screen: from now on every call returns at once */
		early_len = 0;
		return false;
	}
	struct fbcon_surface s;
	enum fbcon_px_status st = fbcon_px_setup(&s, fb, 0, &fbcon_font);
	uint32_t c = st == FBCON_PX_OK ? MIN(s.width / s.cell_w, FBCON_MAX_COLS) : 0;
	uint32_t r = st == FBCON_PX_OK ? MIN(s.height / s.cell_h, FBCON_MAX_ROWS) : 0;
	if (st == FBCON_PX_OK && (c < FBCON_MIN_COLS || r < FBCON_MIN_ROWS))
		st = FBCON_PX_BAD_GEOMETRY;
	void *base = st == FBCON_PX_OK ? map(fb->base, (uint64_t)s.pitch_px * 4 * s.height) : 0;
	if (!base) {
		refused = true;
		early_len = 0;
		if (st == FBCON_PX_OK)
			console_error("framebuffer", "cannot map the framebuffer at 0x%llx; text stays on the serial port",
				      (unsigned long long)fb->base);
		else
			report_refusal(st, fb);
		return false;
	}
	s.base = base;

	if (!fb_lock())
		return false;
	surf = s;
	cols = c;
	rows = r;
	header_rows = FBCON_HEADER_ROWS;
	body_top = header_rows;
	body_rows = rows - header_rows - 1;
	for (uint32_t a = 0; a < ATTR_COUNT; a++) {
		px_color[a][0] = fbcon_px_color(&surf, attr_rgb[a][0]);
		px_color[a][1] = fbcon_px_color(&surf, attr_rgb[a][1]);
	}
	fbcon_px_clear(&surf, px_color[ATTR_BODY][1]);
	for (uint32_t i = 0; i < rows * cols; i++)
		want[i] = shown[i] = BLANK;
	if (!header_src[0][0])
		copy_line(header_src[0], "QuietBench " QB_BUILD_ID);
	put_line(rows - 1, status, ATTR_STATUS);
	clear_body();
	lay_out_header();
	body_text(early, early_len);
	early_len = 0;
	active = true;
	flush();
	spin_unlock(&lock);
	return true;
}

bool fbcon_active(void)
{
	return active;
}

void fbcon_write(const char *s, size_t n)
{
	if (refused || frozen || !n || !fb_lock())
		return;
	if (active) {
		body_text(s, n);
		flush();
	} else {
		size_t take = MIN(n, sizeof(early) - early_len);
		memcpy(early + early_len, s, take);
		early_len += take;
	}
	spin_unlock(&lock);
}

void fbcon_set_header(const char *line1, const char *line2)
{
	if (refused || !fb_lock())
		return;
	copy_line(header_src[0], line1);
	copy_line(header_src[1], line2);
	if (active) {
		lay_out_header();
		flush();
	}
	spin_unlock(&lock);
}

void fbcon_set_header_machine(const char *line3)
{
	if (refused || !fb_lock())
		return;
	copy_line(header_src[2], line3);
	if (active) {
		lay_out_header();
		flush();
	}
	spin_unlock(&lock);
}

void fbcon_set_status(const char *line)
{
	if (refused || !fb_lock())
		return;
	copy_line(status, line);
	if (active) {
		put_line(rows - 1, status, ATTR_STATUS);
		flush();
	}
	spin_unlock(&lock);
}

void fbcon_summary_add(const char *line)
{
	if (!fb_lock())
		return;
	if (n_summary < FBCON_SUMMARY_LINES)
		copy_text(summary[n_summary++], FBCON_SUMMARY_LEN, line);
	else
		summary_dropped++;
	spin_unlock(&lock);
}

/* The first row's width and the indent of the rows after it. */
static uint32_t wrap_width(uint32_t *indent)
{
	uint32_t w = cols > TEXT_COL ? cols - TEXT_COL : 0;
	*indent = w > 4 * FBCON_SUMMARY_INDENT ? FBCON_SUMMARY_INDENT : 0;
	return w;
}

/* Draw summary line s from grid row `row` on, wrapped; returns the rows it took. */
static uint32_t put_summary(uint32_t row, const char *s, uint8_t attr)
{
	uint32_t indent, w = wrap_width(&indent), n = 0;
	do {
		const char *next;
		size_t len = fbcon_wrap_row(s, n ? w - indent : w, &next);
		put_cells(row + n, n ? indent : 0, s, len, attr);
		s = next;
		n++;
	} while (*s);
	return n;
}

/* Rows summary line s takes. */
static uint32_t summary_rows(const char *s)
{
	uint32_t indent, w = wrap_width(&indent);
	return fbcon_wrap_rows(s, w, indent);
}

/* Grid rows a banner of len characters takes at the largest scale that fits
 * three quarters of the width (0 if it does not fit with room for the
 * summary), and that scale. */
static uint32_t banner_rows(size_t len, uint32_t *scale)
{
	if (!len)
		return 0;
	uint32_t sc = (uint32_t)(surf.width * 3 / 4 / (len * fbcon_font.width));
	sc = MIN(sc, (uint32_t)BANNER_MAX_SCALE);
	if (sc < BANNER_MIN_SCALE)
		return 0;
	uint32_t px = fbcon_font.height * sc + 2 * surf.cell_h; /* a cell of band above and below */
	uint32_t r = (px + surf.cell_h - 1) / surf.cell_h;
	if (r + BANNER_MIN_BODY_LEFT > body_rows)
		return 0;
	*scale = sc;
	return r;
}

/* Draw the banner's band and letters over grid rows [row, row + n), which
 * hold blanks in `want` and `shown` alike, so no flush draws over it. */
static void draw_banner(uint32_t row, uint32_t n, uint32_t scale, const char *text, bool ok)
{
	uint32_t bg = fbcon_px_color(&surf, ok ? BANNER_OK_RGB : BANNER_FAIL_RGB);
	uint32_t fg = fbcon_px_color(&surf, BANNER_TEXT_RGB);
	uint32_t y = row * surf.cell_h, h = n * surf.cell_h;
	uint32_t w = (uint32_t)strlen(text) * fbcon_font.width * scale;
	fbcon_px_fill(&surf, 0, y, surf.width, h, bg);
	fbcon_px_text_big(&surf, &fbcon_font, (surf.width - w) / 2, y + (h - fbcon_font.height * scale) / 2, scale,
			  text, fg, bg);
}

/* The rest of the body: every result's median, in as many columns as the
 * width holds, column by column; what does not fit is counted. */
static void show_results(uint32_t row, uint32_t n_rows)
{
	uint32_t colw = RESULT_LEN + RESULT_GAP;
	uint32_t ncols = cols > TEXT_COL ? (cols - TEXT_COL) / colw : 0;
	if (!n_results || !ncols || n_rows < 2)
		return;
	char title[FBCON_LINE_LEN];
	fmt_snprintf(title, sizeof(title), "Results (%u): median of the clean repetitions; ~ noisy: of all", n_results);
	put_line(row, title, ATTR_TITLE);
	uint32_t rows_avail = n_rows - 1, cells = rows_avail * ncols;
	uint32_t n_shown = n_results <= cells ? n_results : cells - 1;
	for (uint32_t k = 0; k < n_shown; k++) {
		uint32_t r = row + 1 + k % rows_avail, c = TEXT_COL + (k / rows_avail) * colw;
		uint16_t *g = grid_row(r);
		uint8_t attr = result_fail[k] ? ATTR_ERROR : ATTR_BODY;
		for (uint32_t i = 0; results[k][i] && c + i < cols; i++)
			g[c + i] = CELL(attr, results[k][i]);
		row_dirty[r] = true;
	}
	if (n_shown < n_results) {
		char more[RESULT_LEN + 1];
		fmt_snprintf(more, sizeof(more), "... %u more", n_results - n_shown);
		uint32_t r = row + 1 + n_shown % rows_avail, c = TEXT_COL + (n_shown / rows_avail) * colw;
		uint16_t *g = grid_row(r);
		for (uint32_t i = 0; more[i] && c + i < cols; i++)
			g[c + i] = CELL(ATTR_TITLE, more[i]);
		row_dirty[r] = true;
	}
}

void fbcon_result_add(const char *line, bool failed)
{
	if (n_results >= FBCON_RESULTS)
		return;
	uint32_t k = __atomic_fetch_add(&n_results, 1, __ATOMIC_RELAXED);
	if (k >= FBCON_RESULTS)
		return;
	fmt_snprintf(results[k], sizeof(results[k]), "%s", line);
	result_fail[k] = failed;
}

void fbcon_show_summary(void)
{
	fbcon_show_summary_banner(0, true);
}

void fbcon_show_summary_banner(const char *banner, bool ok)
{
	if (!active || !fb_lock())
		return;
	frozen = true;
	clear_body();
	uint32_t scale = 0, band = banner ? banner_rows(strlen(banner), &scale) : 0;
	uint32_t top = body_top + band, left = body_rows - band;
	if (banner && !band) {
		put_line(top++, banner, ok ? ATTR_TITLE : ATTR_ERROR);
		left--;
	}
	put_line(top, "Summary (every result is on the serial port as a record)", ATTR_TITLE);
	/* The summary lines (each on as many rows as it wraps onto), then the
	 * error lines the cleared body held (a row each). Lines shown whole, in
	 * order, while they fit; a row is kept to say how many did not. */
	uint32_t errors = MIN(n_error_lines, ERROR_LINES);
	uint32_t total = n_summary + (errors ? errors + 2 : 0), total_rows = total - n_summary;
	for (uint32_t i = 0; i < n_summary; i++)
		total_rows += summary_rows(summary[i]);
	uint32_t room = left > 2 ? left - 2 : 0; /* below the title and a blank line */
	uint32_t budget = total_rows <= room ? room : (room ? room - 1 : 0);
	char title[FBCON_LINE_LEN];
	fmt_snprintf(title, sizeof(title), "Errors: %u line(s) during the run%s", n_error_lines,
		     n_error_lines > errors ? ", the first ones:" : ":");
	uint32_t fit = 0, fit_rows = 0;
	for (; fit < total; fit++) {
		uint32_t row = top + 2 + fit_rows, e = fit - n_summary;
		if (fit < n_summary) {
			if (fit_rows + summary_rows(summary[fit]) > budget)
				break;
			fit_rows += put_summary(row, summary[fit], has_fail(summary[fit]) ? ATTR_ERROR : ATTR_BODY);
			continue;
		}
		if (fit_rows + 1 > budget)
			break;
		if (e == 1)
			put_line(row, title, ATTR_TITLE);
		else if (e >= 2)
			put_line(row, error_line[e - 2], ATTR_ERROR);
		fit_rows++;
	}
	uint32_t lost = summary_dropped + (n_error_lines - errors) + (total - fit);
	uint32_t used = 2 + fit_rows;
	if (lost && room) {
		char more[FBCON_LINE_LEN];
		fmt_snprintf(more, sizeof(more), "... and %u more lines that do not fit", lost);
		put_line(top + 2 + fit_rows, more, ATTR_TITLE);
		used++;
	}
	if (left > used + 3)
		show_results(top + used + 1, left - used - 1);
	flush();
	if (band)
		draw_banner(body_top, band, scale, banner, ok);
	spin_unlock(&lock);
}

void fbcon_body_size(uint32_t *text_cols, uint32_t *text_rows)
{
	*text_cols = active && cols > TEXT_COL ? cols - TEXT_COL : 0;
	*text_rows = active ? body_rows : 0;
}

void fbcon_show_page(const char *title, const char *const *lines, uint32_t n)
{
	if (!active || !fb_lock())
		return;
	frozen = true;
	clear_body();
	/* The banner was drawn past the grid: every body cell is drawn again. */
	for (uint32_t r = body_top; r < body_top + body_rows && r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			shown[r * cols + c] = 0xffff;
	put_line(body_top, title, ATTR_TITLE);
	for (uint32_t i = 0; i < n && i + 1 < body_rows; i++)
		put_line(body_top + 1 + i, lines[i], !strncmp(lines[i], "error:", 6) ? ATTR_ERROR : ATTR_BODY);
	flush();
	spin_unlock(&lock);
}

void fbcon_note_failure(void)
{
	__atomic_add_fetch(&n_failures, 1, __ATOMIC_RELAXED);
}

unsigned long fbcon_failures(void)
{
	return __atomic_load_n(&n_failures, __ATOMIC_RELAXED);
}

#ifdef QB_HOST_TEST
void fbcon_test_reset(void)
{
	spin_unlock(&lock);
	active = refused = frozen = false;
	cols = rows = body_top = body_rows = cur_col = cur_row = 0;
	cur_attr = ATTR_BODY;
	early_len = 0;
	memset(header, 0, sizeof(header));
	memset(header_src, 0, sizeof(header_src));
	header_rows = FBCON_HEADER_ROWS;
	memset(status, 0, sizeof(status));
	n_summary = summary_dropped = 0;
	n_error_lines = 0;
	error_keeping = false;
	n_failures = 0;
	n_results = 0;
	memset(row_dirty, 0, sizeof(row_dirty));
}
#endif
