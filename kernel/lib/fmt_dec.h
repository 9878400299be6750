/* fmt_dec.h - exact decimal digits of a finite IEEE 754 binary64 value mant * 2^e2, in big numbers, for fmt.c's %f. */
#ifndef QB_KERNEL_FMT_DEC_H
#define QB_KERNEL_FMT_DEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* IEEE 754-2008 3.4 binary64: the widest integer and fraction parts. */
#define FMT_DEC_INT_DIGITS_MAX 309   /* decimal digits of DBL_MAX */
#define FMT_DEC_INT_BITS_MAX 1024    /* DBL_MAX < 2^1024 */
#define FMT_DEC_FRAC_BITS_MAX 1074   /* least subnormal is 2^-1074 */

/* Big numbers are 32-bit limbs, least significant first, so products fit in uint64_t. */
#define FMT_DEC_LIMB_BITS 32
#define FMT_DEC_INT_LIMBS (FMT_DEC_INT_BITS_MAX / FMT_DEC_LIMB_BITS)
#define FMT_DEC_FRAC_LIMBS \
	((FMT_DEC_FRAC_BITS_MAX + FMT_DEC_LIMB_BITS - 1) / FMT_DEC_LIMB_BITS)

/*
 * Write the integer part of mant * 2^e2 into rev as decimal digits, least
 * significant first ("0" for a value below one), and return their count.
 * rev must hold FMT_DEC_INT_DIGITS_MAX bytes (one more if it may later
 * go through fmt_dec_increment).
 */
size_t fmt_dec_int_digits(uint64_t mant, int e2, char *rev);

/*
 * Add one to the n-digit reversed decimal string rev and return its new
 * length (n + 1 when the carry runs off the top; rev must have room).
 */
size_t fmt_dec_increment(char *rev, size_t n);

/*
 * Load the fraction of mant * 2^e2 into limb (FMT_DEC_FRAC_LIMBS of them)
 * as a fixed-point number whose binary point sits above the top limb, and
 * return the limb count in use (0: the value has no fraction).
 */
size_t fmt_dec_frac_load(uint32_t *limb, uint64_t mant, int e2);

/*
 * Multiply the n-limb fraction by ten and return the digit that moves above
 * the point. Low limbs fall to zero as factors of two accumulate, so *lo
 * (start it at 0) skips them; *lo == n means the fraction is exhausted.
 */
unsigned fmt_dec_frac_next(uint32_t *limb, size_t *lo, size_t n);

/*
 * Decide whether printing prec fraction digits of mant * 2^e2 rounds up (to
 * nearest, ties to even, as glibc does in the default rounding mode).
 * int_last is the integer part's last digit (the one a tie at prec == 0
 * looks at). *carry_at is set to the fraction digit that absorbs the
 * increment, or -1 when it ripples into the integer part.
 */
bool fmt_dec_frac_rounds_up(uint64_t mant, int e2, size_t prec,
			    unsigned int_last, ptrdiff_t *carry_at);

#endif
