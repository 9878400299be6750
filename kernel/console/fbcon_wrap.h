/* fbcon_wrap.h - a summary line wider than the screen, wrapped at its spaces onto more rows (the counter's and the noise's lines are wider than an 800x600 or a 1920x1080 screen's 100 or 120 cells). Pure: the host tests drive it. */
#ifndef QB_KERNEL_FBCON_WRAP_H
#define QB_KERNEL_FBCON_WRAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * The next row of text s on a row of `width` cells: returns how many
 * characters of s it shows, and sets *next to where the row after it
 * starts. The rest of s where it fits (width 0: the rest, cut by the
 * caller); else up to the last space in the row's second half, the spaces
 * there dropped; else `width` characters (no space to break at).
 */
size_t fbcon_wrap_row(const char *s, size_t width, const char **next);

/* Rows s takes: its first on `width` cells, the others on width - indent. */
uint32_t fbcon_wrap_rows(const char *s, size_t width, size_t indent);

#endif
