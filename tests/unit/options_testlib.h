/* options_testlib.h - what the options tests share (test_options.c, test_options_keys.c): four test
 * workloads, a parse that poisons the error slots first, the defaults as options_parse leaves them, and an
 * error's key, value and reason checked. Static: each test program has its own copy (check.h's counters). */
#ifndef QB_TEST_OPTIONS_TESTLIB_H
#define QB_TEST_OPTIONS_TESTLIB_H

#include <stdint.h>
#include <string.h>
#include "check.h"
#include "options.h"
#include "qb_limits.h"

#define MAX_ERRS 16
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const names[] = { "membw", "latency", "stream", "pchase" };
#define ALL_NAMES ((1u << NELEM(names)) - 1)

static struct opt_error errs[MAX_ERRS];
static struct options opts;

/* Parse with the four test workloads; returns the error count. */
__attribute__((unused)) static int parse(const char *line)
{
	memset(errs, 0x5a, sizeof(errs));
	return options_parse(line, names, NELEM(names), &opts, errs, MAX_ERRS);
}

/* The defaults as options_parse leaves them for the test workloads. */
__attribute__((unused)) static struct options defaults(void)
{
	struct options d;

	options_defaults(&d);
	d.workloads = ALL_NAMES;
	return d;
}

__attribute__((unused)) static int same_as(const struct options *want)
{
	return memcmp(&opts, want, sizeof(opts)) == 0;
}

__attribute__((unused)) static void check_error(int i, const char *key, const char *value,
			const char *why)
{
	CHECK_STR(errs[i].key, key);
	CHECK_STR(errs[i].value, value);
	CHECK_STR(errs[i].why, why);
}

#endif
