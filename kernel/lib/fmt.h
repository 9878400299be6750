/* fmt.h - snprintf-style formatting into caller buffers, following C11 7.21.6.1 for the supported subset. */
#ifndef QB_KERNEL_FMT_H
#define QB_KERNEL_FMT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Format into buf (at most cap bytes including the NUL, which is always
 * written when cap > 0) and return the length the whole output would have
 * had, like C99 vsnprintf; -1 if that length exceeds INT_MAX.
 *
 * Conversions: d i u x X o c s p % f F. Length modifiers: hh h l ll z j t.
 * Flags: - 0 + space #. Width and precision, including '*'. %f is exact
 * (correctly rounded, ties to even) for every finite double; inf and nan
 * print as "inf"/"nan" ("-inf"/"-nan" when the sign bit is set). %p prints
 * "0x..." or "(nil)" and %s of NULL prints "(null)", as glibc does. Anything
 * else (%e %g %a %n, %L...) is copied to the output verbatim; %e %g %a still
 * consume their double and %n its pointer (never written through).
 */
int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);

/* fmt_vsnprintf with a variable argument list. */
int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
