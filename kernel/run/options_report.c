/* options_report.c - bad options as text, records and a refusal to measure; see options_report.h. */
#include "options_report.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define LINE_LEN 160

/* ---- Private Functions ---------------------------------------------------- */
/* "workloads=countr: unknown workload; did you mean workloads=counter?" */
static void describe(const struct opt_error *e, char *buf, size_t cap)
{
	int k = fmt_snprintf(buf, cap, "%s%s%s: %s", e->key, e->value[0] || e->key[0] ? "=" : "", e->value, e->why);
	size_t len = k > 0 ? MIN((size_t)k, cap - 1) : 0;
	if (e->hint[0])
		fmt_snprintf(buf + len, cap - len, "; did you mean %s?", e->hint);
}

/* ---- Public Functions ----------------------------------------------------- */
void options_report(const struct opt_error *errs, int n, unsigned shown)
{
	char line[LINE_LEN];
	for (int i = 0; i < n && (unsigned)i < shown; i++) {
		const struct opt_error *e = &errs[i];
		describe(e, line, sizeof(line));
		kprintf("error: option %s\n", line);
		if (e->valid[0])
			kprintf("  valid: %s\n", e->valid);
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "bad option");
		rec_str(r, "key", e->key);
		rec_str(r, "value", e->value);
		rec_str(r, "detail", e->why);
		if (e->hint[0])
			rec_str(r, "hint", e->hint);
		if (e->valid[0])
			rec_str(r, "valid", e->valid);
		console_rec_emit(r);
	}
	if (n > 0 && (unsigned)n > shown)
		console_error("options", "%d more bad options not listed", n - (int)shown);
}

void options_refuse(const struct opt_error *errs, int n, unsigned shown, const char *fix)
{
	char line[LINE_LEN];
	kprintf("\nquietbench: %d bad option(s): nothing was measured.\nFix them %s.\n", n, fix);
	fmt_snprintf(line, sizeof(line), "%d bad option(s): nothing was measured", n);
	console_summary_line(line);
	for (int i = 0; i < n && (unsigned)i < shown; i++) {
		describe(&errs[i], line, sizeof(line));
		console_summary_line(line);
		if (errs[i].valid[0]) {
			char valid[LINE_LEN];
			fmt_snprintf(valid, sizeof(valid), "  valid: %s", errs[i].valid);
			console_summary_line(valid);
		}
	}
	fmt_snprintf(line, sizeof(line), "Fix them %s.", fix);
	console_summary_line(line);
	finish_set_banner("BAD OPTIONS");
	finish_mark_failed("bad options: nothing was measured");
}
