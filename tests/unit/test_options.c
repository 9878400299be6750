/* test_options.c - host tests for kernel/run/options.c: every key, the program-name skip, errors and truncation. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "qb_limits.h"
#include "options.h"

#define MAX_ERRS 16
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const names[] = { "membw", "latency", "stream", "pchase" };
#define ALL_NAMES ((1u << NELEM(names)) - 1)

static struct opt_error errs[MAX_ERRS];
static struct options opts;

/* Parse with the four test workloads; returns the error count. */
static int parse(const char *line)
{
	memset(errs, 0x5a, sizeof(errs));
	return options_parse(line, names, NELEM(names), &opts, errs, MAX_ERRS);
}

/* The defaults as options_parse leaves them for the test workloads. */
static struct options defaults(void)
{
	struct options d;

	options_defaults(&d);
	d.workloads = ALL_NAMES;
	return d;
}

static int same_as(const struct options *want)
{
	return memcmp(&opts, want, sizeof(opts)) == 0;
}

static void check_error(int i, const char *key, const char *value,
			const char *why)
{
	CHECK_STR(errs[i].key, key);
	CHECK_STR(errs[i].value, value);
	CHECK_STR(errs[i].why, why);
}

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
	CHECK_EQ_U(parse("dump=smbios"), 1);
	check_error(0, "dump", "smbios", "expected one of acpi|usb|none");
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
	check_error(0, "dump", "foo", "expected one of acpi|usb|none");
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

TEST(names_for_records)
{
	CHECK_STR(options_profile_name(OPT_PROFILE_QUICK), "quick");
	CHECK_STR(options_profile_name(OPT_PROFILE_FULL), "full");
	CHECK_STR(options_profile_name((enum opt_profile)7), "?");
	CHECK_STR(options_finish_name(OPT_FINISH_HALT), "halt");
	CHECK_STR(options_finish_name(OPT_FINISH_REBOOT), "reboot");
	CHECK_STR(options_finish_name(OPT_FINISH_POWEROFF), "poweroff");
	CHECK_STR(options_finish_name(OPT_FINISH_QEMU), "qemu");
	CHECK_STR(options_flush_name(OPT_FLUSH_WBINVD), "wbinvd");
	CHECK_STR(options_flush_name(OPT_FLUSH_NONE), "none");
	CHECK_STR(options_dump_name(0), "acpi");
	CHECK_STR(options_dump_name(1), "usb");
	CHECK(options_dump_name(2) == NULL);
}

TEST(help_text)
{
	static char buf[4096], small[40];
	static const char *const keys[] = {
		"workloads=", "profile=quick|full", "reps=1..256", "cpus=1..1024",
		"console=com1..com4|io:0xPORT|mmio:0xADDR|mmio32:0xADDR[,BAUD]|none", "paging=4|5",
		"finish=halt|reboot|poweroff|qemu", "flush=wbinvd|none",
		"dump=acpi|usb|none", "smp_timeout_ms=1..60000", "selftest_iters=1..1000000000",
		"membw latency stream pchase", "(default 1000)", "(default full)", "(default set by profile)",
	};
	int n = options_help(buf, sizeof(buf), names, NELEM(names));

	CHECK(n > 0 && (size_t)n == strlen(buf));
	for (size_t i = 0; i < NELEM(keys); i++)
		CHECK(strstr(buf, keys[i]) != NULL);
	CHECK(strstr(buf, "initrd") == NULL);
	memset(small, 'x', sizeof(small));
	CHECK_EQ_U(options_help(small, sizeof(small), names, NELEM(names)), n);
	CHECK_EQ_U(strlen(small), sizeof(small) - 1);
	CHECK(strncmp(small, buf, sizeof(small) - 1) == 0);
	CHECK_EQ_U(options_help(NULL, 0, names, NELEM(names)), n);
}

