/* perfirq.c (twin) - a thread's interrupts through perf's irq tracepoints, and each CPU's from /proc/interrupts; see perfirq.h. */
#define _GNU_SOURCE
#include "perfirq.h"
#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Constants ------------------------------------------------------------ */
#define PATH_LEN 160
#define ID_LEN 32
#define PROC_FILE "/proc/interrupts"
#define PROC_CHUNK 65536
#define PROC_MAX (64u << 20)           /* 1024 CPUs x 11 columns x a few hundred lines fit */
#define PROC_COLS 4096                 /* CPU columns read at most */
#define OS_CPUS 8192                   /* OS CPU numbers kept */

/* ---- Private Variables ---------------------------------------------------- */
/* Where tracefs may be mounted: its own mount point, then under debugfs. */
static const char *const trace_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* Every interrupt entry point Linux traces on x86 (arch/x86/include/asm/trace/irq_vectors.h,
 * include/trace/events/irq.h); those this kernel lacks are left out. */
static const char *const events[] = {
	"irq/irq_handler_entry",
	"irq_vectors/local_timer_entry",
	"irq_vectors/reschedule_entry",
	"irq_vectors/call_function_entry",
	"irq_vectors/call_function_single_entry",
	"irq_vectors/irq_work_entry",
	"irq_vectors/x86_platform_ipi_entry",
	"irq_vectors/thermal_apic_entry",
	"irq_vectors/threshold_apic_entry",
	"irq_vectors/deferred_error_apic_entry",
	"irq_vectors/error_apic_entry",
	"irq_vectors/spurious_apic_entry",
};

static struct perfirq_caps sys_caps;
static pthread_once_t sys_once = PTHREAD_ONCE_INIT;

/* The configuration under way: every OS CPU's total at its start, and the CPUs its runs used. */
static struct {
	bool have;
	uint64_t before[OS_CPUS], now[OS_CPUS];
	bool used[OS_CPUS];
} cfg;

/* ---- Private Functions ---------------------------------------------------- */
static void detect_system(void)
{
	perfirq_detect(&sys_caps);
}

static void group_init(struct perfirq_group *g)
{
	g->n = 0;
	for (int i = 0; i < PERFIRQ_MAX; i++)
		g->fd[i] = -1;
}

/* The id of events/<sys>/<name> under dir: 0, or -errno. */
static int event_id(const char *dir, const char *ev, uint64_t *id)
{
	char path[PATH_LEN], text[ID_LEN];
	snprintf(path, sizeof(path), "%s/events/%s/id", dir, ev);
	int err = perf_read_text(path, text, sizeof(text));
	if (err)
		return err;
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text)
		return -EINVAL;
	*id = v;
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */
void perfirq_detect(struct perfirq_caps *c)
{
	memset(c, 0, sizeof(*c));
	int err = -ENOENT;
	const char *dir = 0;
	/* The first directory that has the device interrupts' tracepoint. */
	for (size_t d = 0; d < sizeof(trace_dirs) / sizeof(trace_dirs[0]) && !dir; d++) {
		uint64_t id;
		int e = event_id(trace_dirs[d], events[0], &id);
		if (e == 0)
			dir = trace_dirs[d];
		else if (err == -ENOENT)
			err = e;                /* a refusal says more than an absence */
	}
	if (!dir) {
		if (err == -ENOENT)
			snprintf(c->why, sizeof(c->why),
				 "unavailable: no irq tracepoints: tracefs is not mounted (/sys/kernel/tracing)");
		else
			snprintf(c->why, sizeof(c->why), "unavailable: tracefs's event ids are not readable (%s)",
				 err == -EACCES || err == -EPERM ? "not root" : strerror(-err));
		return;
	}
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]) && c->n < PERFIRQ_MAX; i++)
		if (event_id(dir, events[i], &c->id[c->n]) == 0)
			c->name[c->n++] = events[i];
	struct perfirq_group g;
	c->ok = true;
	if ((err = perfirq_open(c, &g)) != 0) {
		c->ok = false;
		perf_why(c->why, sizeof(c->why), -err, false);
	}
	perfirq_close(&g);
}

