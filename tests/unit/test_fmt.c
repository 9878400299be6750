/* test_fmt.c - host tests for kernel/lib/fmt.c: every case is compared with the host's snprintf, full and truncated. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "fmt.h"

#define BUF_SIZE 4096
#define GUARD_SIZE 64
#define GUARD_BYTE 0xa5
#define RANDOM_DOUBLES 20000
#define RANDOM_INTS 5000
#define MAX_RANDOM_PREC 40
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static char host_buf[BUF_SIZE];
static char our_buf[BUF_SIZE + GUARD_SIZE];
static unsigned cases;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill_guard(void)
{
	memset(our_buf, GUARD_BYTE, sizeof(our_buf));
}

/* Compare one (host, ours) pair produced with the same cap. */
static void check_same(int line, const char *what, int hret, int qret,
		       size_t cap)
{
	size_t stored = 0;
	int bad = 0;

	cases++;
	if (hret != qret)
		bad = 1;
	if (cap) {
		stored = hret < 0 ? 0 : MIN((size_t)hret, cap - 1);
		if (memcmp(host_buf, our_buf, stored) || our_buf[stored] != 0)
			bad = 1;
	}
	for (size_t i = cap ? stored + 1 : 0; i < sizeof(our_buf); i++) {
		if ((unsigned char)our_buf[i] != GUARD_BYTE) {
			printf("  wrote past the NUL at %zu (cap %zu)\n", i, cap);
			bad = 1;
			break;
		}
	}
	if (bad) {
		printf("  FAIL line %d: %s cap %zu: host %d \"%.*s\" ours %d \"%.*s\"\n",
		       line, what, cap, hret, (int)stored, host_buf, qret,
		       (int)stored, our_buf);
		check_cur_failed = 1;
	}
}

