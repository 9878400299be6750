/* test_options_keys.c - host tests for kernel/run/options.c: the names records use, the help text, "did you mean", and the keys with forms of their own (console=, selftest= debug modes, machine state, samples=, flush_noop=, flush_partial=, serials=, series=). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "options_testlib.h"

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
	CHECK_STR(options_dump_name(2), "smbios");
	CHECK(options_dump_name(3) == NULL);
}

TEST(help_text)
{
	static char buf[4096], small[40];
	static const char *const keys[] = {
		"workloads=", "profile=quick|full", "reps=1..256", "cpus=1..1024",
		"console=com1..com4|io:0xPORT|mmio:0xADDR|mmio32:0xADDR[,BAUD]|none", "paging=4|5",
		"finish=halt|reboot|poweroff|qemu", "flush=wbinvd|none",
		"dump=acpi|usb|smbios|none", "serials=off|on", "smp_timeout_ms=1..60000", "selftest_iters=1..1000000000",
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
	CHECK_EQ_U(parse("selftest=ap-dawdle"), 0);
	CHECK_EQ_U(opts.selftest, OPT_SELFTEST_AP_DAWDLE);
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

/* flush_partial (debug): off (0) unless asked; 1..99 percent, nothing else. */
TEST(flush_partial_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.flush_partial, 0);
	CHECK_EQ_U(parse("flush_partial=30"), 0);
	CHECK_EQ_U(opts.flush_partial, 30);
	CHECK_EQ_U(parse("flush_partial=99"), 0);
	CHECK_EQ_U(opts.flush_partial, 99);
	CHECK_EQ_U(parse("flush_partial=100"), 1);
	CHECK_STR(errs[0].key, "flush_partial");
	CHECK_EQ_U(opts.flush_partial, 0);
	CHECK_EQ_U(parse("flush_partial=half"), 1);
	CHECK_STR(errs[0].key, "flush_partial");
}

/* fail (debug, issue 36): no allocation made to fail unless asked; zeroing, or none; nothing else. */
TEST(fail_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.fail, 0);
	CHECK_EQ_U(parse("fail=zeroing"), 0);
	CHECK_EQ_U(opts.fail, OPT_FAIL_ZEROING);
	CHECK_EQ_U(parse("fail=zeroing fail=none"), 0);
	CHECK_EQ_U(opts.fail, 0);
	CHECK_EQ_U(parse("fail=memory"), 1);
	CHECK_STR(errs[0].key, "fail");
	CHECK_EQ_U(opts.fail, 0);
}

/* serials (issue 37): off (hashed) unless asked; on/off or the bare word; the 30th key has its own
 * bit in the mask of keys seen; dump= takes smbios. */
TEST(serials_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.serials, OPT_OFF);
	CHECK_EQ_U(parse("serials=on"), 0);
	CHECK_EQ_U(opts.serials, OPT_ON);
	CHECK_EQ_U(parse("serials"), 0);
	CHECK_EQ_U(opts.serials, OPT_ON);
	CHECK_EQ_U(parse("serials=full"), 1);
	CHECK_STR(errs[0].key, "serials");
	CHECK_EQ_U(opts.serials, OPT_OFF);
	CHECK_EQ_U(parse("serials=on serials=off"), 0);       /* given twice: the later wins, as every key's */
	CHECK_EQ_U(opts.serials, OPT_OFF);
	CHECK_EQ_U(parse("dump=smbios,acpi"), 0);
	CHECK_EQ_U(opts.dump, OPT_DUMP_SMBIOS | OPT_DUMP_ACPI);
}

/* series (issue 37): off (0) unless asked; 2..20 boots, nothing else. */
TEST(series_key)
{
	CHECK_EQ_U(parse(""), 0);
	CHECK_EQ_U(opts.series, 0);
	CHECK_EQ_U(parse("series=3"), 0);
	CHECK_EQ_U(opts.series, 3);
	CHECK_EQ_U(parse("series=20"), 0);
	CHECK_EQ_U(opts.series, 20);
	CHECK_EQ_U(parse("series=1"), 1);
	CHECK_STR(errs[0].key, "series");
	CHECK_EQ_U(opts.series, 0);
	CHECK_EQ_U(parse("series=21"), 1);
	CHECK_STR(errs[0].key, "series");
}

int main(void)
{
	RUN(serials_key);
	RUN(series_key);
	RUN(samples_key);
	RUN(flush_noop_key);
	RUN(flush_partial_key);
	RUN(fail_key);
	RUN(typos_get_did_you_mean);
	RUN(names_for_records);
	RUN(help_text);
	RUN(console_forms);
	RUN(selftest_debug_modes);
	RUN(machine_state_keys);
	return check_summary("options_keys");
}
