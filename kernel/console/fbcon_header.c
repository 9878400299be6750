/* fbcon_header.c - the header's lines packed onto the screen's rows; see fbcon_header.h. */
#include "fbcon_header.h"
#include "lib.h"

/* The first separator in s, or NULL (the kernel has no strstr). */
static const char *find_sep(const char *s)
{
	const size_t sep = sizeof(FBCON_HEADER_SEP) - 1;
	for (; *s; s++)
		if (!strncmp(s, FBCON_HEADER_SEP, sep))
			return s;
	return 0;
}

/* Append n bytes of s to a row of `used` characters (never past the row or the buffer). */
static uint32_t append(char *row, uint32_t used, const char *s, size_t n, uint32_t width)
{
	uint32_t cap = MIN(width, (uint32_t)FBCON_LINE_LEN - 1);
	while (n-- && used < cap)
		row[used++] = *s++;
	row[used] = 0;
	return used;
}

uint32_t fbcon_header_layout(const char *const *lines, uint32_t n, uint32_t width, char (*out)[FBCON_LINE_LEN],
			     uint32_t max)
{
	const size_t sep = sizeof(FBCON_HEADER_SEP) - 1;
	uint32_t r = 0;
	if (!width || !max)
		return 0;
	for (uint32_t i = 0; i < n && r < max; i++) {
		const char *p = lines[i] ? lines[i] : "";
		uint32_t used = 0;
		out[r][0] = 0;
		while (r < max) {
			const char *end = find_sep(p);
			size_t len = end ? (size_t)(end - p) : strlen(p);
			if (used && used + sep + len > width) { /* the field goes to a row of its own */
				if (++r >= max)
					break;
				used = 0;
				out[r][0] = 0;
			}
			if (used)
				used = append(out[r], used, FBCON_HEADER_SEP, sep, width);
			used = append(out[r], used, p, len, width);
			if (!end)
				break;
			p = end + sep;
		}
		if (r < max)
			r++;
	}
	return r;
}
