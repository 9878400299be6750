/* fbcon_wrap.c - a summary line wrapped at its spaces onto the screen's rows; see fbcon_wrap.h. */
#include "fbcon_wrap.h"
#include "lib.h"

/* ---- Public Functions ----------------------------------------------------- */
size_t fbcon_wrap_row(const char *s, size_t width, const char **next)
{
	size_t n = strlen(s);
	if (n <= width || !width) {
		*next = s + n;
		return n;
	}
	size_t cut = width; /* s[width] exists: a space there ends a full row */
	while (cut > width / 2 && s[cut] != ' ')
		cut--;
	if (s[cut] != ' ')
		cut = width;
	const char *p = s + cut;
	while (*p == ' ')
		p++;
	while (cut && s[cut - 1] == ' ')
		cut--;
	*next = p;
	return cut;
}

uint32_t fbcon_wrap_rows(const char *s, size_t width, size_t indent)
{
	uint32_t n = 0;
	do {
		fbcon_wrap_row(s, n && width > indent ? width - indent : width, &s);
		n++;
	} while (*s);
	return n;
}
