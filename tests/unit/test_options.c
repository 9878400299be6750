/* test_options.c - host tests for kernel/run/options.c: every key's parse and limits, workload lists, the program-name skip, errors and truncation. Named keys, the texts for records and help: test_options_keys.c. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "options_testlib.h"

TEST(defaults_and_empty_lines)
{
	struct options d = defaults(), raw;
	static const char *const empty[] = { "", " ", "   \t  ", "\t\r\n" };

	options_defaults(&raw);
	CHECK_EQ_U(raw.workloads, OPT_WORKLOADS_ALL);
	CHECK(raw.profile == OPT_PROFILE_FULL);
	CHECK_EQ_U(raw.reps, 0);
	CHECK_EQ_U(raw.cpus, 0);
	CHECK(raw.finish == OPT_FINISH_HALT);
	CHECK(raw.flush == OPT_FLUSH_WBINVD);
	CHECK_EQ_U(raw.dump, 0);
	CHECK_EQ_U(raw.smp_timeout_ms, 1000);
	CHECK_EQ_U(raw.selftest_iters, 0);
	CHECK_EQ_U(parse(NULL), 0);
	CHECK(same_as(&d));
	for (size_t i = 0; i < NELEM(empty); i++) {
		CHECK_EQ_U(parse(empty[i]), 0);
		CHECK(same_as(&d));
	}
}

TEST(every_key_good)
{
	struct options want = defaults();

	CHECK_EQ_U(parse("workloads=membw,stream profile=quick reps=5 cpus=2 "
			 "finish=qemu flush=none dump=acpi smp_timeout_ms=250 "
			 "selftest_iters=1000000000"), 0);
	want.workloads = 1u << 0 | 1u << 2;
	want.profile = OPT_PROFILE_QUICK;
	want.reps = 5;
	want.cpus = 2;
	want.finish = OPT_FINISH_QEMU;
	want.flush = OPT_FLUSH_NONE;
	want.dump = OPT_DUMP_ACPI;
	want.smp_timeout_ms = 250;
	want.selftest_iters = 1000000000;
	CHECK(same_as(&want));
	static const char *const finishes[] = { "halt", "reboot", "poweroff", "qemu" };
	for (unsigned i = 0; i < NELEM(finishes); i++) {
		char line[32];

		snprintf(line, sizeof(line), "finish=%s", finishes[i]);
		CHECK_EQ_U(parse(line), 0);
		CHECK_EQ_U(opts.finish, i);
	}
	CHECK_EQ_U(parse("profile=full flush=wbinvd dump=none"), 0);
	CHECK(opts.profile == OPT_PROFILE_FULL && opts.flush == OPT_FLUSH_WBINVD);
	CHECK_EQ_U(opts.dump, 0);
}

TEST(number_limits)
{
	static const struct {
		const char *line;
		uint32_t value;    /* expected when good */
		const char *why;   /* NULL when good */
	} cases[] = {
		{ "reps=1", 1, NULL },
		{ "reps=256", 256, NULL },
		{ "reps=007", 7, NULL },
		{ "reps=0", 0, "out of range 1..256" },
		{ "reps=257", 0, "out of range 1..256" },
		{ "reps=100000", 0, "out of range 1..256" },
		{ "reps=4294967296", 0, "out of range 1..256" },
		{ "reps=4294967297", 0, "out of range 1..256" },
		{ "reps=99999999999999999999999", 0, "out of range 1..256" },
		{ "reps=18446744073709551617", 0, "out of range 1..256" },
		{ "reps=abc", 0, "not a number" },
		{ "reps=-1", 0, "not a number" },
		{ "reps=+1", 0, "not a number" },
		{ "reps=1e3", 0, "not a number" },
		{ "reps=0x10", 0, "not a number" },
		{ "reps=12a", 0, "not a number" },
		{ "reps=1.5", 0, "not a number" },
		{ "reps=\xef\xbc\x91", 0, "not a number" },  /* fullwidth 1 */
	};

	for (size_t i = 0; i < NELEM(cases); i++) {
		int n = parse(cases[i].line);

		if (!cases[i].why) {
			CHECK_EQ_U(n, 0);
			CHECK_EQ_U(opts.reps, cases[i].value);
		} else {
			CHECK_EQ_U(n, 1);
			CHECK_EQ_U(opts.reps, 0);  /* the default is kept */
			CHECK_STR(errs[0].key, "reps");
			CHECK_STR(errs[0].why, cases[i].why);
		}
	}
	CHECK_EQ_U(QB_MAX_CPUS, 1024);
	CHECK_EQ_U(parse("cpus=1024"), 0);
	CHECK_EQ_U(opts.cpus, QB_MAX_CPUS);
	CHECK_EQ_U(parse("cpus=1025"), 1);
	check_error(0, "cpus", "1025", "out of range 1..1024");
	CHECK_EQ_U(opts.cpus, 0);
	CHECK_EQ_U(parse("cpus=0"), 1);
	CHECK_EQ_U(parse("smp_timeout_ms=60000"), 0);
	CHECK_EQ_U(opts.smp_timeout_ms, 60000);
	CHECK_EQ_U(parse("smp_timeout_ms=60001"), 1);
	check_error(0, "smp_timeout_ms", "60001", "out of range 1..60000");
	CHECK_EQ_U(opts.smp_timeout_ms, 1000);
	CHECK_EQ_U(parse("smp_timeout_ms=0"), 1);
	CHECK_EQ_U(parse("selftest_iters=1"), 0);
	CHECK_EQ_U(opts.selftest_iters, 1);
	CHECK_EQ_U(parse("selftest_iters=1000000001"), 1);
	check_error(0, "selftest_iters", "1000000001",
		    "out of range 1..1000000000");
	CHECK_EQ_U(opts.selftest_iters, 0);
}

