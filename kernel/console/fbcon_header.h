/* fbcon_header.h - the screen's header on as many rows as its width needs: a header line that does not fit one row is cut at its fields ("  |  ") and they are packed onto rows, so an 800x600 screen shows the whole machine, not its first 100 characters. Pure: the host tests drive it. */
#ifndef QB_KERNEL_FBCON_HEADER_H
#define QB_KERNEL_FBCON_HEADER_H

#include <stdint.h>
#include "fbcon.h"

#define FBCON_HEADER_SEP "  |  "   /* between a header line's fields */

/*
 * Lay the header's n lines out on rows of `width` cells into out[0 .. max):
 * a line that fits takes one row; a longer one is cut at its separators and
 * its fields packed onto as few rows as hold them, in order (a field longer
 * than a row is cut at the row's end). Returns the rows used: at least n
 * (when max allows), at most max; what does not fit in max rows is left out.
 */
uint32_t fbcon_header_layout(const char *const *lines, uint32_t n, uint32_t width, char (*out)[FBCON_LINE_LEN],
			     uint32_t max);

#endif
