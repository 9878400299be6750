/* hostsys.c (twin) - cpufreq's boost switch and NUMA balancing, read, changed as asked and put back; see hostsys.h. */
#include "hostsys.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- Constants ------------------------------------------------------------ */
#define BOOST_FILE "/sys/devices/system/cpu/cpufreq/boost"          /* 1: boost on (acpi-cpufreq, amd-pstate) */
#define NO_TURBO_FILE "/sys/devices/system/cpu/intel_pstate/no_turbo" /* 1: turbo off */
#define NUMA_FILE "/proc/sys/kernel/numa_balancing"                 /* 0: off; 1, 2, 3: on (modes) */
#define VALUE_LEN 16
#define TEXT_LEN 320
#define NUMA_EXPOSED "on: the workloads' buffers carry an mbind policy, which balancing leaves alone; .bss, the " \
		     "code and the eviction buffer stay exposed to its hinting faults"

/* ---- Types ---------------------------------------------------------------- */
/* One setting: its file, the value found, whether we changed it. */
struct setting {
	const char *file;
	char found[VALUE_LEN];
	bool readable, changed;
	int err;                               /* errno of the failed read, 0 */
};

/* ---- Private Variables ---------------------------------------------------- */
static const char *boost_file = BOOST_FILE, *no_turbo_file = NO_TURBO_FILE, *numa_file = NUMA_FILE;
static enum instr_setting want_boost;
static bool want_numa_off;
static struct setting boost, numa;
static bool inverted;                      /* boost is intel_pstate's no_turbo */
static volatile int restored;
static char boost_text[TEXT_LEN], status_text[TEXT_LEN], numa_text[TEXT_LEN];

/* ---- Private Functions ---------------------------------------------------- */
static int read_value(const char *file, char *out, size_t cap)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t got = read(fd, out, cap - 1);
	int err = got < 0 ? errno : 0;
	close(fd);
	if (got < 0)
		return err;
	out[got] = 0;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

static int write_value(const char *file, const char *v)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = (ssize_t)strlen(v), put = write(fd, v, (size_t)n);
	int err = put != n ? (put < 0 ? errno : EIO) : 0;
	close(fd);
	return err;
}

static void load(struct setting *s, const char *file)
{
	s->file = file;
	s->err = read_value(file, s->found, sizeof(s->found));
	s->readable = s->err == 0;
}

/* Write v into s's file and read it back: 0, or why not (errno; EPERM when it did not take). A write that
 * went in is put back at the end even when it reads back otherwise: something may have changed. */
static int change(struct setting *s, const char *v)
{
	char now[VALUE_LEN];
	if (geteuid() != 0)
		return EACCES;
	int err = write_value(s->file, v);
	s->changed = !err;
	if (!err && (read_value(s->file, now, sizeof(now)) || strcmp(now, v)))
		err = EPERM;
	return err;
}

/* True when boost is on according to the value read. */
static bool boost_on(const char *v)
{
	return inverted ? !strcmp(v, "0") : strcmp(v, "0") != 0;
}

static const char *why_not(int err)
{
	return err == EACCES ? "not root (the file is written as root)" : strerror(err);
}

static void apply_boost(void)
{
	load(&boost, boost_file);
	inverted = false;
	if (!boost.readable) {
		load(&boost, no_turbo_file);
		inverted = boost.readable;
	}
	if (!boost.readable) {
		snprintf(boost_text, sizeof(boost_text), "unknown: no cpufreq boost switch (%s, %s): a VM, or a driver "
			 "without one", boost_file, no_turbo_file);
		snprintf(status_text, sizeof(status_text), want_boost == INSTR_KEEP ? "kept" : "not changed: %s",
			 "no cpufreq boost switch");
		return;
	}
	bool on = boost_on(boost.found);
	snprintf(boost_text, sizeof(boost_text), "%s", on ? "on" : "off");
	snprintf(status_text, sizeof(status_text), "kept");
	if (want_boost == INSTR_KEEP || on == (want_boost == INSTR_ON))
		return;
	bool to_on = want_boost == INSTR_ON;
	int err = change(&boost, to_on != inverted ? "1" : "0");
	if (err) {
		snprintf(status_text, sizeof(status_text), "not changed: %s: %s", boost.file, why_not(err));
		return;
	}
	snprintf(boost_text, sizeof(boost_text), "%s (turned %s for the run)", to_on ? "on" : "off", to_on ? "on" : "off");
	snprintf(status_text, sizeof(status_text), "%s", boost_text);
}

static void apply_numa(void)
{
	load(&numa, numa_file);
	if (!numa.readable) {
		snprintf(numa_text, sizeof(numa_text), "unknown: %s: %s (a kernel without NUMA balancing has none)",
			 numa_file, strerror(numa.err));
		return;
	}
	if (!strcmp(numa.found, "0")) {
		snprintf(numa_text, sizeof(numa_text), "off");
		return;
	}
	int err = want_numa_off ? change(&numa, "0") : 0;
	if (want_numa_off && !err)
		snprintf(numa_text, sizeof(numa_text), "off (turned off for the run)");
	else if (want_numa_off)
		snprintf(numa_text, sizeof(numa_text), NUMA_EXPOSED " (numa_balancing=off could not: %s)", why_not(err));
	else
		snprintf(numa_text, sizeof(numa_text), NUMA_EXPOSED);
}

/* ---- Public Functions ----------------------------------------------------- */
void hostsys_files(const char *b, const char *no_turbo, const char *n)
{
	boost_file = b;
	no_turbo_file = no_turbo;
	numa_file = n;
	memset(&boost, 0, sizeof(boost));
	memset(&numa, 0, sizeof(numa));
	restored = 0;
}

void hostsys_want(enum instr_setting b, bool numa_off)
{
	want_boost = b;
	want_numa_off = numa_off;
}

void hostsys_apply(void)
{
	apply_boost();
	apply_numa();
}

bool hostsys_restore(void)
{
	if (__atomic_exchange_n(&restored, 1, __ATOMIC_ACQ_REL))
		return false;
	bool any = false;
	if (boost.changed && !write_value(boost.file, boost.found)) {
		boost.changed = false;
		snprintf(boost_text, sizeof(boost_text), "%s", boost_on(boost.found) ? "on" : "off");
		snprintf(status_text, sizeof(status_text), "restored");
		any = true;
	}
	if (numa.changed && !write_value(numa.file, numa.found)) {
		numa.changed = false;
		snprintf(numa_text, sizeof(numa_text), "restored: numa_balancing=%s", numa.found);
		any = true;
	}
	return any;
}

const char *hostsys_boost(void)
{
	return boost_text;
}

const char *hostsys_boost_control(void)
{
	return boost.readable ? boost.file : "unavailable: no cpufreq boost switch in sysfs";
}

const char *hostsys_boost_status(void)
{
	return status_text;
}

const char *hostsys_numa(void)
{
	return numa_text;
}