TEST(bad_choices_keep_default)
{
	struct options d = defaults();

	CHECK_EQ_U(parse("profile=Quick"), 1);
	check_error(0, "profile", "Quick", "expected one of quick|full");
	CHECK_EQ_U(parse("finish=off"), 1);
	check_error(0, "finish", "off",
		    "expected one of halt|reboot|poweroff|qemu");
	CHECK_EQ_U(parse("flush=WBINVD"), 1);
	check_error(0, "flush", "WBINVD", "expected one of wbinvd|none");
	CHECK_EQ_U(parse("dump=dsdt"), 1);
	check_error(0, "dump", "dsdt", "expected one of acpi|usb|smbios|none");
	CHECK(same_as(&d));
	/* One bad value among good ones touches only its own option. */
	CHECK_EQ_U(parse("reps=9 profile=slow finish=reboot"), 1);
	d.reps = 9;
	d.finish = OPT_FINISH_REBOOT;
	CHECK(same_as(&d));
}

TEST(workload_lists)
{
	CHECK_EQ_U(parse("workloads=stream"), 0);
	CHECK_EQ_U(opts.workloads, 1u << 2);
	CHECK_EQ_U(parse("workloads=all"), 0);
	CHECK_EQ_U(opts.workloads, ALL_NAMES);
	CHECK_EQ_U(parse("workloads=stream,all"), 0);
	CHECK_EQ_U(opts.workloads, ALL_NAMES);
	CHECK_EQ_U(parse("workloads=pchase,pchase,membw"), 0);
	CHECK_EQ_U(opts.workloads, 1u << 3 | 1u << 0);
	/* An unknown name is named; the others still apply. */
	CHECK_EQ_U(parse("workloads=membw,bogus,latency,Stream"), 2);
	check_error(0, "workloads", "bogus", "unknown workload");
	check_error(1, "workloads", "Stream", "unknown workload");
	CHECK_EQ_U(opts.workloads, 1u << 0 | 1u << 1);
	/* Nothing valid: the default stays. */
	CHECK_EQ_U(parse("workloads=nope"), 1);
	CHECK_EQ_U(opts.workloads, ALL_NAMES);
	CHECK_EQ_U(parse("workloads=membw,,stream,"), 2);
	check_error(0, "workloads", "membw,,stream,", "empty list item");
	CHECK_EQ_U(opts.workloads, 1u << 0 | 1u << 2);
	CHECK_EQ_U(parse("workloads=,"), 2);
	CHECK_EQ_U(opts.workloads, ALL_NAMES);
	CHECK_EQ_U(parse("workloads=a=b"), 1);
	check_error(0, "workloads", "a=b", "unknown workload");
	CHECK_EQ_U(parse("dump=acpi,foo"), 1);
	check_error(0, "dump", "foo", "expected one of acpi|usb|smbios|none");
	CHECK_EQ_U(opts.dump, OPT_DUMP_ACPI);
}