int perfirq_open(const struct perfirq_caps *c, struct perfirq_group *g)
{
	group_init(g);
	if (!c->ok)
		return -ENOENT;
	for (uint32_t i = 0; i < c->n; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = c->id[i];
		a.read_format = PERF_FORMAT_GROUP;
		a.pinned = g->n == 0;          /* counted, never sampled (sample_period 0) */
		int fd = perf_open(&a, 0, -1, g->n ? g->fd[0] : -1);
		if (fd < 0) {
			if (i == 0) {              /* without irq_handler_entry nothing is worth counting */
				perfirq_close(g);
				return fd;
			}
			continue;                  /* a vector this kernel will not count: left out */
		}
		g->fd[g->n++] = fd;
	}
	return 0;
}

bool perfirq_read(const struct perfirq_group *g, uint64_t *sum)
{
	uint64_t buf[1 + PERFIRQ_MAX];
	if (!g->n)
		return false;
	long want = (long)((1 + g->n) * sizeof(uint64_t));
	if (perf_read(g->fd[0], buf, (size_t)want) != want || buf[0] != g->n)
		return false;
	uint64_t s = 0;
	for (uint32_t i = 0; i < g->n; i++)
		s += buf[1 + i];
	*sum = s;
	return true;
}

void perfirq_close(struct perfirq_group *g)
{
	for (uint32_t i = g->n; i-- > 0;)
		perf_close(g->fd[i]);
	group_init(g);
}

uint32_t perfirq_proc_parse(const char *text, uint64_t *total, uint32_t cap)
{
	uint32_t *col_cpu = malloc(PROC_COLS * sizeof(uint32_t)), cols = 0;
	uint64_t *v = malloc(PROC_COLS * sizeof(uint64_t));
	const char *p = text;
	for (uint32_t i = 0; i < cap; i++)
		total[i] = 0;
	if (!col_cpu || !v) {
		free(col_cpu);
		free(v);
		return 0;
	}
	/* The header: "           CPU0       CPU1 ..." */
	while (*p && *p != '\n') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3]))
			break;
		char *end;
		unsigned long cpu = strtoul(p + 3, &end, 10);
		if (cols < PROC_COLS)
			col_cpu[cols++] = (uint32_t)cpu;
		p = end;
	}
	while (cols && *p) {
		p = strchr(p, '\n');
		if (!p++)
			break;
		const char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
		if (!colon || (eol && colon > eol))
			continue;
		uint32_t k = 0;
		const char *q = colon + 1;
		while (k < cols) {
			while (*q == ' ' || *q == '\t')
				q++;
			if (!isdigit((unsigned char)*q))
				break;
			char *end;
			v[k++] = strtoull(q, &end, 10);
			q = end;
		}
		if (k < cols)
			continue;              /* ERR:, MIS:: one count for the machine, not per CPU */
		for (uint32_t i = 0; i < cols; i++)
			if (col_cpu[i] < cap)
				total[col_cpu[i]] += v[i];
	}
	free(col_cpu);
	free(v);
	return cols;
}

uint32_t perfirq_proc_read(uint64_t *total, uint32_t cap)
{
	int fd = open(PROC_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t len = 0, size = PROC_CHUNK;
	char *buf = malloc(size);
	for (ssize_t got = 1; buf && got > 0 && len < PROC_MAX;) {
		if (size - len < PROC_CHUNK / 2) {
			char *more = realloc(buf, size * 2);
			if (!more) {
				free(buf);
				buf = 0;
				break;
			}
			buf = more;
			size *= 2;
		}
		got = read(fd, buf + len, size - len - 1);
		len += got > 0 ? (size_t)got : 0;
	}
	close(fd);
	if (!buf)
		return 0;
	buf[len] = 0;
	uint32_t n = perfirq_proc_parse(buf, total, cap);
	free(buf);
	return n;
}

const struct perfirq_caps *perfirq_system(void)
{
	pthread_once(&sys_once, detect_system);
	return &sys_caps;
}

void perfirq_config_begin(void)
{
	memset(cfg.used, 0, sizeof(cfg.used));
	cfg.have = perfirq_proc_read(cfg.before, OS_CPUS) != 0;
}

void perfirq_config_cpus(const uint32_t *os_cpus, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (os_cpus[i] < OS_CPUS)
			cfg.used[os_cpus[i]] = true;
}

bool perfirq_config_end(uint64_t *n)
{
	if (!cfg.have || !perfirq_proc_read(cfg.now, OS_CPUS))
		return false;
	uint64_t sum = 0;
	for (uint32_t c = 0; c < OS_CPUS; c++)
		if (cfg.used[c] && cfg.now[c] >= cfg.before[c])
			sum += cfg.now[c] - cfg.before[c];
	*n = sum;
	return true;
}
