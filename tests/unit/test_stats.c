/* test_stats.c - host tests for kernel/measure/stats.c against an independent long-double reference and libm's sqrt. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "stats.h"

#define MAX_SAMPLES 1000
#define RANDOM_SETS 300
#define RANDOM_SQRTS 200000
#define REL_TOL 1e-12
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state = 0xd1b54a32d192ed03ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int close_to(double got, long double want)
{
	long double diff = fabsl((long double)got - want);

	return diff <= REL_TOL * fabsl(want) || diff == 0;
}

#define CHECK_CLOSE(got, want)                                                 \
	do {                                                                   \
		double g_ = (got);                                             \
		long double w_ = (want);                                       \
		if (!close_to(g_, w_)) {                                       \
			printf("  FAIL %s:%d: %s: %s = %.17g, want %.17Lg\n",  \
			       __FILE__, __LINE__, check_cur_name, #got, g_, w_); \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

/*
 * Textbook two-pass definitions, shifted to the first sample so the
 * deviations are exact in __int128 and long double (64-bit mantissa) keeps
 * the rest; sorted by the C library's qsort.
 */
static void reference(const uint64_t *v, size_t n, struct stats *st,
		      long double *mean, long double *sd, long double *median)
{
	static uint64_t s[MAX_SAMPLES];
	__int128 sum = 0;
	long double m, ss = 0;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	st->n = n;
	st->min = s[0];
	st->max = s[n - 1];
	for (size_t i = 0; i < n; i++)
		sum += (__int128)v[i] - (__int128)v[0];
	m = (long double)sum / n;
	*mean = (long double)v[0] + m;
	for (size_t i = 0; i < n; i++) {
		long double d = (long double)((__int128)v[i] - (__int128)v[0]) - m;

		ss += d * d;
	}
	*sd = n > 1 ? sqrtl(ss / (n - 1)) : 0;
	*median = n & 1 ? (long double)s[n / 2]
			: (long double)s[n / 2 - 1] +
			  (long double)(s[n / 2] - s[n / 2 - 1]) / 2;
}

static void check_against_reference(const uint64_t *v, size_t n)
{
	static uint64_t scratch[MAX_SAMPLES], copy[MAX_SAMPLES];
	struct stats got, want;
	long double mean, sd, median;

	memcpy(copy, v, n * sizeof(*v));
	stats_compute(v, n, scratch, &got);
	reference(v, n, &want, &mean, &sd, &median);
	CHECK(memcmp(copy, v, n * sizeof(*v)) == 0);
	CHECK_EQ_U(got.n, n);
	CHECK_EQ_U(got.min, want.min);
	CHECK_EQ_U(got.max, want.max);
	CHECK_CLOSE(got.median, median);
	CHECK_CLOSE(got.mean, mean);
	CHECK_CLOSE(got.stddev, sd);
	if (mean != 0)
		CHECK_CLOSE(got.cv, sd / mean);
	for (size_t i = 1; i < n; i++)
		CHECK(scratch[i - 1] <= scratch[i]);
}

TEST(empty)
{
	struct stats st;
	uint64_t scratch[1];

	memset(&st, 0xff, sizeof(st));
	stats_compute(NULL, 0, scratch, &st);
	CHECK_EQ_U(st.n, 0);
	CHECK_EQ_U(st.min, 0);
	CHECK_EQ_U(st.max, 0);
	CHECK(st.median == 0 && st.mean == 0 && st.stddev == 0 && st.cv == 0);
}

TEST(one_sample)
{
	uint64_t v[] = { 42 }, scratch[1];
	struct stats st;

	stats_compute(v, 1, scratch, &st);
	CHECK_EQ_U(st.n, 1);
	CHECK_EQ_U(st.min, 42);
	CHECK_EQ_U(st.max, 42);
	CHECK(st.median == 42 && st.mean == 42);
	CHECK(st.stddev == 0 && st.cv == 0);
}

TEST(two_samples)
{
	uint64_t v[] = { 20, 10 }, scratch[2];
	struct stats st;

	stats_compute(v, 2, scratch, &st);
	CHECK_EQ_U(st.min, 10);
	CHECK_EQ_U(st.max, 20);
	CHECK(st.median == 15 && st.mean == 15);
	CHECK_CLOSE(st.stddev, sqrtl(50));
	CHECK_CLOSE(st.cv, sqrtl(50) / 15);
	CHECK(v[0] == 20 && v[1] == 10);
}

