/* perfcount.c (twin) - the kernel's counter plans counted through perf_event_open; see perfcount.h. */
#include "perfcount.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "msr.h"

/* ---- Constants ------------------------------------------------------------ */
/* Linux arch/x86/events/amd/core.c format attributes ("event" config:0-7,32-35,
 * "umask" config:8-15): the PERF_CTL layout. Intel's (intel/core.c) is config:0-7. */
#define RAW_EVENT_LO 0xffu
#define RAW_UMASK_SHIFT 8
#define AMD_RAW_EVENT_HI_MASK 0xfu
#define AMD_RAW_EVENT_HI_SHIFT 32
#define L3_PMU "amd_l3"
#define UNAVAILABLE "unavailable: "

/* ---- Private Functions ---------------------------------------------------- */
static void attr_of(struct perf_event_attr *a, uint32_t type, uint64_t config, bool leader, bool user_only)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->read_format = PERF_FORMAT_GROUP;
	a->pinned = leader;             /* counting all the time, or the read says it was not */
	a->exclude_kernel = user_only;
	a->exclude_hv = user_only;
}

/* The reason text without its "unavailable: ", to go inside a note. */
static const char *bare(const char *why)
{
	return strncmp(why, UNAVAILABLE, strlen(UNAVAILABLE)) ? why : why + strlen(UNAVAILABLE);
}

static void note_add(struct perfcount_choice *out, const char *text)
{
	size_t len = strlen(out->note);
	if (!text || !*text || len + 3 >= sizeof(out->note))
		return;
	snprintf(out->note + len, sizeof(out->note) - len, "%s%s", len ? "; " : "", text);
}

static uint32_t count_scope(const struct pmu_plan *p, enum pmu_scope scope)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->n; i++)
		n += p->ev[i].scope == scope;
	return n;
}

/* Drops the events of one scope from the plan, keeping the order of the rest. */
static void drop_scope(struct pmu_plan *p, enum pmu_scope scope)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->ev[i].scope != scope)
			p->ev[k++] = p->ev[i];
	p->n = k;
}

/* ---- Public Functions ----------------------------------------------------- */
uint64_t perfcount_config(const struct pmu_caps *c, const struct pmu_event *e)
{
	uint64_t cfg = (e->event & RAW_EVENT_LO) | (uint64_t)e->umask << RAW_UMASK_SHIFT;
	if (cpu_vendor_is_amd(c->vendor) && e->scope == PMU_SCOPE_THREAD)
		cfg |= (uint64_t)((e->event >> 8) & AMD_RAW_EVENT_HI_MASK) << AMD_RAW_EVENT_HI_SHIFT;
	return cfg;
}

void perfcount_init(struct perfcount_group *g)
{
	g->n = 0;
	for (uint32_t i = 0; i < PMU_MAX_EVENTS; i++)
		g->fd[i] = -1;
}

int perfcount_open(struct perfcount_group *g, const struct pmu_caps *c, const struct pmu_plan *p,
		   enum pmu_scope scope, uint32_t type, int pid, int cpu, bool user_only)
{
	perfcount_init(g);
	for (uint32_t i = 0; i < p->n && i < PMU_MAX_EVENTS; i++) {
		if (p->ev[i].scope != scope)
			continue;
		struct perf_event_attr a;
		attr_of(&a, type, perfcount_config(c, &p->ev[i]), g->n == 0, user_only && scope == PMU_SCOPE_THREAD);
		int fd = perf_open(&a, pid, cpu, g->n ? g->fd[0] : -1);
		if (fd < 0) {
			perfcount_close(g);
			return fd;
		}
		g->fd[g->n] = fd;
		g->ev[g->n] = (uint8_t)i;
		g->n++;
	}
	return 0;
}

