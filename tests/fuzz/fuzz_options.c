/* fuzz_options.c - libFuzzer harness for the command-line parser (kernel/run/options.h) with the image's workload names.
 *
 * The input is the command line (it ends at the first NUL). Beyond not
 * crashing: every field is in its documented range, at most max_errs errors
 * are written and each is printable and terminated, the same parse twice
 * agrees, and writing the result back out as a canonical command line parses
 * to the same options without an error (choices this harness cannot name,
 * such as ones added after it, are left out of that round trip). options_help() is also run with a
 * buffer size taken from the input (for one input length in eight). */
#include <stdbool.h>

#include "fuzz.h"
#include "options.h"
#include "qb_limits.h"

/* ---- Constants ---------------------------------------------------------- */

#define MAX_ERRS 8                     /* passed to the parser */
#define ERR_SLOTS (MAX_ERRS + 2)       /* two more that must stay untouched */
#define CANON_LEN 1024                 /* the canonical line always fits */
#define HELP_FULL 16384                /* options_help's whole text fits */
#define POISON 0xa5

/* workloads/registry.c's names, in its order (workloads/ is not linked here). */
static const char *const names[] = { "selftest", "counter", "locality", "first-touch", "flush" };
#define N_NAMES (sizeof(names) / sizeof(names[0]))

/* Names of the choices options.h exposes no name function for, by enum value.
 * A value past these (a choice added later) is left out of the round trip. */
static const char *const selftest_names[] = { "normal", "fault-bsp", "fault-ap", "ap-silent", "ap-late", "hang-ap" };
static const char *const tristate_names[] = { "keep", "off", "on" };
static const char *const onoff_names[] = { "off", "on" };
#define NAMES(a) (a), (sizeof(a) / sizeof((a)[0]))

/* ---- Types -------------------------------------------------------------- */

/* One option the round trip writes: a number, or a choice named by a function or a table. */
struct field {
	const char *key;
	size_t offset;                 /* its uint32_t in struct options */
	uint32_t max;                  /* numbers: 1..max, 0 = the profile's default */
	const char *(*name)(uint32_t v);
	const char *const *names;
	uint32_t n_names;
};

/* ---- Private Variables -------------------------------------------------- */

static struct opt_error errs[ERR_SLOTS];
static char help_full[HELP_FULL];

/* ---- Private Functions -------------------------------------------------- */

static const char *profile_name(uint32_t v) { return options_profile_name((enum opt_profile)v); }
static const char *finish_name(uint32_t v) { return options_finish_name((enum opt_finish)v); }
static const char *flush_name(uint32_t v) { return options_flush_name((enum opt_flush)v); }
static const char *dump_name(uint32_t v) { return v ? options_dump_name(0) : "none"; }