TEST(console_forms)
{
	struct options d = defaults();
	CHECK(d.console == OPT_CONSOLE_AUTO);
	CHECK_EQ_U(parse("console=com2"), 0);
	CHECK(opts.console == OPT_CONSOLE_IO);
	CHECK_EQ_U(opts.console_addr_lo, 0x2f8);
	CHECK_EQ_U(opts.console_baud, 0);
	CHECK_EQ_U(parse("console=com1,57600"), 0);
	CHECK_EQ_U(opts.console_addr_lo, 0x3f8);
	CHECK_EQ_U(opts.console_baud, 57600);
	CHECK_EQ_U(parse("console=io:0x2e8"), 0);
	CHECK(opts.console == OPT_CONSOLE_IO);
	CHECK_EQ_U(opts.console_addr_lo, 0x2e8);
	CHECK_EQ_U(parse("console=mmio32:0xFE0320000000,115200"), 0);
	CHECK(opts.console == OPT_CONSOLE_MMIO32);
	CHECK_EQ_U(opts.console_addr_lo, 0x20000000);
	CHECK_EQ_U(opts.console_addr_hi, 0xfe03);
	CHECK_EQ_U(opts.console_baud, 115200);
	CHECK_EQ_U(parse("console=mmio:0xfedc9000"), 0);
	CHECK(opts.console == OPT_CONSOLE_MMIO8);
	CHECK_EQ_U(opts.console_addr_lo, 0xfedc9000);
	CHECK_EQ_U(parse("console=none"), 0);
	CHECK(opts.console == OPT_CONSOLE_NONE);

	/* Bad values name the forms and change nothing. */
	CHECK_EQ_U(parse("console=com5"), 1);
	check_error(0, "console", "com5", "expected com1..com4|io:0xPORT|mmio:0xADDR|mmio32:0xADDR[,BAUD]|none");
	CHECK(opts.console == OPT_CONSOLE_AUTO);
	CHECK_EQ_U(parse("console=io:0x10000"), 1);
	check_error(0, "console", "io:0x10000", "I/O port out of range 1..0xfff8");
	CHECK_EQ_U(parse("console=mmio32:0xzz"), 1);
	check_error(0, "console", "mmio32:0xzz", "bad address in mmio32:");
	CHECK_EQ_U(parse("console=mmio32:0"), 1);
	CHECK_EQ_U(parse("console=com1,12"), 1);
	check_error(0, "console", "com1,12", "baud rate out of range 50..4000000");
	CHECK_EQ_U(parse("console=com1,"), 1);
	CHECK_EQ_U(parse("console=io:0x11111111111111111"), 1); /* past 64 bits */
	CHECK(opts.console == OPT_CONSOLE_AUTO && opts.console_addr_lo == 0 && opts.console_baud == 0);

	CHECK(d.paging == OPT_PAGING_4);
	CHECK_EQ_U(parse("paging=5"), 0);
	CHECK(opts.paging == OPT_PAGING_5);
	CHECK_EQ_U(parse("paging=3"), 1);
	check_error(0, "paging", "3", "expected one of 4|5");
}

TEST(selftest_debug_modes)
{
	CHECK_EQ_U(parse("selftest=fault-bsp"), 0);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_FAULT_BSP);
	CHECK_EQ_U(parse("selftest=fault-ap"), 0);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_FAULT_AP);
	CHECK_EQ_U(parse("selftest=normal"), 0);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_NORMAL);
	CHECK_EQ_U(parse("selftest=fault"), 1);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_NORMAL);
	CHECK_STR(errs[0].key, "selftest");
	CHECK(!strncmp(errs[0].why, "expected one of normal|fault-bsp|fault-ap|", 42));
	CHECK_EQ_U(parse("selftest=hang-ap"), 0);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_HANG_AP);
}

TEST(machine_state_keys)
{
	CHECK_EQ_U(parse("turbo=off prefetch=on"), 0);
	CHECK_EQ_U(opts.turbo, OPT_SET_OFF);
	CHECK_EQ_U(opts.prefetch, OPT_SET_ON);
	CHECK_EQ_U(opts.safe, OPT_OFF);
	CHECK_EQ_U(parse("safe"), 0);
	CHECK_EQ_U(opts.safe, OPT_ON);
	CHECK_EQ_U(opts.turbo, OPT_KEEP);
	CHECK_EQ_U(parse("safe=off"), 0);
	CHECK_EQ_U(opts.safe, OPT_OFF);
	CHECK_EQ_U(parse("turbo"), 1); /* not an on/off key: a bare word is an error */
	check_error(0, "turbo", "", "missing '='");
	CHECK_EQ_U(parse("turbo=fast"), 1);
	CHECK_EQ_U(opts.turbo, OPT_KEEP);
	/* NUMA balancing (the Linux twin): kept, or off, never on; noise_attr_ns= 1 us unless given. */
	CHECK_EQ_U(parse(""), 0);
	CHECK(opts.numa_balancing == OPT_KEEP && opts.noise_attr_ns == 1000);
	CHECK_EQ_U(parse("numa_balancing=off noise_attr_ns=250"), 0);
	CHECK(opts.numa_balancing == OPT_SET_OFF && opts.noise_attr_ns == 250);
	CHECK_EQ_U(parse("numa_balancing=on"), 1);
	CHECK(!strncmp(errs[0].why, "expected one of keep|off", 24));
	CHECK_EQ_U(parse("noise_attr_ns=1000000001"), 1);
	check_error(0, "noise_attr_ns", "1000000001", "out of range 1..1000000000");
}