/* Run one case at full size and at truncating caps around its length. */
#define CMP(...)                                                               \
	do {                                                                   \
		int h_ = snprintf(host_buf, BUF_SIZE, __VA_ARGS__);            \
		fill_guard();                                                  \
		int q_ = fmt_snprintf(our_buf, BUF_SIZE, __VA_ARGS__);         \
		check_same(__LINE__, #__VA_ARGS__, h_, q_, BUF_SIZE);          \
		size_t n_ = h_ < 0 ? 0 : (size_t)h_;                           \
		size_t caps_[] = { 0, 1, 2, n_ / 2, n_, n_ + 1 };              \
		for (size_t i_ = 0; i_ < NELEM(caps_); i_++) {                 \
			if (caps_[i_] > BUF_SIZE)                              \
				continue;                                      \
			memset(host_buf, 0, sizeof(host_buf));                 \
			h_ = snprintf(host_buf, caps_[i_], __VA_ARGS__);       \
			fill_guard();                                          \
			q_ = fmt_snprintf(our_buf, caps_[i_], __VA_ARGS__);    \
			check_same(__LINE__, #__VA_ARGS__, h_, q_, caps_[i_]); \
		}                                                              \
	} while (0)

/* Same as CMP for a format chosen at run time (one argument). */
static void cmp_double(int line, const char *f, double v)
{
	int h = snprintf(host_buf, BUF_SIZE, f, v);
	int q;

	fill_guard();
	q = fmt_snprintf(our_buf, BUF_SIZE, f, v);
	check_same(line, f, h, q, BUF_SIZE);
	if (check_cur_failed)
		printf("    value %a\n", v);
}

static void cmp_prec_double(int line, int prec, double v)
{
	int h = snprintf(host_buf, BUF_SIZE, "%.*f", prec, v);
	int q;

	fill_guard();
	q = fmt_snprintf(our_buf, BUF_SIZE, "%.*f", prec, v);
	check_same(line, "%.*f", h, q, BUF_SIZE);
}

static void cmp_ll(int line, const char *f, long long v)
{
	int h = snprintf(host_buf, BUF_SIZE, f, v);
	int q;

	fill_guard();
	q = fmt_snprintf(our_buf, BUF_SIZE, f, v);
	check_same(line, f, h, q, BUF_SIZE);
}

static void cmp_ptr(int line, const char *f, const void *p)
{
	int h = snprintf(host_buf, BUF_SIZE, f, p);
	int q;

	fill_guard();
	q = fmt_snprintf(our_buf, BUF_SIZE, f, p);
	check_same(line, f, h, q, BUF_SIZE);
}

/* Call fmt_vsnprintf with a format the compiler does not check. */
static int ours(char *buf, size_t cap, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = fmt_vsnprintf(buf, cap, f, ap);
	va_end(ap);
	return n;
}

static const char *const signed_formats[] = {
	"%lld", "%lli", "%+lld", "% lld", "%+ lld", "%5lld", "%-5lld|",
	"%05lld", "%-05lld|", "%.3lld", "%8.3lld", "%-8.3lld|", "%08.3lld",
	"%+08lld", "% 08lld", "%.0lld", "%+.0lld", "% .0lld", "%20lld",
	"%-+20lld|", "%.25lld", "%030lld", "%1lld", "%0lld",
};

static const char *const unsigned_formats[] = {
	"%llu", "%llx", "%llX", "%llo", "%#llx", "%#llX", "%#llo", "%#.0llo",
	"%#.0llx", "%.0llu", "%020llx", "%#020llx", "%-#20llx|", "%.20llo",
	"%#5.3llo", "%#24llo", "%#.30llo", "%+llu", "% llx", "%8.4llX",
	"%-8.4llu|", "%08.4llo", "%#8llo", "%#08llx",
};

static const long long int_values[] = {
	0, 1, -1, 7, 8, 9, 10, 15, 16, 99, 100, 255, 256, 4095, 12345, -12345,
	INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN, INT64_MIN + 1,
	1000000000000000000ll, -999999999999999999ll, 0x123456789abcdefll,
};

TEST(integers_table)
{
	for (size_t v = 0; v < NELEM(int_values); v++) {
		for (size_t f = 0; f < NELEM(signed_formats); f++)
			cmp_ll(__LINE__, signed_formats[f], int_values[v]);
		for (size_t f = 0; f < NELEM(unsigned_formats); f++)
			cmp_ll(__LINE__, unsigned_formats[f], int_values[v]);
	}
}

TEST(integers_random)
{
	for (int i = 0; i < RANDOM_INTS; i++) {
		/* Vary the magnitude so every digit count appears. */
		long long v = (long long)(rng() >> (rng() % 64));

		if (rng() & 1)
			v = -v;
		cmp_ll(__LINE__, signed_formats[rng() % NELEM(signed_formats)], v);
		cmp_ll(__LINE__, unsigned_formats[rng() % NELEM(unsigned_formats)], v);
	}
}

TEST(length_modifiers)
{
	CMP("%d %i %u %x %X %o", 42, -42, 42u, 0xbeefu, 0xbeefu, 8u);
	CMP("%hhd %hhu %hhx", 300, -1, 0x1ff);
	CMP("%hhd", -129);
	CMP("%hd %hu %hx", 70000, -1, 0x12345);
	CMP("%ld %lu %lx", -5000000000l, 5000000000ul, 0xfffffffffful);
	CMP("%lld %llu %llx", (long long)INT64_MIN, (unsigned long long)UINT64_MAX,
	    0x8000000000000000ull);
	CMP("%zu %zx %zd", (size_t)SIZE_MAX, (size_t)4096, (ptrdiff_t)-3);
	CMP("%jd %ju %jx", (intmax_t)INT64_MIN, (uintmax_t)UINT64_MAX,
	    (uintmax_t)255);
	CMP("%td %tx", (ptrdiff_t)-123456789012ll, (ptrdiff_t)0x7fff);
	CMP("%d|%5d|%-5d|%05d|%+d|% d", 0, 0, 0, 0, 0, 0);
	CMP("%u%%", 100u);
	CMP("100%%");
	CMP("%%%d%%", 7);
	CMP("plain text, no conversions");
	CMP("%s", "");
}

TEST(star_width_precision)
{
	CMP("%*d|", 5, 42);
	CMP("%-*d|", 5, 42);
	CMP("%*d|", -5, 42);
	CMP("%*d|", 0, 42);
	CMP("%.*d|", 4, 42);
	CMP("%.*d|", -1, 42);
	CMP("%.*d|", 0, 0);
	CMP("%*.*d|", 8, 5, -42);
	CMP("%*.*f|", 10, 3, 3.14159);
	CMP("%-*.*f|", 10, 1, 2.75);
	CMP("%.*s|", 3, "abcdef");
	CMP("%.*s|", -1, "abc");
	CMP("%*s|", -6, "ab");
	CMP("%0*x", 8, 0xbeefu);
}

TEST(chars_and_strings)
{
	static const char unterminated[4] = { 'w', 'x', 'y', 'z' };

	CMP("%c", 'a');
	CMP("[%3c][%-3c]", 'b', 'c');
	CMP("a%cb", 0);   /* an embedded NUL still counts */
	CMP("%c%c%c", 0xe2, 0x82, 0xac);
	CMP("%s", "hello");
	CMP("[%10s][%-10s]", "hi", "hi");
	CMP("[%.2s][%10.2s][%-10.2s][%.0s]", "abc", "abc", "abc", "abc");
	CMP("[%.10s]", "short");
	CMP("%.4s", unterminated);  /* must not read past the precision */
	CMP("%s=%s", "key", "value with spaces");
	CMP("%s", "\x01\x7f\x80\xff high and control bytes");
}

TEST(null_string_and_pointer)
{
	const char *nul = NULL;
	char buf[32];

	/* Built through a variable so the compiler does not warn. */
	CHECK_EQ_U(ours(buf, sizeof(buf), "%s", nul), 6);
	CHECK_STR(buf, "(null)");
	ours(buf, sizeof(buf), "[%.3s]", nul);
	CHECK_STR(buf, "[]");
	ours(buf, sizeof(buf), "[%8s]", nul);
	CHECK_STR(buf, "[  (null)]");
	CHECK_EQ_U(fmt_snprintf(buf, sizeof(buf), "%p", (void *)0), 5);
	CHECK_STR(buf, "(nil)");
	fmt_snprintf(buf, sizeof(buf), "[%8p][%-8p]", (void *)0, (void *)0);
	CHECK_STR(buf, "[   (nil)][(nil)   ]");
}

TEST(pointers)
{
	static const char *const f[] = { "%p", "%20p|", "%-20p|", "%020p",
					 "%.8p", "%+p", "% p", "%#p", "%5p" };
	void *ptrs[] = { (void *)1, (void *)0x1234, (void *)&rng_state,
			 (void *)UINTPTR_MAX, NULL };

	for (size_t i = 0; i < NELEM(f); i++)
		for (size_t j = 0; j < NELEM(ptrs); j++)
			cmp_ptr(__LINE__, f[i], ptrs[j]);
}

static const char *const double_formats[] = {
	"%f", "%.0f", "%.1f", "%.2f", "%.3f", "%.5f", "%.6f", "%.9f", "%.10f",
	"%.15f", "%.17f", "%.20f", "%.30f", "%.60f", "%12.4f|", "%-12.4f|",
	"%012.4f", "%+.3f", "% .3f", "%+012.2f", "%-+12.2f|", "% 012.1f",
	"%#.0f", "%#f", "%F", "%.0F", "%20.10f", "%lf", "%1f", "%08f",
	"%-8f|", "%.340f", "%.1100f",
};

static const double double_values[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.125, 0.375,
	0.0625, 1234.5678, 0.000123, 1e-5, 123456789.123456789, 9.9999999,
	0.9999995, 0.05, 0.15, 0.25, 0.35, 0.45, 99.995, 0.045, 999.9996,
	1e15, 1e16, 1e17, 1e18, 9.999999999999999e17, 1e19, 1.8446744073709552e19,
	1e22, 1e23, 1e100, 1.7976931348623157e308, 2.2250738585072014e-308,
	2.225073858507201e-308, 4.9406564584124654e-324, 1.0 / 3, 2.0 / 3,
	3.141592653589793, 123.456, 2.5e9, 3.0e9 / 7, 1e-300, 4503599627370495.5,
	9007199254740993.0, 0.1, 0.2, 0.3, 1e-7, 5e-7, 4.9999999e-7,
	INFINITY, -INFINITY, NAN, -NAN,
};

TEST(doubles_table)
{
	for (size_t v = 0; v < NELEM(double_values); v++)
		for (size_t f = 0; f < NELEM(double_formats); f++)
			cmp_double(__LINE__, double_formats[f], double_values[v]);
}

TEST(doubles_truncated)
{
	CMP("%.2f", 1234.5678);
	CMP("%.6f", 0.000123);
	CMP("%f|%f", INFINITY, -NAN);
	CMP("%10.3f|%-10.3f|%010.3f", -1.0005, 1.0005, -1.0005);
	CMP("%.300f", 1e-300);
	CMP("%f", 1.7976931348623157e308);
	CMP("[%5f][%-5F][%05f][%+f][% f]", INFINITY, NAN, -INFINITY,
	    INFINITY, NAN);
}

TEST(doubles_random_bits)
{
	for (int i = 0; i < RANDOM_DOUBLES; i++) {
		uint64_t bits = rng();
		double v;

		memcpy(&v, &bits, sizeof(v));
		cmp_prec_double(__LINE__, (int)(rng() % MAX_RANDOM_PREC), v);
	}
}

TEST(doubles_random_typical)
{
	static const char *const f[] = { "%.0f", "%.1f", "%.2f", "%.3f",
					 "%.4f", "%f", "%.9f", "%.12f" };

	for (int i = 0; i < RANDOM_DOUBLES; i++) {
		/* Benchmark-like: scaled integers and ratios of tick counts. */
		double m = (double)(rng() >> 11);
		int e = (int)(rng() % 160) - 100;
		double v = ldexp(m, e);

		cmp_double(__LINE__, f[rng() % NELEM(f)], v);
		v = (double)(rng() % 100000000) / 1000.0;
		cmp_double(__LINE__, f[rng() % NELEM(f)], v);
		v = (double)(rng() % 1000000) * 1e9 / 2994375000.0;
		cmp_double(__LINE__, f[rng() % NELEM(f)], v);
	}
	/* Exact ties at every scale: x.5, x.25, x.125 ... */
	for (int p = 0; p < 12; p++)
		for (int k = 0; k < 200; k++)
			cmp_prec_double(__LINE__, p, ldexp(2 * k + 1, -(p + 1)));
}

TEST(truncation)
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_U(fmt_snprintf(buf, 5, "%d", 123456), 6);
	CHECK_STR(buf, "1234");
	CHECK(buf[5] == 'x');
	CHECK_EQ_U(fmt_snprintf(NULL, 0, "%d", 42), 2);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_U(fmt_snprintf(buf, 1, "abc"), 3);
	CHECK(buf[0] == '\0' && buf[1] == 'x');
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_U(fmt_snprintf(buf, 0, "abc"), 3);
	CHECK(buf[0] == 'x');
	CHECK_EQ_U(fmt_snprintf(buf, sizeof(buf), "%s", ""), 0);
	CHECK_STR(buf, "");
	/* A width past the buffer is counted, not written. */
	CHECK_EQ_U(fmt_snprintf(buf, sizeof(buf), "%100000d", 1), 100000);
	CHECK_EQ_U(strlen(buf), sizeof(buf) - 1);
	/* More than INT_MAX in total: -1, and the buffer is still terminated. */
	CHECK(ours(buf, sizeof(buf), "%*d%*d", INT32_MAX, 1, INT32_MAX, 1) == -1);
	CHECK_EQ_U(strlen(buf), sizeof(buf) - 1);
	CHECK(ours(buf, sizeof(buf), "%*d", INT32_MIN, 1) == -1);
}

TEST(unsupported_conversions)
{
	char buf[64];

	CHECK_EQ_U(ours(buf, sizeof(buf), "%y|%d", 5), 4);
	CHECK_STR(buf, "%y|5");
	/* %e and friends print verbatim but consume their double. */
	ours(buf, sizeof(buf), "%e|%g|%a|%d", 1.5, 2.5, 3.5, 7);
	CHECK_STR(buf, "%e|%g|%a|7");
	ours(buf, sizeof(buf), "%n|%d", (int *)NULL, 8);
	CHECK_STR(buf, "%n|8");
	ours(buf, sizeof(buf), "abc%");
	CHECK_STR(buf, "abc%");
	ours(buf, sizeof(buf), "abc%-08.3");
	CHECK_STR(buf, "abc%-08.3");
	ours(buf, sizeof(buf), "%5%|%-5%|");
	CHECK_STR(buf, "%|%|");
}

int main(void)
{
	RUN(integers_table);
	RUN(integers_random);
	RUN(length_modifiers);
	RUN(star_width_precision);
	RUN(chars_and_strings);
	RUN(null_string_and_pointer);
	RUN(pointers);
	RUN(doubles_table);
	RUN(doubles_truncated);
	RUN(doubles_random_bits);
	RUN(doubles_random_typical);
	RUN(truncation);
	RUN(unsupported_conversions);
	printf("fmt: %u comparisons\n", cases);
	return check_summary("fmt");
}
