/* console_text.c - console functions written once for the kernel and the Linux twin: error records with their text line, and summary lines (console.h; platform hooks in console_platform.h). */
#include <stdarg.h>
#include "console.h"
#include "console_platform.h"
#include "fmt.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define DETAIL_LEN 256
#define SUMMARY_LEN 160

/* ---- Public Functions ----------------------------------------------------- */
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
	console_plat_summary(line);
}
