/* perfnoise.c (twin) - SMIs and APERF/MPERF per thread through perf's msr PMU; see perfnoise.h. */
#include "perfnoise.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- Constants ------------------------------------------------------------ */
#define MSR_PMU "msr"
#define GROUP_MAX 3
#define UNAVAILABLE "unavailable: "

/* ---- Private Functions ---------------------------------------------------- */
static void group_init(struct perfnoise_group *g)
{
	g->n = 0;
	g->i_smi = g->i_aperf = g->i_mperf = -1;
	for (int i = 0; i < GROUP_MAX; i++)
		g->fd[i] = -1;
	g->cyc_fd[0] = g->cyc_fd[1] = -1;
}

/* The thread's cycles and ref-cycles (ring 3 only, as perf_event_paranoid=2
 * allows), in a group of their own: 0, or -errno with nothing open. */
static int open_cycles(struct perfnoise_group *g)
{
	static const uint64_t cfg[2] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_REF_CPU_CYCLES };
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = cfg[i];
		a.read_format = PERF_FORMAT_GROUP;
		a.pinned = i == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		int fd = perf_open(&a, 0, -1, i ? g->cyc_fd[0] : -1);
		if (fd < 0) {
			perf_close(g->cyc_fd[0]);
			g->cyc_fd[0] = -1;
			return fd;
		}
		g->cyc_fd[i] = fd;
	}
	return 0;
}

/* A reason without its "unavailable: " (to be joined to another). */
static const char *bare(const char *why)
{
	return strncmp(why, UNAVAILABLE, sizeof(UNAVAILABLE) - 1) ? why : why + sizeof(UNAVAILABLE) - 1;
}

/* Adds one event to the group; false (and -errno in *err) when perf refuses. */
static bool add(struct perfnoise_group *g, int type, uint64_t config, int8_t *index, int *err)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.config = config;
	a.read_format = PERF_FORMAT_GROUP;
	a.pinned = g->n == 0;
	/* The msr PMU takes no exclude_* bits (PERF_PMU_CAP_NO_EXCLUDE). */
	int fd = perf_open(&a, 0, -1, g->n ? g->fd[0] : -1);
	if (fd < 0) {
		*err = fd;
		return false;
	}
	*index = (int8_t)g->n;
	g->fd[g->n++] = fd;
	return true;
}

/* Without aperf/mperf: cycles against ref-cycles, tried once; else why neither. */
static void clock_fallback(struct perfnoise_caps *c)
{
	struct perfnoise_group g;
	char why[PERF_WHY_LEN];
	group_init(&g);
	int err = open_cycles(&g);
	c->cycles = err == 0;
	perfnoise_close(&g);
	if (c->cycles)
		return;
	perf_why(why, sizeof(why), -err, true);
	snprintf(c->clock_why, sizeof(c->clock_why), UNAVAILABLE "no cycle counters: %s; cycles against ref-cycles: %s",
		 bare(c->freq_why), bare(why));
}

/* ---- Public Functions ----------------------------------------------------- */
void perfnoise_detect(struct perfnoise_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->type = perf_pmu_type(MSR_PMU);
	if (c->type < 0) {
		snprintf(c->smi_why, sizeof(c->smi_why),
			 "unavailable: no msr PMU in perf (/sys/bus/event_source/devices/" MSR_PMU ")");
		snprintf(c->freq_why, sizeof(c->freq_why), "%s", c->smi_why);
		clock_fallback(c);
		return;
	}
	c->smi = perf_pmu_event(MSR_PMU, "smi", &c->smi_cfg) == 0;
	if (!c->smi)
		snprintf(c->smi_why, sizeof(c->smi_why),
			 "unavailable: perf's msr PMU has no smi event (Linux lists it where MSR_SMI_COUNT exists: Intel)");
	c->freq = perf_pmu_event(MSR_PMU, "aperf", &c->aperf_cfg) == 0 &&
		  perf_pmu_event(MSR_PMU, "mperf", &c->mperf_cfg) == 0;
	if (!c->freq)
		snprintf(c->freq_why, sizeof(c->freq_why),
			 "unavailable: perf's msr PMU has no aperf/mperf events (no APERFMPERF, CPUID.06H:ECX[0])");
	/* Each source tried alone, so that one refusal does not hide the other. */
	struct perfnoise_caps one = *c;
	struct perfnoise_group g;
	int err;
	if (c->smi) {
		one.freq = false;
		if ((err = perfnoise_open(&one, &g)) != 0) {
			c->smi = false;
			perf_why(c->smi_why, sizeof(c->smi_why), -err, false);
		}
		perfnoise_close(&g);
	}
	if (c->freq) {
		one = *c;
		one.smi = false;
		if ((err = perfnoise_open(&one, &g)) != 0) {
			c->freq = false;
			perf_why(c->freq_why, sizeof(c->freq_why), -err, false);
		}
		perfnoise_close(&g);
	}
	if (!c->freq)
		clock_fallback(c);
}

int perfnoise_open(const struct perfnoise_caps *c, struct perfnoise_group *g)
{
	int err = 0;
	group_init(g);
	bool ok = c->type < 0 ||
		  ((!c->smi || add(g, c->type, c->smi_cfg, &g->i_smi, &err)) &&
		   (!c->freq || (add(g, c->type, c->aperf_cfg, &g->i_aperf, &err) &&
				 add(g, c->type, c->mperf_cfg, &g->i_mperf, &err))));
	if (ok && !c->freq && c->cycles)
		ok = (err = open_cycles(g)) == 0;
	if (!ok)
		perfnoise_close(g);
	return ok ? 0 : err;
}

bool perfnoise_sample(const struct perfnoise_group *g, struct noise_sample *s)
{
	uint64_t buf[1 + GROUP_MAX];
	if (!g->n && g->cyc_fd[0] < 0)
		return false;
	if (g->cyc_fd[0] >= 0) {
		long two = (long)(3 * sizeof(uint64_t));
		if (perf_read(g->cyc_fd[0], buf, (size_t)two) != two || buf[0] != 2)
			return false;
		s->aperf = buf[1];
		s->mperf = buf[2];
	}
	if (!g->n)
		return true;
	long want = (long)((1 + g->n) * sizeof(uint64_t));
	if (perf_read(g->fd[0], buf, (size_t)want) != want || buf[0] != g->n)
		return false;
	if (g->i_smi >= 0)
		s->smi = buf[1 + g->i_smi];
	if (g->i_aperf >= 0)
		s->aperf = buf[1 + g->i_aperf];
	if (g->i_mperf >= 0)
		s->mperf = buf[1 + g->i_mperf];
	return true;
}

void perfnoise_delta(const struct perfnoise_group *g, const struct noise_sample *before,
		     const struct noise_sample *after, uint64_t tsc_hz, struct noise_rep *out)
{
	struct noise_caps c;
	memset(&c, 0, sizeof(c));
	c.tsc = true;
	c.smi = g->i_smi >= 0;
	c.aperf = (g->i_aperf >= 0 && g->i_mperf >= 0) || g->cyc_fd[0] >= 0;
	noise_delta(&c, before, after, tsc_hz, 0, out);
	out->flagged = out->flags != 0;
}

void perfnoise_init(struct perfnoise_group *g)
{
	group_init(g);
}

void perfnoise_close(struct perfnoise_group *g)
{
	for (uint32_t i = g->n; i-- > 0;)
		perf_close(g->fd[i]);
	perf_close(g->cyc_fd[1]);
	perf_close(g->cyc_fd[0]);
	group_init(g);
}
