/* pager.c - the end screen with a USB keyboard: the summary, the whole text log and the results as tables, a page at a time; see pager.h. */
#include "pager.h"
#include "console.h"
#include "cpu.h"
#include "fbcon.h"
#include "fmt.h"
#include "idle.h"
#include "lib.h"
#include "pmm.h"
#include "record.h"
#include "results.h"
#include "tsc.h"
#include "usb.h"
#include "usb_kbd.h"

/* ---- Constants ------------------------------------------------------------ */
#define POLL_MS 8                         /* the keyboard is looked at this often */
#define MAX_LINES (256u * 1024)           /* lines of log indexed */
#define LINE_MAX 256                      /* characters of a line shown (cut at the screen's width) */
#define REC_MAX 8192                      /* bytes of a record line searched for a table's fields */
#define PAGE_MAX FBCON_MAX_ROWS
#define TITLE_LEN 200

/* HID usage IDs (HID Usage Tables 1.12 §10). */
enum {
	KEY_B = 0x05, KEY_G = 0x0a, KEY_J = 0x0d, KEY_K = 0x0e, KEY_L = 0x0f, KEY_Q = 0x14, KEY_S = 0x16,
	KEY_T = 0x17, KEY_ENTER = 0x28, KEY_ESC = 0x29, KEY_SPACE = 0x2c, KEY_HOME = 0x4a, KEY_PGUP = 0x4b,
	KEY_END = 0x4d, KEY_PGDN = 0x4e, KEY_DOWN = 0x51, KEY_UP = 0x52,
};

enum view { VIEW_SUMMARY, VIEW_LOG, VIEW_TABLES };

/* ---- Private Variables ---------------------------------------------------- */
static const char *text;                  /* the log (the console's tee) */
static size_t text_len;                   /* as it was when the pager started */
static uint32_t *log_start;               /* byte offset of each log line */
static uint32_t n_log;
static char *tables;                      /* the tables view, lines separated by '\n' */
static uint32_t *table_start, n_table;
static char page_buf[PAGE_MAX][LINE_MAX];
static const char *page_lines[PAGE_MAX];

