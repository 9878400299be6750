/* console_text.c - the console written once for the kernel and the Linux twin: text lines, the shared record buffer and its overflow report, error records with their text line, and summary lines (console.h; what differs is in console_platform.h). */
#include <stdarg.h>
#include "console.h"
#include "console_platform.h"
#include "fmt.h"
#include "lib.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define TEXT_BUF 1024
#define DETAIL_LEN 256
#define SUMMARY_LEN 320 /* as the screen keeps them (FBCON_SUMMARY_LEN): the noise line, a count per cause */

/* ---- Private Variables ---------------------------------------------------- */
static char rec_buf[CONSOLE_REC_BUF];
static struct rec rec_shared;
static char rec_kind[32];          /* kind of the record being built, for the overflow report */
static bool rec_held;              /* CONSOLE_LOCK_REC was taken (in panic mode it may not be) */
static volatile int panic_mode;
static unsigned long n_records, n_errors;

/* ---- Public Functions ----------------------------------------------------- */
void console_write(const char *s, size_t n)
{
	bool held = console_plat_lock(CONSOLE_LOCK_OUT, panic_mode);
	console_plat_text(s, n);
	console_plat_unlock(CONSOLE_LOCK_OUT, held);
}

void kprintf(const char *fmt, ...)
{
	char buf[TEXT_BUF];
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	console_write(buf, len);
}

struct rec *console_rec_open(const char *kind)
{
	rec_held = console_plat_lock(CONSOLE_LOCK_REC, panic_mode);
	size_t i = 0;
	for (; kind && kind[i] && i + 1 < sizeof(rec_kind); i++)
		rec_kind[i] = kind[i];
	rec_kind[i] = 0;
	rec_begin(&rec_shared, rec_buf, sizeof(rec_buf), kind);
	return &rec_shared;
}

void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	if (!line) {
		/* Say which record was lost and why, in a record that fits. */
		rec_begin(r, rec_buf, sizeof(rec_buf), "error");
		rec_str(r, "what", "record too long or malformed");
		rec_str(r, "record_kind", rec_kind);
		rec_i64(r, "cpu", console_plat_cpu());
		line = rec_finish(r, &len); /* counted as an error below, like any error record */
	}
	if (line) {
		bool held = console_plat_lock(CONSOLE_LOCK_OUT, panic_mode);
		console_plat_record(line, len);
		console_plat_unlock(CONSOLE_LOCK_OUT, held);
		n_records++;
		if (!strncmp(line, "@qb {\"v\":1,\"kind\":\"error\"", 25))
			n_errors++;
		else if (!strncmp(line, "@qb {\"v\":1,\"kind\":\"result\"", 26))
			console_plat_result(line);
	}
	console_plat_unlock(CONSOLE_LOCK_REC, rec_held);
}

void console_error(const char *what, const char *fmt, ...)
{
	char detail[DETAIL_LEN];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	kprintf("error: %s: %s\n", what, detail);
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", what);
	rec_str(r, "detail", detail);
	rec_i64(r, "cpu", console_plat_cpu());
	console_rec_emit(r);
}

void console_summary(const char *fmt, ...)
{
	char line[SUMMARY_LEN];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	kprintf("summary: %s\n", line);
	console_summary_line(line);
}

void console_panic_mode(void)
{
	panic_mode = 1;
}

unsigned long console_records(void)
{
	return n_records;
}

unsigned long console_errors(void)
{
	return n_errors;
}