TEST(many_workload_names)
{
	const char *many[40];
	char store[40][16];
	struct options o;
	struct opt_error e[4];

	for (int i = 0; i < 40; i++) {
		snprintf(store[i], sizeof(store[i]), "w%d", i);
		many[i] = store[i];
	}
	CHECK_EQ_U(options_parse("", many, 32, &o, e, 4), 0);
	CHECK_EQ_U(o.workloads, UINT32_MAX);
	CHECK_EQ_U(options_parse("workloads=w31,w0", many, 32, &o, e, 4), 0);
	CHECK_EQ_U(o.workloads, 1u << 31 | 1u);
	/* Names past OPT_MAX_WORKLOADS cannot be selected. */
	CHECK_EQ_U(options_parse("workloads=w32", many, 40, &o, e, 4), 1);
	CHECK_STR(e[0].why, "unknown workload");
	CHECK_EQ_U(o.workloads, UINT32_MAX);
	/* No names at all: "all" is the empty set. */
	CHECK_EQ_U(options_parse("", NULL, 0, &o, e, 4), 0);
	CHECK_EQ_U(o.workloads, 0);
}

TEST(program_name_skip)
{
	static const char *const skipped[] = {
		"\\EFI\\BOOT\\quietbench.efi reps=3", "quietbench.efi reps=3",
		"fs0:\\quietbench.EFI reps=3", "  QUIETBENCH.Efi\treps=3",
		".efi reps=3", "\\EFI\\BOOT\\BOOTX64.EFI reps=3",
	};

	for (size_t i = 0; i < NELEM(skipped); i++) {
		CHECK_EQ_U(parse(skipped[i]), 0);
		CHECK_EQ_U(opts.reps, 3);
	}
	CHECK_EQ_U(parse("quietbench.efi"), 0);
	/* Only the first word, only without '=', only ending in .efi. */
	CHECK_EQ_U(parse("reps=3 quietbench.efi"), 1);
	check_error(0, "quietbench.efi", "", "missing '='");
	CHECK_EQ_U(parse("a.efi b.efi"), 1);
	check_error(0, "b.efi", "", "missing '='");
	CHECK_EQ_U(parse("quietbench reps=3"), 1);
	check_error(0, "quietbench", "", "missing '='");
	CHECK_EQ_U(parse("x=quietbench.efi"), 1);
	check_error(0, "x", "quietbench.efi", "unknown key");
	CHECK_EQ_U(parse("quietbench.efix"), 1);
	CHECK_EQ_U(parse("efi"), 1);
}

TEST(initrd_ignored)
{
	struct options d = defaults();

	CHECK_EQ_U(parse("initrd=\\initrd.img initrd=x initrd="), 0);
	CHECK(same_as(&d));
	CHECK_EQ_U(parse("quietbench.efi initrd=\\EFI\\x reps=2"), 0);
	CHECK_EQ_U(opts.reps, 2);
}

TEST(malformed_words)
{
	struct options d = defaults();

	CHECK_EQ_U(parse("reps"), 1);
	check_error(0, "reps", "", "missing '='");
	CHECK_EQ_U(parse("="), 1);
	check_error(0, "", "", "empty key");
	CHECK_EQ_U(parse("=value"), 1);
	check_error(0, "", "value", "empty key");
	CHECK_EQ_U(parse("reps="), 1);
	check_error(0, "reps", "", "empty value");
	CHECK_EQ_U(parse("workloads="), 1);
	check_error(0, "workloads", "", "empty value");
	CHECK_EQ_U(parse("colour=blue"), 1);
	check_error(0, "colour", "blue", "unknown key");
	CHECK_EQ_U(parse("nokey="), 1);
	check_error(0, "nokey", "", "unknown key");
	CHECK_EQ_U(parse("REPS=3"), 1);
	check_error(0, "REPS", "3", "unknown key");
	CHECK_EQ_U(parse("reps==3"), 1);
	check_error(0, "reps", "=3", "not a number");
	CHECK(same_as(&d));
	/* Errors do not stop the rest of the line. */
	CHECK_EQ_U(parse("= reps=4 bogus =x cpus= cpus=3 x"), 5);
	CHECK_EQ_U(opts.reps, 4);
	CHECK_EQ_U(opts.cpus, 3);
	check_error(0, "", "", "empty key");
	check_error(1, "bogus", "", "missing '='");
	check_error(2, "", "x", "empty key");
	check_error(3, "cpus", "", "empty value");
	check_error(4, "x", "", "missing '='");
}

/* quietbench.cfg's qb_options come first and the menu entry's words after:
 * a key given twice is normal, and the last one wins. */