TEST(known_data_sets)
{
	uint64_t odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	uint64_t textbook[] = { 2, 4, 4, 4, 5, 5, 7, 9 }, scratch[8];
	struct stats st;

	stats_compute(odd, NELEM(odd), scratch, &st);
	CHECK(st.median == 3 && st.mean == 3);
	CHECK(st.stddev == 2);
	stats_compute(even, NELEM(even), scratch, &st);
	CHECK(st.median == 2.5 && st.mean == 2.5);
	CHECK_CLOSE(st.stddev, sqrtl(5.0L / 3));
	stats_compute(textbook, NELEM(textbook), scratch, &st);
	CHECK(st.mean == 5 && st.median == 4.5);
	CHECK_CLOSE(st.stddev, 2.138089935299395);
	CHECK_CLOSE(st.cv, 2.138089935299395 / 5);
	check_against_reference(textbook, NELEM(textbook));
}

/* numpy.percentile(x, [25, 75]) ("linear", its default) gives these. */
TEST(quartiles)
{
	uint64_t one[] = { 7 }, odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	uint64_t textbook[] = { 2, 4, 4, 4, 5, 5, 7, 9 }, scratch[8];
	uint64_t top[] = { UINT64_MAX, UINT64_MAX - 4 };
	struct stats st;

	stats_compute(one, NELEM(one), scratch, &st);
	CHECK(st.q1 == 7 && st.q3 == 7);
	stats_compute(odd, NELEM(odd), scratch, &st);
	CHECK(st.q1 == 2 && st.q3 == 4);
	stats_compute(even, NELEM(even), scratch, &st);
	CHECK(st.q1 == 1.75 && st.q3 == 3.25);
	stats_compute(textbook, NELEM(textbook), scratch, &st);
	CHECK(st.q1 == 4 && st.q3 == 5.5);
	CHECK(st.q1 <= st.median && st.median <= st.q3);
	/* Near 2^64 the gap is interpolated, not two rounded doubles. */
	stats_compute(top, NELEM(top), scratch, &st);
	CHECK(st.q1 == (double)(UINT64_MAX - 4) + 1.0 && st.q3 >= st.q1);
	CHECK(stats_quantile(scratch, 0, 0.5) == 0);
	CHECK(stats_quantile(scratch, 2, 0) == (double)(UINT64_MAX - 4));
	CHECK(stats_quantile(scratch, 2, 1) == (double)UINT64_MAX);
}

/* A single sample has no spread: stddev and cv stay 0 for stats_rec to write as null. */
TEST(one_sample_no_cv)
{
	uint64_t v[] = { 1000 }, scratch[1];
	struct stats st;

	stats_compute(v, 1, scratch, &st);
	CHECK(st.stddev == 0 && st.cv == 0 && st.median == 1000);
}

TEST(identical_samples)
{
	uint64_t v[64], scratch[64];
	struct stats st;

	for (size_t i = 0; i < NELEM(v); i++)
		v[i] = 123456789;
	stats_compute(v, NELEM(v), scratch, &st);
	CHECK(st.mean == 123456789 && st.median == 123456789);
	CHECK(st.stddev == 0 && st.cv == 0);
	memset(v, 0, sizeof(v));
	stats_compute(v, NELEM(v), scratch, &st);
	CHECK(st.mean == 0 && st.stddev == 0 && st.cv == 0);
}

TEST(huge_values)
{
	const uint64_t top = 1ull << 63;
	uint64_t near_top[] = { top - 5, top + 3, top - 1, top + 100, top };
	uint64_t extremes[] = { UINT64_MAX, UINT64_MAX - 1 };
	uint64_t spread[] = { 0, UINT64_MAX, UINT64_MAX / 2, 1 };
	uint64_t scratch[8];
	struct stats st;

	stats_compute(near_top, NELEM(near_top), scratch, &st);
	CHECK_EQ_U(st.min, top - 5);
	CHECK_EQ_U(st.max, top + 100);
	CHECK(st.median == (double)(top - 1));
	/* Deviations {-5, 3, -1, 100, 0}: mean 19.4, squared deviations 8153.2. */
	CHECK_CLOSE(st.stddev, sqrtl(8153.2L / 4));
	check_against_reference(near_top, NELEM(near_top));
	stats_compute(extremes, NELEM(extremes), scratch, &st);
	CHECK(st.median == (double)UINT64_MAX);
	CHECK_CLOSE(st.stddev, sqrtl(0.5L));
	check_against_reference(extremes, NELEM(extremes));
	check_against_reference(spread, NELEM(spread));
}

TEST(small_spread_on_large_base)
{
	/* 2^62 + {0, 1, 2}: mean 2^62 + 1, stddev exactly 1. */
	uint64_t v[] = { (1ull << 62) + 2, 1ull << 62, (1ull << 62) + 1 };
	uint64_t scratch[3];
	struct stats st;

	stats_compute(v, NELEM(v), scratch, &st);
	CHECK(st.stddev == 1);
	CHECK(st.median == (double)((1ull << 62) + 1));
}

