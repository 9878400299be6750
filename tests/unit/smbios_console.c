/* smbios_console.c - the console stubs of smbios_console.h. */
#include "smbios_console.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "console.h"
#include "fmt.h"
#include "record.h"

char *kept_records[SMBIOS_CONSOLE_RECORDS];
unsigned kept_n;
char console_text[8192];
unsigned console_n_errors;
static char buf[SMBIOS_CONSOLE_LINE];
static struct rec shared;

void console_reset(void)
{
	for (unsigned i = 0; i < kept_n; i++)
		free(kept_records[i]);
	kept_n = 0;
	console_text[0] = 0;
	console_n_errors = 0;
}

const char *console_find(const char *kind)
{
	char key[64];
	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	for (unsigned i = 0; i < kept_n; i++)
		if (strstr(kept_records[i], key))
			return kept_records[i];
	return NULL;
}

unsigned console_count(const char *kind)
{
	char key[64];
	unsigned n = 0;
	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	for (unsigned i = 0; i < kept_n; i++)
		n += strstr(kept_records[i], key) != NULL;
	return n;
}

struct rec *console_rec_open(const char *kind)
{
	rec_begin(&shared, buf, sizeof(buf), kind);
	return &shared;
}

void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	if (kept_n < SMBIOS_CONSOLE_RECORDS)
		kept_records[kept_n++] = strdup(line ? line : "(invalid)");
}

void kprintf(const char *fmt, ...)
{
	size_t n = strlen(console_text);
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(console_text + n, sizeof(console_text) - n, fmt, ap);
	va_end(ap);
}

void console_error(const char *what, const char *fmt, ...)
{
	(void)what;
	(void)fmt;
	console_n_errors++;
}