TEST(duplicates)
{
	CHECK_EQ_U(parse("reps=3 reps=5"), 0);
	CHECK_EQ_U(opts.reps, 5);
	/* A bad later value keeps the earlier good one, and is an error. */
	CHECK_EQ_U(parse("reps=3 reps=x"), 1);
	CHECK_STR(errs[0].why, "not a number");
	CHECK_EQ_U(opts.reps, 3);
	CHECK_EQ_U(parse("profile=quick profile=full profile=quick"), 0);
	CHECK(opts.profile == OPT_PROFILE_QUICK);
}

TEST(separators)
{
	CHECK_EQ_U(parse("\treps=3\t\tcpus=4  \r\nfinish=reboot\n"), 0);
	CHECK_EQ_U(opts.reps, 3);
	CHECK_EQ_U(opts.cpus, 4);
	CHECK(opts.finish == OPT_FINISH_REBOOT);
}

TEST(error_storage_limits)
{
	struct opt_error e[3];
	struct options o;

	memset(e, 0x5a, sizeof(e));
	CHECK_EQ_U(options_parse("a b c d e", names, NELEM(names), &o, e, 2), 5);
	CHECK_STR(e[0].key, "a");
	CHECK_STR(e[1].key, "b");
	CHECK((unsigned char)e[2].key[0] == 0x5a);  /* untouched */
	CHECK_EQ_U(options_parse("a b c", names, NELEM(names), &o, NULL, 0), 3);
	CHECK_EQ_U(options_parse("a b c", names, NELEM(names), &o, NULL, 5), 3);
	CHECK_EQ_U(options_parse("a b", names, NELEM(names), &o, e, 0), 2);
}

TEST(truncation_and_non_ascii)
{
	char line[600], want[80];
	int n;

	/* A 100-byte key and a 300-byte value: cut, marked, terminated. */
	memset(line, 'k', 100);
	line[100] = '=';
	memset(line + 101, 'v', 300);
	line[401] = '\0';
	CHECK_EQ_U(parse(line), 1);
	CHECK_EQ_U(strlen(errs[0].key), OPT_ERR_KEY_LEN - 1);
	CHECK_EQ_U(strlen(errs[0].value), OPT_ERR_VALUE_LEN - 1);
	memset(want, 'k', OPT_ERR_KEY_LEN - 4);
	strcpy(want + OPT_ERR_KEY_LEN - 4, "...");
	CHECK_STR(errs[0].key, want);
	memset(want, 'v', OPT_ERR_VALUE_LEN - 4);
	strcpy(want + OPT_ERR_VALUE_LEN - 4, "...");
	CHECK_STR(errs[0].value, want);
	CHECK_STR(errs[0].why, "unknown key");
	/* A long word without '='. */
	memset(line, 'w', 500);
	line[500] = '\0';
	CHECK_EQ_U(parse(line), 1);
	CHECK_EQ_U(strlen(errs[0].key), OPT_ERR_KEY_LEN - 1);
	CHECK_STR(errs[0].why, "missing '='");
	/* Exactly fitting fields are not marked. */
	memset(line, 'a', OPT_ERR_KEY_LEN - 1);
	strcpy(line + OPT_ERR_KEY_LEN - 1, "=1");
	CHECK_EQ_U(parse(line), 1);
	CHECK(strchr(errs[0].key, '.') == NULL);
	/* A long workload value keeps the longest possible why. */
	n = parse("finish=\xff\xfe\x01x");
	CHECK_EQ_U(n, 1);
	CHECK_STR(errs[0].value, "???x");
	n = parse("k\xc3\xa9y=v\x80");
	CHECK_EQ_U(n, 1);
	CHECK_STR(errs[0].key, "k??y");
	CHECK_STR(errs[0].value, "v?");
	for (int i = 0; i < MAX_ERRS; i++) {
		/* Every stored field is terminated inside its array. */
		if (i >= n)
			break;
		CHECK(memchr(errs[i].key, 0, sizeof(errs[i].key)) != NULL);
		CHECK(memchr(errs[i].value, 0, sizeof(errs[i].value)) != NULL);
		CHECK(memchr(errs[i].why, 0, sizeof(errs[i].why)) != NULL);
	}
}

int main(void)
{
	RUN(defaults_and_empty_lines);
	RUN(every_key_good);
	RUN(number_limits);
	RUN(bad_choices_keep_default);
	RUN(workload_lists);
	RUN(many_workload_names);
	RUN(program_name_skip);
	RUN(initrd_ignored);
	RUN(malformed_words);
	RUN(duplicates);
	RUN(separators);
	RUN(error_storage_limits);
	RUN(truncation_and_non_ascii);
	return check_summary("options");
}