int perfcount_read(const struct perfcount_group *g, uint64_t *vals)
{
	uint64_t buf[1 + PMU_MAX_EVENTS];   /* PERF_FORMAT_GROUP: nr, then each member's value */
	if (!g->n)
		return -ENODATA;
	long want = (long)((1 + g->n) * sizeof(uint64_t));
	long got = perf_read(g->fd[0], buf, (size_t)want);
	if (got < 0)
		return (int)got;
	if (got == 0)
		return -ENODATA;                /* a pinned group perf could not schedule reads as EOF */
	if (got != want || buf[0] != g->n)
		return -EIO;
	for (uint32_t i = 0; i < g->n; i++)
		vals[g->ev[i]] = buf[1 + i];
	return 0;
}

void perfcount_delta(const struct perfcount_group *g, const uint64_t *before, const uint64_t *after, uint64_t *out)
{
	for (uint32_t i = 0; i < g->n; i++)
		out[g->ev[i]] = after[g->ev[i]] - before[g->ev[i]];
}

void perfcount_close(struct perfcount_group *g)
{
	for (uint32_t i = g->n; i-- > 0;)
		perf_close(g->fd[i]);
	perfcount_init(g);
}

void perfcount_choose(const struct pmu_caps *c, enum pmu_goal goal, int l3_cpu, struct perfcount_choice *out)
{
	char why[PERF_WHY_LEN], text[2 * PERF_WHY_LEN];
	struct perfcount_group g;
	memset(out, 0, sizeof(*out));
	if (pmu_plan(c, goal, &out->plan) <= 0) {
		snprintf(out->why, sizeof(out->why), UNAVAILABLE "%s", out->plan.why ? out->plan.why : "no event fits");
		return;
	}
	note_add(out, out->plan.note);
	bool core_refused = false;
	if (count_scope(&out->plan, PMU_SCOPE_THREAD)) {
		int err = perfcount_open(&g, c, &out->plan, PMU_SCOPE_THREAD, PERF_TYPE_RAW, 0, -1, false);
		if (err == -EACCES || err == -EPERM) {
			perf_why(why, sizeof(why), -err, true);
			err = perfcount_open(&g, c, &out->plan, PMU_SCOPE_THREAD, PERF_TYPE_RAW, 0, -1, true);
			if (!err) {
				out->user_only = true;
				snprintf(text, sizeof(text), "ring 3 only: the kernel is not counted (%s)", bare(why));
				note_add(out, text);
			}
		}
		perfcount_close(&g);
		if (err) {
			perf_why(why, sizeof(why), -err, true);
			snprintf(text, sizeof(text), "core events left out: %s", bare(why));
			core_refused = true;
			drop_scope(&out->plan, PMU_SCOPE_THREAD);
			if (count_scope(&out->plan, PMU_SCOPE_L3))
				note_add(out, text);
			snprintf(out->why, sizeof(out->why), "%s", why);
		}
	}
	if (count_scope(&out->plan, PMU_SCOPE_L3)) {
		int type = perf_pmu_type(L3_PMU);
		int err = type < 0 ? type : l3_cpu < 0 ? -ENODEV : 0;
		if (!err) {
			err = perfcount_open(&g, c, &out->plan, PMU_SCOPE_L3, (uint32_t)type, -1, l3_cpu, false);
			perfcount_close(&g);
		}
		if (err) {
			if (type < 0)
				snprintf(why, sizeof(why), UNAVAILABLE "no " L3_PMU " PMU in perf (/sys/bus/event_source/devices/" L3_PMU ")");
			else if (l3_cpu < 0)
				snprintf(why, sizeof(why), UNAVAILABLE "no CPU of an L3 to count it on");
			else
				perf_why(why, sizeof(why), -err, false);
			snprintf(out->l3_why, sizeof(out->l3_why), "%s", why);
			drop_scope(&out->plan, PMU_SCOPE_L3);
			snprintf(text, sizeof(text), "l3 events left out: %s", bare(why));
			if (out->plan.n)
				note_add(out, text);
			else if (!core_refused)
				snprintf(out->why, sizeof(out->why), "%s", why);
		} else {
			out->has_l3 = true;
			out->l3_type = (uint32_t)type;
		}
	}
	if (out->plan.n)
		out->why[0] = 0;
	else
		out->note[0] = 0;
}