/* ---- Private Functions ---------------------------------------------------- */
static void *grab(uint64_t bytes)
{
	uint64_t p = pmm_alloc((bytes + PMM_PAGE - 1) / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	return (void *)(uintptr_t)p;
}

/* Split buf[0, len) at '\n' into starts[], at most MAX_LINES. */
static uint32_t index_lines(const char *buf, size_t len, uint32_t *starts)
{
	uint32_t n = 0;
	for (size_t at = 0; at < len && n < MAX_LINES;) {
		starts[n++] = (uint32_t)at;
		while (at < len && buf[at] != '\n')
			at++;
		at++;
	}
	return n;
}

/* Line i of buf (starts, n lines, len bytes) into out, without CR or LF. */
static void line_of(const char *buf, size_t len, const uint32_t *starts, uint32_t n, uint32_t i, char *out, size_t cap)
{
	size_t at = starts[i], end = i + 1 < n ? starts[i + 1] : len, k = 0;
	for (; at < end && k + 1 < cap; at++)
		if (buf[at] != '\n' && buf[at] != '\r')
			out[k++] = buf[at] >= ' ' && buf[at] < 0x7f ? buf[at] : '?';
	out[k] = 0;
}

/* One table row per result record of the log: workload, variant, threads,
 * placement, median (ns when known) and check; a heading when the workload changes. */
static void build_tables(size_t len, uint32_t cap)
{
	static char rec[REC_MAX];
	char wl[24] = "", last[24] = "", var[40], thr[8], place[16], med[24], unit[16], check[12];
	uint32_t at = 0;
	for (uint32_t i = 0; i < n_log && at + LINE_MAX * 2 < cap; i++) {
		size_t s = log_start[i], e = i + 1 < n_log ? log_start[i + 1] : len, k = 0;
		if (e - s < 30 || memcmp(text + s, "@qb {\"v\":1,\"kind\":\"result\"", 26))
			continue;
		for (; s + k < e && k + 1 < sizeof(rec); k++)
			rec[k] = text[s + k];
		rec[k] = 0;
		if (!rec_field(rec, "workload", wl, sizeof(wl)) || !rec_field(rec, "variant", var, sizeof(var)))
			continue;
		if (!rec_field(rec, "threads", thr, sizeof(thr)))
			thr[0] = 0;
		if (!rec_field(rec, "placement", place, sizeof(place)))
			place[0] = 0;
		if (!rec_field(rec, "check", check, sizeof(check)))
			check[0] = 0;
		if (rec_field(rec, "median_ns", med, sizeof(med)) && strcmp(med, "null"))
			fmt_snprintf(unit, sizeof(unit), "ns");
		else if (rec_field(rec, "median", med, sizeof(med)) && rec_field(rec, "unit", unit, sizeof(unit)))
			;
		else
			fmt_snprintf(med, sizeof(med), "-"), unit[0] = 0;
		if (strcmp(wl, last)) {
			at += (uint32_t)fmt_snprintf(tables + at, cap - at, "%s== %s\n%-28s %7s %-10s %16s %-6s %s\n",
						     at ? "\n" : "", wl, "variant", "threads", "placement", "median",
						     "unit", "check");
			memcpy(last, wl, sizeof(last));
		}
		at += (uint32_t)fmt_snprintf(tables + at, cap - at, "%-28s %7s %-10s %16s %-6s %s\n", var, thr, place, med,
					     unit, check);
	}
	if (!at)
		at = (uint32_t)fmt_snprintf(tables, cap, "no result records in the log\n");
	n_table = index_lines(tables, at, table_start);
	table_start[n_table] = at;
}

static void show(enum view v, uint32_t first, bool ok, const char *banner)
{
	uint32_t cols, rows;
	fbcon_body_size(&cols, &rows);
	if (v == VIEW_SUMMARY || rows < 2) {
		fbcon_show_summary_banner(banner, ok);
		return;
	}
	bool log = v == VIEW_LOG;
	uint32_t n = log ? n_log : n_table, per = rows - 1 < PAGE_MAX ? rows - 1 : PAGE_MAX;
	size_t len = log ? text_len : table_start[n_table];
	uint32_t k = 0;
	for (; k < per && first + k < n; k++) {
		line_of(log ? text : tables, len, log ? log_start : table_start, n, first + k, page_buf[k],
			cols + 1 < LINE_MAX ? cols + 1 : LINE_MAX);
		page_lines[k] = page_buf[k];
	}
	char title[TITLE_LEN];
	fmt_snprintf(title, sizeof(title), "%s: lines %u-%u of %u   PgUp PgDn Home End | l log  t tables  s summary",
		     log ? "Log" : "Results", n ? first + 1 : 0, first + k, n);
	fbcon_show_page(title, page_lines, k);
	kprintf("pager: %s lines %u-%u of %u\n", log ? "log" : "tables", n ? first + 1 : 0, first + k, n);
}

/* ---- Public Functions ----------------------------------------------------- */
void pager_run(bool ok, const char *banner)
{
	static struct usb_kbd kbd;
	struct usb_stick *s = results_stick();
	uint32_t cols, rows;
	size_t len = 0;
	bool full;
	fbcon_body_size(&cols, &rows);
	text = console_tee(&len, &full);
	text_len = len;
	if (rows < 2 || !s || !text)
		return;
	if (!usb_kbd_find(s, &kbd)) {
		kprintf("pager: %s: the summary stays on screen\n", s->why);
		return;
	}
	log_start = grab((MAX_LINES + 1) * sizeof(uint32_t));
	table_start = grab((MAX_LINES + 1) * sizeof(uint32_t));
	uint32_t tcap = 1u << 20;
	tables = grab(tcap);
	if (!log_start || !table_start || !tables)
		return;
	n_log = index_lines(text, len, log_start);
	build_tables(len, tcap);
	kprintf("pager: a USB keyboard on root port %u: l log, t tables, s summary, PgUp/PgDn, Home/End\n", kbd.port);
	idle_sleep_until(tsc_read()); /* choose how to rest between polls, and say it */
	kprintf("pager: between polls every %u ms: %s\n", POLL_MS, idle_sleep_name());
	enum view v = VIEW_SUMMARY;
	uint32_t first = 0;
	for (;;) {
		uint64_t next = tsc_deadline_ms(POLL_MS);
		uint8_t key = usb_kbd_key(s, &kbd);
		if (!kbd.ok)
			return; /* the keyboard went away: the screen stays as it is */
		if (!key) {
			idle_sleep_until(next); /* rest, not spin: the end screen may stay for hours */
			continue;
		}
		uint32_t per = rows - 1 < PAGE_MAX ? rows - 1 : PAGE_MAX, n = v == VIEW_LOG ? n_log : n_table;
		uint32_t last_page = n > per ? n - per : 0;
		enum view was = v;
		uint32_t at = first;
		switch (key) {
		case KEY_L: v = VIEW_LOG, first = 0; break;
		case KEY_T: v = VIEW_TABLES, first = 0; break;
		case KEY_S: case KEY_ESC: case KEY_Q: v = VIEW_SUMMARY; break;
		case KEY_PGDN: case KEY_SPACE: first = first + per < last_page ? first + per : last_page; break;
		case KEY_PGUP: case KEY_B: first = first > per ? first - per : 0; break;
		case KEY_DOWN: case KEY_J: case KEY_ENTER: first = first < last_page ? first + 1 : first; break;
		case KEY_UP: case KEY_K: first = first ? first - 1 : 0; break;
		case KEY_HOME: case KEY_G: first = 0; break;
		case KEY_END: first = last_page; break;
		default: continue;
		}
		if (v == VIEW_SUMMARY && was == VIEW_SUMMARY)
			continue;
		if (v != was || first != at || v == VIEW_SUMMARY)
			show(v, first, ok, banner);
	}
}