#define F(f) #f, offsetof(struct options, f)
static const struct field fields[] = {
	{ F(profile), 0, profile_name, NULL, 0 },
	{ F(reps), OPT_REPS_MAX, NULL, NULL, 0 },
	{ F(cpus), QB_MAX_CPUS, NULL, NULL, 0 },
	{ F(finish), 0, finish_name, NULL, 0 },
	{ F(flush), 0, flush_name, NULL, 0 },
	{ F(dump), 0, dump_name, NULL, 0 },
	{ F(smp_timeout_ms), OPT_SMP_TIMEOUT_MS_MAX, NULL, NULL, 0 },
	{ F(selftest_iters), OPT_SELFTEST_ITERS_MAX, NULL, NULL, 0 },
	{ F(selftest), 0, NULL, NAMES(selftest_names) },
	{ F(iters), OPT_ITERS_MAX, NULL, NULL, 0 },
	{ F(turbo), 0, NULL, NAMES(tristate_names) },
	{ F(prefetch), 0, NULL, NAMES(tristate_names) },
	{ F(safe), 0, NULL, NAMES(onoff_names) },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static uint32_t get(const struct options *o, const struct field *f)
{
	uint32_t v;

	memcpy(&v, (const char *)o + f->offset, sizeof(v));
	return v;
}

/* The value's name, NULL for a number or a choice this harness does not know. */
static const char *value_name(const struct field *f, uint32_t v)
{
	if (f->name)
		return f->name(v);
	if (f->names)
		return v < f->n_names ? f->names[v] : NULL;
	return NULL;
}

/* Each field within its documented range (0 where 0 means "the profile's"). */
static void check_ranges(const struct options *o, uint32_t all)
{
	FUZZ_ASSERT((o->workloads & ~all) == 0);
	FUZZ_ASSERT((o->dump & ~(uint32_t)OPT_DUMP_ACPI) == 0);
	FUZZ_ASSERT(o->smp_timeout_ms >= 1);
	for (size_t i = 0; i < N_FIELDS; i++) {
		const struct field *f = &fields[i];

		if (f->max)
			FUZZ_ASSERT(get(o, f) <= f->max);
		else if (f->name)
			FUZZ_ASSERT(strcmp(f->name(get(o, f)), "?"));  /* "?": out of range */
	}
}

/* The first min(count, MAX_ERRS) slots are filled and printable, the rest untouched. */
static void check_errors(int count)
{
	unsigned filled = (unsigned)count < MAX_ERRS ? (unsigned)count : MAX_ERRS;

	FUZZ_ASSERT(count >= 0);
	for (unsigned i = 0; i < ERR_SLOTS; i++) {
		const struct opt_error *e = &errs[i];

		if (i < filled) {
			FUZZ_ASSERT(fuzz_cstr_ok(e->key, sizeof(e->key)));
			FUZZ_ASSERT(fuzz_cstr_ok(e->value, sizeof(e->value)));
			FUZZ_ASSERT(fuzz_cstr_ok(e->why, sizeof(e->why)) && e->why[0]);
		} else {
			for (size_t k = 0; k < sizeof(*e); k++)
				FUZZ_ASSERT(((const uint8_t *)e)[k] == POISON);
		}
	}
}

/* Append "key=value " to line. */
static void put(char *line, size_t *len, const char *key, const char *value)
{
	int n = snprintf(line + *len, CANON_LEN - *len, "%s=%s ", key, value);

	FUZZ_ASSERT(n > 0 && (size_t)n < CANON_LEN - *len);
	*len += (size_t)n;
}

/*
 * Write o as the command line that should parse back to it; written[i] says
 * which fields it holds (not a 0 number, which has no spelling, nor a choice
 * unknown here). Returns whether it holds the workloads.
 */
static bool canonical(const struct options *o, char *line, bool *written)
{
	size_t len = 0;
	char list[128] = "";

	line[0] = '\0';
	for (unsigned i = 0; i < N_NAMES; i++) {
		if (!(o->workloads & (1u << i)))
			continue;
		if (list[0])
			strcat(list, ",");
		strcat(list, names[i]);
	}
	if (list[0])
		put(line, &len, "workloads", list);
	for (size_t i = 0; i < N_FIELDS; i++) {
		const struct field *f = &fields[i];
		uint32_t v = get(o, f);
		const char *name = value_name(f, v);
		char num[16];

		written[i] = false;
		if (f->max) {
			if (!v)
				continue;
			snprintf(num, sizeof(num), "%u", v);
			name = num;
		}
		if (!name)
			continue;
		put(line, &len, f->key, name);
		written[i] = true;
	}
	return list[0] != '\0';
}

/* options_help() into an exact-size buffer of cap bytes: a prefix of the whole text. */
static void check_help(size_t cap)
{
	static int full;
	char *buf = malloc(cap ? cap : 1);
	int n;

	if (!full) {
		full = options_help(help_full, sizeof(help_full), names, N_NAMES);
		FUZZ_ASSERT(full > 0 && (size_t)full < sizeof(help_full));
		FUZZ_ASSERT(strlen(help_full) == (size_t)full);
	}
	if (!buf)
		return;
	n = options_help(cap ? buf : NULL, cap, names, N_NAMES);
	FUZZ_ASSERT(n == full);
	if (cap) {
		size_t keep = (size_t)full < cap - 1 ? (size_t)full : cap - 1;

		FUZZ_ASSERT(strlen(buf) == keep && !memcmp(buf, help_full, keep));
	}
	free(buf);
}

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct options o, o2;
	static char line[CANON_LEN];
	bool written[N_FIELDS];
	char *cmdline = malloc(size + 1);
	int n;

	if (!cmdline)
		return 0;
	memcpy(cmdline, data, size);
	cmdline[size] = '\0';

	memset(errs, POISON, sizeof(errs));
	n = options_parse(cmdline, names, N_NAMES, &o, errs, MAX_ERRS);
	check_errors(n);
	check_ranges(&o, (1u << N_NAMES) - 1);

	memset(&o2, POISON, sizeof(o2));
	FUZZ_ASSERT(options_parse(cmdline, names, N_NAMES, &o2, NULL, 0) == n);
	FUZZ_ASSERT(!memcmp(&o, &o2, sizeof(o)));

	/* Without names no workload can be chosen. */
	options_parse(cmdline, NULL, 0, &o2, NULL, 0);
	check_ranges(&o2, 0);

	/* Written back out, what the harness can spell parses to the same values. */
	if (canonical(&o, line, written))
		FUZZ_ASSERT(options_parse(line, names, N_NAMES, &o2, errs, MAX_ERRS) == 0 &&
			    o2.workloads == o.workloads);
	else
		FUZZ_ASSERT(options_parse(line, names, N_NAMES, &o2, errs, MAX_ERRS) == 0);
	for (size_t i = 0; i < N_FIELDS; i++)
		FUZZ_ASSERT(!written[i] || get(&o2, &fields[i]) == get(&o, &fields[i]));

	if (size % 8 == 0)  /* options_help() is slow under ASan: one input in eight */
		check_help(size * 7 % 3000);
	free(cmdline);
	return 0;
}