TEST(random_sets)
{
	static uint64_t v[MAX_SAMPLES];

	for (int t = 0; t < RANDOM_SETS; t++) {
		size_t n = 1 + (size_t)(rng() % MAX_SAMPLES);
		uint64_t base = rng() >> (rng() % 64);
		uint64_t noise = 1 + (rng() >> (rng() % 64 | 1));

		for (size_t i = 0; i < n; i++) {
			uint64_t d = rng() % noise;

			v[i] = base > UINT64_MAX - d ? UINT64_MAX - d : base + d;
		}
		check_against_reference(v, n);
	}
}

TEST(sort)
{
	static uint64_t v[MAX_SAMPLES], ref[MAX_SAMPLES];

	for (int t = 0; t < RANDOM_SETS; t++) {
		size_t n = (size_t)(rng() % MAX_SAMPLES);
		int kind = t % 4;

		for (size_t i = 0; i < n; i++)
			v[i] = kind == 0 ? rng() : kind == 1 ? rng() % 4
			     : kind == 2 ? i : n - i;
		memcpy(ref, v, n * sizeof(*v));
		qsort(ref, n, sizeof(*ref), cmp_u64);
		stats_sort_u64(v, n);
		CHECK(memcmp(v, ref, n * sizeof(*v)) == 0);
	}
	stats_sort_u64(NULL, 0);
}

TEST(sqrt_special_values)
{
	CHECK(stats_sqrt(0.0) == 0.0 && !signbit(stats_sqrt(0.0)));
	CHECK(stats_sqrt(-0.0) == 0.0 && signbit(stats_sqrt(-0.0)));
	CHECK(isnan(stats_sqrt(-1.0)));
	CHECK(isnan(stats_sqrt(-INFINITY)));
	CHECK(isnan(stats_sqrt(NAN)));
	CHECK(stats_sqrt(INFINITY) == INFINITY);
	CHECK(stats_sqrt(1.0) == 1.0);
	CHECK(stats_sqrt(4.0) == 2.0);
	CHECK(stats_sqrt(0.25) == 0.5);
	CHECK(stats_sqrt(2.0) == sqrt(2.0));
	CHECK(stats_sqrt(5e-324) == sqrt(5e-324));
	/* A near-tie at a binade edge: one ulp is the promise. */
	CHECK(stats_sqrt(1.7976931348623157e308) <=
	      nextafter(sqrt(1.7976931348623157e308), INFINITY));
	CHECK(stats_sqrt(1e300) == 1e150);
	CHECK(stats_sqrt(1e-300) == 1e-150);
}

TEST(sqrt_perfect_squares_exact)
{
	for (uint64_t k = 0; k < 100000; k++)
		if (stats_sqrt((double)(k * k)) != (double)k) {
			CHECK_EQ_U(k, ~0ull);
			break;
		}
	for (int t = 0; t < RANDOM_SQRTS / 10; t++) {
		uint64_t k = rng() >> 38;  /* k^2 < 2^52: exact in a double */

		CHECK(stats_sqrt((double)(k * k)) == (double)k);
	}
}

TEST(sqrt_within_one_ulp)
{
	unsigned exact = 0;

	for (int t = 0; t < RANDOM_SQRTS; t++) {
		uint64_t bits = rng() >> 1;  /* any positive finite or not */
		double x, got, want;

		memcpy(&x, &bits, sizeof(x));
		if (!isfinite(x))
			continue;
		got = stats_sqrt(x);
		want = sqrt(x);
		exact += got == want;
		if (got != want && got != nextafter(want, 0) &&
		    got != nextafter(want, INFINITY)) {
			printf("  sqrt(%a) = %a, libm %a\n", x, got, want);
			CHECK(0);
			break;
		}
	}
	printf("  sqrt: %u of %d random inputs correctly rounded\n", exact,
	       RANDOM_SQRTS);
}

TEST(ticks_to_ns)
{
	CHECK(stats_ticks_to_ns(3e9, 3000000000ull) == 1e9);
	CHECK(stats_ticks_to_ns(1.0, 1000000000ull) == 1.0);
	CHECK(stats_ticks_to_ns(2994.375, 2994375000ull) == 1000.0);
	CHECK(stats_ticks_to_ns(12345.0, 0) == 0.0);
	CHECK(stats_ticks_to_ns(0.0, 3000000000ull) == 0.0);
}

int main(void)
{
	RUN(empty);
	RUN(one_sample);
	RUN(two_samples);
	RUN(known_data_sets);
	RUN(quartiles);
	RUN(one_sample_no_cv);
	RUN(identical_samples);
	RUN(huge_values);
	RUN(small_spread_on_large_base);
	RUN(random_sets);
	RUN(sort);
	RUN(sqrt_special_values);
	RUN(sqrt_perfect_squares_exact);
	RUN(sqrt_within_one_ulp);
	RUN(ticks_to_ns);
	return check_summary("stats");
}
