/* fmt_dec.c - exact binary64 to decimal for fmt.c's %f: big-number integer digits and a fraction multiplied out by ten (IEEE 754-2008 3.4). */
#include <stdbool.h>
#include <stdint.h>

#include "fmt_dec.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */

#define LIMB_HALF (1u << (FMT_DEC_LIMB_BITS - 1))
#define DEC_CHUNK 1000000000u  /* 10^9, the largest power of ten in a limb */
#define DEC_CHUNK_DIGITS 9
#define DEC_BASE 10

/* ---- Private Functions ---------------------------------------------------- */

/* OR v << bit into the n-limb little-endian number limb, dropping overflow. */
static void fmt_dec_limbs_or(uint32_t *limb, size_t n, unsigned bit, uint64_t v)
{
	size_t word = bit / FMT_DEC_LIMB_BITS;
	unsigned sh = bit % FMT_DEC_LIMB_BITS;
	uint64_t lo = v << sh;
	uint64_t hi = sh ? v >> (2 * FMT_DEC_LIMB_BITS - sh) : 0;
	uint32_t w[3] = { (uint32_t)lo, (uint32_t)(lo >> FMT_DEC_LIMB_BITS),
			  (uint32_t)hi };

	for (size_t i = 0; i < ARRAY_SIZE(w) && word + i < n; i++)
		limb[word + i] |= w[i];
}

/* Compare the remaining fraction with one half: <0, 0 or >0. */
static int fmt_dec_frac_cmp_half(const uint32_t *limb, size_t lo, size_t n)
{
	if (limb[n - 1] != LIMB_HALF)
		return limb[n - 1] > LIMB_HALF ? 1 : -1;
	for (size_t i = lo; i < n - 1; i++)
		if (limb[i])
			return 1;
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */

size_t fmt_dec_int_digits(uint64_t mant, int e2, char *rev)
{
	uint32_t limb[FMT_DEC_INT_LIMBS] = { 0 };
	size_t n = FMT_DEC_INT_LIMBS, nd = 0;

	if (e2 >= 0)
		fmt_dec_limbs_or(limb, n, (unsigned)e2, mant);
	else if (-e2 < (int)(2 * FMT_DEC_LIMB_BITS))
		fmt_dec_limbs_or(limb, n, 0, mant >> -e2);
	while (n && !limb[n - 1])
		n--;
	while (n) {
		uint64_t rem = 0;

		for (size_t i = n; i--;) {
			uint64_t cur = (rem << FMT_DEC_LIMB_BITS) | limb[i];

			limb[i] = (uint32_t)(cur / DEC_CHUNK);
			rem = cur % DEC_CHUNK;
		}
		while (n && !limb[n - 1])
			n--;
		/* Inner chunks keep their leading zeros; the top one does not. */
		for (int k = 0; k < DEC_CHUNK_DIGITS && (n || rem); k++) {
			rev[nd++] = (char)('0' + rem % DEC_BASE);
			rem /= DEC_BASE;
		}
	}
	if (!nd)
		rev[nd++] = '0';
	return nd;
}

size_t fmt_dec_increment(char *rev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rev[i] != '9') {
			rev[i]++;
			return n;
		}
		rev[i] = '0';
	}
	rev[n] = '1';
	return n + 1;
}

size_t fmt_dec_frac_load(uint32_t *limb, uint64_t mant, int e2)
{
	unsigned q;
	uint64_t f;
	size_t n;

	if (e2 >= 0)
		return 0;
	q = (unsigned)-e2;
	f = q < 2 * FMT_DEC_LIMB_BITS ? mant & ((1ull << q) - 1) : mant;
	if (!f)
		return 0;
	n = (q + FMT_DEC_LIMB_BITS - 1) / FMT_DEC_LIMB_BITS;
	memset(limb, 0, n * sizeof(*limb));
	fmt_dec_limbs_or(limb, n, (unsigned)(n * FMT_DEC_LIMB_BITS - q), f);
	return n;
}

unsigned fmt_dec_frac_next(uint32_t *limb, size_t *lo, size_t n)
{
	uint64_t carry = 0;

	for (size_t i = *lo; i < n; i++) {
		uint64_t cur = (uint64_t)limb[i] * DEC_BASE + carry;

		limb[i] = (uint32_t)cur;
		carry = cur >> FMT_DEC_LIMB_BITS;
	}
	while (*lo < n && !limb[*lo])
		(*lo)++;
	return (unsigned)carry;
}

bool fmt_dec_frac_rounds_up(uint64_t mant, int e2, size_t prec,
			    unsigned int_last, ptrdiff_t *carry_at)
{
	uint32_t limb[FMT_DEC_FRAC_LIMBS];
	size_t n = fmt_dec_frac_load(limb, mant, e2), lo = 0;
	unsigned last = int_last;
	int cmp;

	*carry_at = -1;
	for (size_t i = 0; i < prec; i++) {
		if (lo == n)
			return false;  /* exact: the rest are zeros */
		last = fmt_dec_frac_next(limb, &lo, n);
		if (last != DEC_BASE - 1)
			*carry_at = (ptrdiff_t)i;
	}
	if (lo == n)
		return false;
	cmp = fmt_dec_frac_cmp_half(limb, lo, n);
	return cmp > 0 || (cmp == 0 && (last & 1));
}
