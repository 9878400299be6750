/* check.h - the host unit-test harness: CHECK macros and the closing summary line.
 *
 * Each test program includes this once, defines test functions with TEST(),
 * lists them in main() with RUN(), and returns check_summary(). The summary
 * line "N passed, N failed" is the one CI reads. */
#ifndef QB_TESTS_CHECK_H
#define QB_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed, check_cur_failed;
static const char *check_cur_name;

/* Fail the current test (and keep going) when cond is false. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("  FAIL %s:%d: %s: %s\n", __FILE__, __LINE__,   \
			       check_cur_name, #cond);                         \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

/* Compare two unsigned integers and print both on failure. */
#define CHECK_EQ_U(a, b)                                                       \
	do {                                                                   \
		unsigned long long check_a_ = (unsigned long long)(a);         \
		unsigned long long check_b_ = (unsigned long long)(b);         \
		if (check_a_ != check_b_) {                                    \
			printf("  FAIL %s:%d: %s: %s == %s (%llu != %llu)\n",  \
			       __FILE__, __LINE__, check_cur_name, #a, #b,     \
			       check_a_, check_b_);                            \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

/* Compare two NUL-terminated strings and print both on failure. */
#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *check_a_ = (a), *check_b_ = (b);                   \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_)) {   \
			printf("  FAIL %s:%d: %s: %s == %s (\"%s\" != \"%s\")\n", \
			       __FILE__, __LINE__, check_cur_name, #a, #b,     \
			       check_a_ ? check_a_ : "(null)",                 \
			       check_b_ ? check_b_ : "(null)");                \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

#define TEST(name) static void name(void)

/* Run one test function and count it as passed or failed. */
#define RUN(fn)                                                                \
	do {                                                                   \
		check_cur_name = #fn;                                          \
		check_cur_failed = 0;                                          \
		fn();                                                          \
		if (check_cur_failed) {                                        \
			check_failed++;                                        \
			printf("FAIL %s\n", #fn);                              \
		} else {                                                       \
			check_passed++;                                        \
		}                                                              \
	} while (0)

/* Print the summary line and return the process exit status. */
static inline int check_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
