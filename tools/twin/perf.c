/* perf.c (twin) - perf_event_open and the files that describe perf's PMUs, through a table that tests replace; see perf.h. */
#define _GNU_SOURCE
#include "perf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- Constants ------------------------------------------------------------ */
#define PMU_DIR "/sys/bus/event_source/devices/"
#define PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"
#define PATH_LEN 160
#define TEXT_LEN 128
#define TERM_LEN 32
#define CONFIG_BITS 64

/* ---- Private Functions ---------------------------------------------------- */
static int sys_open(const struct perf_event_attr *a, int pid, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static long sys_read(int fd, void *buf, size_t n)
{
	ssize_t got = read(fd, buf, n);
	return got < 0 ? -errno : (long)got;
}

static void sys_close(int fd)
{
	close(fd);
}

static int sys_read_text(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t got = read(fd, buf, n - 1);
	int err = got < 0 ? errno : 0;
	close(fd);
	if (got < 0)
		return -err;
	buf[got] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ---- Private Variables ---------------------------------------------------- */
static const struct perf_ops sys_ops = { sys_open, sys_read, sys_close, sys_read_text };
static const struct perf_ops *ops = &sys_ops;

/* ---- Private Functions ---------------------------------------------------- */
/* Places value at the bits a format file names ("config:0-7", "config:0-7,32-35"). */
static int place(const char *format, uint64_t value, uint64_t *config)
{
	if (strncmp(format, "config:", 7))
		return -EINVAL;             /* config1/config2 terms: not a plain event */
	const char *p = format + 7;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -EINVAL;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi >= CONFIG_BITS)
			return -EINVAL;
		unsigned width = (unsigned)(hi - lo + 1);
		uint64_t mask = width >= CONFIG_BITS ? ~0ull : (1ull << width) - 1;
		*config |= (value & mask) << lo;
		value = width >= CONFIG_BITS ? 0 : value >> width;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return value ? -EINVAL : 0;     /* a value wider than its field */
}

/* ---- Public Functions ----------------------------------------------------- */
void perf_use(const struct perf_ops *o)
{
	ops = o ? o : &sys_ops;
}

int perf_open(const struct perf_event_attr *a, int pid, int cpu, int group_fd)
{
	return ops->open(a, pid, cpu, group_fd);
}

long perf_read(int fd, void *buf, size_t n)
{
	return ops->read(fd, buf, n);
}

void perf_close(int fd)
{
	if (fd >= 0)
		ops->close(fd);
}

int perf_read_text(const char *path, char *buf, size_t n)
{
	return ops->read_text(path, buf, n);
}

int perf_pmu_type(const char *pmu)
{
	char path[PATH_LEN], text[TEXT_LEN];
	snprintf(path, sizeof(path), PMU_DIR "%s/type", pmu);
	int err = ops->read_text(path, text, sizeof(text));
	if (err)
		return err;
	char *end;
	long t = strtol(text, &end, 10);
	return end == text || t < 0 || t > INT32_MAX ? -EINVAL : (int)t;
}

bool perf_have_core_pmu(void)
{
	return perf_pmu_type("cpu") >= 0 || perf_pmu_type("cpu_core") >= 0 || perf_pmu_type("cpu_atom") >= 0;
}

int perf_pmu_event(const char *pmu, const char *event, uint64_t *config)
{
	char path[PATH_LEN], text[TEXT_LEN], format[TEXT_LEN];
	snprintf(path, sizeof(path), PMU_DIR "%s/events/%s", pmu, event);
	int err = ops->read_text(path, text, sizeof(text));
	if (err)
		return err;
	*config = 0;
	for (char *term = text, *next; term && *term; term = next) {
		next = strchr(term, ',');
		if (next)
			*next++ = 0;
		char *eq = strchr(term, '=');
		char name[TERM_LEN];
		size_t len = eq ? (size_t)(eq - term) : strlen(term);
		if (len == 0 || len >= sizeof(name))
			return -EINVAL;
		memcpy(name, term, len);
		name[len] = 0;
		char *end;
		uint64_t value = eq ? strtoull(eq + 1, &end, 0) : 1;  /* a bare term is a flag: 1 */
		if (eq && (end == eq + 1 || *end))
			return -EINVAL;
		snprintf(path, sizeof(path), PMU_DIR "%s/format/%s", pmu, name);
		if (ops->read_text(path, format, sizeof(format)) || place(format, value, config))
			return -EINVAL;
	}
	return 0;
}

int32_t perf_paranoid(void)
{
	char text[TEXT_LEN];
	if (ops->read_text(PARANOID_FILE, text, sizeof(text)))
		return INT32_MIN;
	char *end;
	long v = strtol(text, &end, 10);
	return end == text || v < INT32_MIN + 1 || v > INT32_MAX ? INT32_MIN : (int32_t)v;
}

const char *perf_errno_name(int err, char *buf, size_t n)
{
	static const struct { int err; const char *name; } names[] = {
		{ ENOENT, "ENOENT" }, { EACCES, "EACCES" }, { EPERM, "EPERM" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EINVAL, "EINVAL" }, { ENODEV, "ENODEV" }, { EBUSY, "EBUSY" }, { ENOSYS, "ENOSYS" },
		{ EMFILE, "EMFILE" }, { E2BIG, "E2BIG" }, { ENOSPC, "ENOSPC" }, { EFAULT, "EFAULT" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, n, "errno %d", err);
	return buf;
}

void perf_why(char *buf, size_t n, int err, bool core)
{
	char num[TERM_LEN];
	const char *name = perf_errno_name(err, num, sizeof(num));
	int32_t paranoid;
	switch (err) {
	case ENOENT:
		if (core && !perf_have_core_pmu())
			snprintf(buf, n, "unavailable: no PMU driver (perf_event_open: %s)", name);
		else
			snprintf(buf, n, "unavailable: the PMU does not know the event (perf_event_open: %s)", name);
		break;
	case EACCES:
	case EPERM:
		paranoid = perf_paranoid();
		if (paranoid != INT32_MIN)
			snprintf(buf, n, "unavailable: perf_event_paranoid=%d (perf_event_open: %s)", (int)paranoid, name);
		else
			snprintf(buf, n, "unavailable: not permitted (perf_event_open: %s)", name);
		break;
	case EOPNOTSUPP:
		snprintf(buf, n, "unavailable: the event is not supported (perf_event_open: %s)", name);
		break;
	case ENODEV:
		snprintf(buf, n, "unavailable: the PMU does not serve this CPU (perf_event_open: %s)", name);
		break;
	case EINVAL:
		snprintf(buf, n, "unavailable: the PMU refused the event's settings (perf_event_open: %s)", name);
		break;
	case EBUSY:
		snprintf(buf, n, "unavailable: the counters are taken (perf_event_open: %s)", name);
		break;
	case ENOSYS:
		snprintf(buf, n, "unavailable: the kernel has no perf events (perf_event_open: %s)", name);
		break;
	default:
		snprintf(buf, n, "unavailable: perf_event_open: %s", name);
		break;
	}
}
