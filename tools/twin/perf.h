/* perf.h - the Linux twin's way to the OS's counters: perf_event_open(2), read(2) and close(2) on its events, and the sysfs and procfs files that describe them (Documentation/ABI/testing/sysfs-bus-event_source-devices-*), behind a table of functions that a unit test replaces with a fake. */
#ifndef QB_TWIN_PERF_H
#define QB_TWIN_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_WHY_LEN 112	/* a reason, "unavailable: " included */

/* The system calls and file reads everything here goes through. */
struct perf_ops {
	/* perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC): the fd, or -errno. */
	int (*open)(const struct perf_event_attr *a, int pid, int cpu, int group_fd);
	/* read(fd, buf, n): the bytes read, or -errno. */
	long (*read)(int fd, void *buf, size_t n);
	void (*close)(int fd);
	/* The first line of a small file, without its newline: 0, or -errno. */
	int (*read_text)(const char *path, char *buf, size_t n);
};

/* Use ops from now on (a unit test's fake); NULL: the system's. */
void perf_use(const struct perf_ops *ops);

/* Through the ops in use. */
int perf_open(const struct perf_event_attr *a, int pid, int cpu, int group_fd);
long perf_read(int fd, void *buf, size_t n);
void perf_close(int fd);

/* The first line of a small file (sysfs, procfs, tracefs) through the ops in use: 0, or -errno. */
int perf_read_text(const char *path, char *buf, size_t n);

/* A PMU's perf type from /sys/bus/event_source/devices/NAME/type, or -errno
 * (-ENOENT: the OS has no such PMU). */
int perf_pmu_type(const char *pmu);

/* True when the OS has a core PMU driver: the devices `cpu` (Intel and AMD),
 * or `cpu_core`/`cpu_atom` (Intel hybrid parts). */
bool perf_have_core_pmu(void);

/* The config of a PMU's named event, from events/EVENT ("event=0x04",
 * "event=0x3c,umask=0x01") with each term placed by format/TERM
 * ("config:0-7"): 0, -ENOENT when the PMU lists no such event, -EINVAL
 * when the description cannot be read as terms of config. */
int perf_pmu_event(const char *pmu, const char *event, uint64_t *config);

/* /proc/sys/kernel/perf_event_paranoid, or INT32_MIN when unreadable. */
int32_t perf_paranoid(void);

/* "ENOENT", "EACCES", ... for err (positive), or "errno N" in buf. */
const char *perf_errno_name(int err, char *buf, size_t n);

/* Says in buf why perf_event_open refused with err (positive), as
 * "unavailable: no PMU driver (perf_event_open: ENOENT)" or
 * "unavailable: perf_event_paranoid=3 (perf_event_open: EACCES)"; core says
 * the event was a core PMU's (so ENOENT without a core driver means none). */
void perf_why(char *buf, size_t n, int err, bool core);

#endif
