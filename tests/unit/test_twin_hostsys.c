/* test_twin_hostsys.c - the Linux twin's machine settings (tools/twin/hostsys.c) on files of the test's own in place of sysfs and procfs: boost read as it is (cpufreq's boost, or intel_pstate's no_turbo, inverted), turned off for the run as root and put back exactly once (a write that reads back otherwise too); NUMA balancing the same; without root, or without the files, each says why. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "hostsys.h"

static char dir[64], boost[96], no_turbo[96], numa[96];

static void put(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(v, f);
		fclose(f);
	}
}

static const char *get(const char *path)
{
	static char v[32];
	FILE *f = fopen(path, "r");
	v[0] = 0;
	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = 0;
		fclose(f);
	}
	v[strcspn(v, "\n")] = 0;
	return v;
}

static void files(bool with_boost, bool with_no_turbo, bool with_numa)
{
	unlink(boost);
	unlink(no_turbo);
	unlink(numa);
	if (with_boost)
		put(boost, "1\n");
	if (with_no_turbo)
		put(no_turbo, "0\n");
	if (with_numa)
		put(numa, "1\n");
	hostsys_files(boost, no_turbo, numa);
}

/* turbo=off and numa_balancing=off as root: off for the run, then back. */
TEST(turned_off_for_the_run_and_back)
{
	if (geteuid() != 0) {
		files(true, false, true);
		hostsys_want(INSTR_OFF, true);
		hostsys_apply();
		CHECK(strstr(hostsys_boost_status(), "not changed:") && strstr(hostsys_boost_status(), "not root"));
		CHECK_STR(hostsys_boost(), "on");
		CHECK_STR(get(boost), "1");
		return;
	}
	files(true, false, true);
	hostsys_want(INSTR_OFF, true);
	hostsys_apply();
	CHECK_STR(get(boost), "0");
	CHECK_STR(hostsys_boost(), "off (turned off for the run)");
	CHECK_STR(hostsys_boost_status(), "off (turned off for the run)");
	CHECK_STR(hostsys_boost_control(), boost);
	CHECK_STR(get(numa), "0");
	CHECK_STR(hostsys_numa(), "off (turned off for the run)");
	CHECK(hostsys_restore());
	CHECK_STR(get(boost), "1");
	CHECK_STR(get(numa), "1");
	CHECK_STR(hostsys_boost(), "on");
	CHECK_STR(hostsys_boost_status(), "restored");
	CHECK(!hostsys_restore());                  /* once: the Ctrl-C path after the end changes nothing */
	CHECK_STR(get(boost), "1");

	/* intel_pstate: no_turbo is boost inverted. */
	files(false, true, true);
	hostsys_want(INSTR_OFF, false);
	hostsys_apply();
	CHECK_STR(get(no_turbo), "1");
	CHECK_STR(hostsys_boost(), "off (turned off for the run)");
	CHECK(strstr(hostsys_numa(), "on: the workloads' buffers carry an mbind policy"));
	CHECK(strstr(hostsys_numa(), ".bss, the code and the eviction buffer stay exposed"));
	CHECK(hostsys_restore());
	CHECK_STR(get(no_turbo), "0");
	CHECK_STR(get(numa), "1");                  /* never asked: never touched */
}

/* Kept as it is: read and said, nothing written. */
TEST(kept_is_only_read)
{
	files(true, false, false);
	put(boost, "0\n");
	hostsys_want(INSTR_KEEP, false);
	hostsys_apply();
	CHECK_STR(hostsys_boost(), "off");
	CHECK_STR(hostsys_boost_status(), "kept");
	CHECK(strstr(hostsys_numa(), "unknown: "));
	CHECK(!hostsys_restore());
	/* Already off: turbo=off has nothing to do. */
	files(true, false, false);
	put(boost, "0\n");
	hostsys_want(INSTR_OFF, false);
	hostsys_apply();
	CHECK_STR(hostsys_boost(), "off");
	CHECK_STR(hostsys_boost_status(), "kept");
	CHECK(!hostsys_restore());
}

/* A write that went in but reads back otherwise (here a file that keeps its old tail: "10" written "0"
 * reads "00") is said as not taken, yet put back at the end: it did change something. */
TEST(write_that_did_not_take_is_put_back)
{
	if (geteuid() != 0)
		return;                              /* change() writes only as root */
	files(false, false, false);
	put(numa, "10\n");
	hostsys_want(INSTR_KEEP, true);
	hostsys_apply();
	CHECK_STR(get(numa), "00");
	CHECK(strstr(hostsys_numa(), "numa_balancing=off could not"));
	CHECK(hostsys_restore());
	CHECK_STR(get(numa), "10");
	CHECK(strstr(hostsys_numa(), "restored: numa_balancing=10"));
}

/* No boost switch (this project's VM): unknown, and turbo=off says it could not. */
TEST(no_switch_says_why)
{
	files(false, false, false);
	put(numa, "0\n");
	hostsys_want(INSTR_OFF, true);
	hostsys_apply();
	CHECK(!strncmp(hostsys_boost(), "unknown: no cpufreq boost switch", 32));
	CHECK_STR(hostsys_boost_status(), "not changed: no cpufreq boost switch");
	CHECK(!strncmp(hostsys_boost_control(), "unavailable:", 12));
	CHECK_STR(hostsys_numa(), "off");
	CHECK(!hostsys_restore());
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/qb-hostsys-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("no temporary directory\n");
		return 1;
	}
	snprintf(boost, sizeof(boost), "%s/boost", dir);
	snprintf(no_turbo, sizeof(no_turbo), "%s/no_turbo", dir);
	snprintf(numa, sizeof(numa), "%s/numa_balancing", dir);
	RUN(turned_off_for_the_run_and_back);
	RUN(kept_is_only_read);
	RUN(write_that_did_not_take_is_put_back);
	RUN(no_switch_says_why);
	unlink(boost);
	unlink(no_turbo);
	unlink(numa);
	rmdir(dir);
	return check_summary("twin_hostsys");
}