/* The typos of a new user: the closest key or value is named, with what is
 * valid, so a mistake costs seconds. */
TEST(typos_get_did_you_mean)
{
	CHECK_EQ_U(parse("workload=membw"), 1);
	check_error(0, "workload", "membw", "unknown key");
	CHECK_STR(errs[0].hint, "workloads=membw");
	CHECK(strstr(errs[0].valid, "workloads profile reps") == errs[0].valid);
	CHECK(!strstr(errs[0].valid, "initrd"));

	CHECK_EQ_U(parse("workloads=latnecy,stream"), 1);
	check_error(0, "workloads", "latnecy", "unknown workload");
	CHECK_STR(errs[0].hint, "workloads=latency");
	CHECK_STR(errs[0].valid, "membw latency stream pchase all");

	CHECK_EQ_U(parse("profile=fast"), 1);
	check_error(0, "profile", "fast", "expected one of quick|full");
	CHECK_STR(errs[0].hint, "");			/* nothing close: no guess */
	CHECK_STR(errs[0].valid, "quick full");
	CHECK_EQ_U(parse("profile=quik"), 1);
	CHECK_STR(errs[0].hint, "profile=quick");
	CHECK_EQ_U(parse("prof=quick"), 1);		/* a prefix of one key */
	CHECK_STR(errs[0].hint, "profile=quick");
	CHECK_EQ_U(parse("finsh=reboot"), 1);		/* a letter left out */
	CHECK_STR(errs[0].hint, "finish=reboot");
	CHECK_EQ_U(parse("fiinsh=reboot"), 1);		/* two letters swapped */
	CHECK_STR(errs[0].hint, "finish=reboot");

	CHECK_EQ_U(parse("stream"), 1);		/* a bare workload name */
	check_error(0, "stream", "", "missing '='");
	CHECK_STR(errs[0].hint, "workloads=stream");
	CHECK_EQ_U(parse("quick"), 1);			/* a bare value of a key */
	CHECK_STR(errs[0].hint, "profile=quick");

	CHECK_EQ_U(parse("reps=100001"), 1);
	CHECK_STR(errs[0].valid, "1..256");
	CHECK_STR(errs[0].hint, "");
	CHECK_EQ_U(parse("zzzzzz=1"), 1);
	CHECK_STR(errs[0].hint, "");
}

TEST(samples_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.samples, OPT_ON); /* kept by default: compare tests differences on them */
	CHECK_EQ_U(parse("samples=off"), 0);
	CHECK_EQ_U(opts.samples, OPT_OFF);
	CHECK_EQ_U(parse("samples"), 0);
	CHECK_EQ_U(opts.samples, OPT_ON);
	CHECK_EQ_U(parse("samples=off samples=on"), 0);
	CHECK_EQ_U(opts.samples, OPT_ON);
	CHECK_EQ_U(parse("samples=all"), 1);
}

/* flush_noop (debug): off unless asked; on/off or the bare word. */
TEST(flush_noop_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.flush_noop, OPT_OFF);
	CHECK_EQ_U(parse("flush_noop=on"), 0);
	CHECK_EQ_U(opts.flush_noop, OPT_ON);
	CHECK_EQ_U(parse("flush_noop"), 0);
	CHECK_EQ_U(opts.flush_noop, OPT_ON);
	CHECK_EQ_U(parse("flush_noop=yes"), 1);
	CHECK_STR(errs[0].key, "flush_noop");
	CHECK_EQ_U(opts.flush_noop, OPT_OFF);
}

int main(void)
{
	RUN(defaults_and_empty_lines);
	RUN(samples_key);
	RUN(flush_noop_key);
	RUN(typos_get_did_you_mean);
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
	RUN(names_for_records);
	RUN(help_text);
	RUN(console_forms);
	RUN(selftest_debug_modes);
	RUN(machine_state_keys);
	return check_summary("options");
}
