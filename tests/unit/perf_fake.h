/* perf_fake.h - a fake perf for the Linux twin's units (tools/twin/perf.h): sysfs and procfs files from a table, perf_event_open recording each event's attributes and refusing what a policy refuses (as Linux would: ENOENT without a PMU driver, EACCES under perf_event_paranoid), and group reads (PERF_FORMAT_GROUP) of the values a test sets. */
#ifndef QB_TESTS_PERF_FAKE_H
#define QB_TESTS_PERF_FAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"

#define FAKE_FILES 32
#define FAKE_EVENTS 64
#define FAKE_FD0 100   /* fd of event i: FAKE_FD0 + i */

struct fake_event {
	struct perf_event_attr a;
	int pid, cpu, group_fd;
	bool open;
	uint64_t value;        /* what a read returns for it */
};

static struct {
	const char *path[FAKE_FILES], *text[FAKE_FILES];
	unsigned n_files;
	struct fake_event ev[FAKE_EVENTS];
	unsigned n_ev;
	/* errno (positive) to refuse an event with, or 0 to open it */
	int (*policy)(const struct perf_event_attr *a, int pid, int cpu);
	bool unschedulable;    /* reads return 0 bytes: a pinned group in error state */
} fake;

static inline void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
}

static inline void fake_file(const char *path, const char *text)
{
	if (fake.n_files < FAKE_FILES) {
		fake.path[fake.n_files] = path;
		fake.text[fake.n_files++] = text;
	}
}

static inline int fake_read_text(const char *path, char *buf, size_t n)
{
	for (unsigned i = 0; i < fake.n_files; i++)
		if (!strcmp(fake.path[i], path)) {
			snprintf(buf, n, "%s", fake.text[i]);
			return 0;
		}
	return -ENOENT;
}

static inline int fake_open(const struct perf_event_attr *a, int pid, int cpu, int group_fd)
{
	int err = fake.policy ? fake.policy(a, pid, cpu) : 0;
	if (err)
		return -err;
	if (fake.n_ev >= FAKE_EVENTS)
		return -EMFILE;
	struct fake_event *e = &fake.ev[fake.n_ev];
	e->a = *a;
	e->pid = pid;
	e->cpu = cpu;
	e->group_fd = group_fd;
	e->open = true;
	return FAKE_FD0 + (int)fake.n_ev++;
}

static inline struct fake_event *fake_of(int fd)
{
	unsigned i = (unsigned)(fd - FAKE_FD0);
	return fd >= FAKE_FD0 && i < fake.n_ev ? &fake.ev[i] : NULL;
}

/* A group read on the leader: nr, then the open members in the order they were opened. */
static inline long fake_read(int fd, void *buf, size_t n)
{
	struct fake_event *lead = fake_of(fd);
	uint64_t out[1 + FAKE_EVENTS];
	unsigned nr = 0;
	if (!lead || !lead->open || !(lead->a.read_format & PERF_FORMAT_GROUP))
		return -EBADF;
	if (fake.unschedulable)
		return 0;
	for (unsigned i = 0; i < fake.n_ev; i++) {
		struct fake_event *e = &fake.ev[i];
		if (e->open && (e == lead || e->group_fd == fd))
			out[1 + nr++] = e->value;
	}
	out[0] = nr;
	size_t bytes = (1 + nr) * sizeof(uint64_t);
	if (n < bytes)
		return -ENOSPC;
	memcpy(buf, out, bytes);
	return (long)bytes;
}

static inline void fake_close(int fd)
{
	struct fake_event *e = fake_of(fd);
	if (e)
		e->open = false;
}

static inline unsigned fake_open_count(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < fake.n_ev; i++)
		n += fake.ev[i].open;
	return n;
}

static const struct perf_ops fake_ops = { fake_open, fake_read, fake_close, fake_read_text };

/* Policies, each as Linux answers in that situation. */
static inline int refuse_enoent(const struct perf_event_attr *a, int pid, int cpu)
{
	(void)a, (void)pid, (void)cpu;
	return ENOENT;       /* no PMU serves the type: x86 with no PMU driver */
}

static inline int refuse_eacces(const struct perf_event_attr *a, int pid, int cpu)
{
	(void)a, (void)pid, (void)cpu;
	return EACCES;       /* perf_event_paranoid=3 (Debian): no perf for the unprivileged */
}

static inline int refuse_eopnotsupp(const struct perf_event_attr *a, int pid, int cpu)
{
	(void)a, (void)pid, (void)cpu;
	return EOPNOTSUPP;
}

/* perf_event_paranoid=2 for a user without CAP_PERFMON: ring 0 and
 * system-wide (pid -1) events are refused (kernel/events/core.c
 * perf_allow_kernel, perf_allow_cpu). */
static inline int paranoid2(const struct perf_event_attr *a, int pid, int cpu)
{
	(void)cpu;
	return !a->exclude_kernel || pid == -1 ? EACCES : 0;
}

#endif
