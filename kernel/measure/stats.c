/* stats.c - heapsort order statistics and a two-pass sample mean/variance (Knuth TAOCP 2, 4.2.2) of tick samples. */
#include <stdbool.h>

#include "lib.h"
#include "stats.h"

/* ---- Constants ------------------------------------------------------------ */

#define NS_PER_SEC 1e9

/* IEEE 754-2008 3.4 binary64 layout, for the square root's first guess. */
#define DBL_FRAC_BITS 52
#define DBL_EXP_MASK 0x7ffull
#define DBL_EXP_BIAS 1023ull
#define DBL_SIGN_BIT (1ull << 63)

/*
 * Subnormal inputs are scaled up, and inputs above 2^SQRT_BIG_EXP down, by
 * 2^SQRT_SCALE_EXP (even, so the root scales by exactly half of it).
 */
#define SQRT_SCALE_EXP 108
#define SQRT_BIG_EXP 960
#define SQRT_MAX_ITERS 16  /* the guess is within 2x: 6 suffice, the rest are slack */
#define DEKKER_SPLIT 134217729.0  /* 2^27 + 1: splits a double into 26-bit halves */

/* ---- Private Functions ---------------------------------------------------- */

static uint64_t stats_bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

static double stats_from_bits(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

/* 2^e for a normal exponent, built from its bits (no libm ldexp). */
static double stats_pow2(int e)
{
	return stats_from_bits((uint64_t)((int64_t)DBL_EXP_BIAS + e)
			       << DBL_FRAC_BITS);
}

/*
 * x - y*y exactly rounded, without FMA: Dekker's split of y into two 26-bit
 * halves makes every partial product exact (Dekker 1971, "A floating-point
 * technique for extending the available precision").
 */
static double stats_sqrt_residual(double x, double y)
{
	double c = DEKKER_SPLIT * y;
	double hi = c - (c - y), lo = y - hi;
	double p = y * y;
	double e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo;

	return (x - p) - e;  /* x - p is exact: p is within 2x of x */
}

static void stats_sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		uint64_t t;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/* ---- Public Functions ----------------------------------------------------- */

void stats_sort_u64(uint64_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		stats_sift_down(v, i, n);
	for (size_t end = n; end > 1; end--) {
		uint64_t t = v[0];

		v[0] = v[end - 1];
		v[end - 1] = t;
		stats_sift_down(v, 0, end - 1);
	}
}

double stats_sqrt(double x)
{
	uint64_t b = stats_bits(x);
	double y, prev = 0.0, scale = 1.0;

	if (x != x || x == 0.0)
		return x;  /* NaN, +0 and -0 are their own roots (IEEE 754 9.2) */
	if (b & DBL_SIGN_BIT)
		return __builtin_nan("");
	if ((b >> DBL_FRAC_BITS) == DBL_EXP_MASK)
		return x;  /* +inf */
	/* Keep y*y and Dekker's partial products clear of under/overflow. */
	if (!(b >> DBL_FRAC_BITS)) {
		x *= stats_pow2(SQRT_SCALE_EXP);
		scale = stats_pow2(-SQRT_SCALE_EXP / 2);
	} else if ((b >> DBL_FRAC_BITS) > DBL_EXP_BIAS + SQRT_BIG_EXP) {
		x *= stats_pow2(-SQRT_SCALE_EXP);
		scale = stats_pow2(SQRT_SCALE_EXP / 2);
	}
	b = stats_bits(x);
	/* Halving the biased exponent gives a guess within a factor of two. */
	y = stats_from_bits((b >> 1) + (DBL_EXP_BIAS << (DBL_FRAC_BITS - 1)));
	for (int i = 0; i < SQRT_MAX_ITERS && y != prev; i++) {
		prev = y;
		y = 0.5 * (y + x / y);
	}
	/*
	 * Newton in doubles may stop an ulp away; one more step with the exact
	 * residual x - y*y (Dekker's product) nearly always lands on the
	 * correctly rounded root, and never moves more than an ulp.
	 */
	y += stats_sqrt_residual(x, y) / (2.0 * y);
	return y * scale;
}

double stats_quantile(const uint64_t *sorted, size_t n, double p)
{
	if (!n)
		return 0.0;
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)h;
	if (lo >= n - 1)
		return (double)sorted[n - 1];
	/* The gap, not the difference of two doubles: exact for ticks near 2^64. */
	return (double)sorted[lo] + (double)(sorted[lo + 1] - sorted[lo]) * (h - (double)lo);
}

void stats_compute(const uint64_t *samples, size_t n, uint64_t *scratch,
		   struct stats *out)
{
	double mean = 0.0, m2 = 0.0;
	size_t mid = n / 2;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	memcpy(scratch, samples, n * sizeof(*scratch));
	stats_sort_u64(scratch, n);
	out->n = n;
	out->min = scratch[0];
	out->max = scratch[n - 1];
	if (n & 1)
		out->median = (double)scratch[mid];
	else	/* halve the gap, not the sum, which could overflow */
		out->median = (double)scratch[mid - 1] +
			      (double)(scratch[mid] - scratch[mid - 1]) / 2;
	out->q1 = stats_quantile(scratch, n, 0.25);
	out->q3 = stats_quantile(scratch, n, 0.75);

	/*
	 * Deviations from the minimum are exact in uint64_t and small next to
	 * raw tick counts, so the double arithmetic keeps its precision.
	 */
	for (size_t i = 0; i < n; i++)
		mean += ((double)(scratch[i] - out->min) - mean) / (double)(i + 1);
	for (size_t i = 0; i < n; i++) {
		double d = (double)(scratch[i] - out->min) - mean;

		m2 += d * d;
	}
	out->mean = (double)out->min + mean;
	if (n > 1)
		out->stddev = stats_sqrt(m2 / (double)(n - 1));
	if (n > 1 && out->mean != 0.0)
		out->cv = out->stddev / out->mean;
}

double stats_ticks_to_ns(double ticks, uint64_t tsc_hz)
{
	if (!tsc_hz)
		return 0.0;
	return ticks * NS_PER_SEC / (double)tsc_hz;
}
