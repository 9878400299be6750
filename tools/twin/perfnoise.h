/* perfnoise.h - the noise detectors Linux offers a process: perf's `msr` PMU (arch/x86/events/msr.c) counts a thread's SMIs (MSR_SMI_COUNT, event `smi`) and its APERF/MPERF cycles (`aperf`, `mperf`), each event's config read from /sys/bus/event_source/devices/msr/events; without aperf/mperf, the core clock is perf's cycles against ref-cycles (both count only while the core is not halted, as APERF and MPERF do; ref-cycles at the TSC's rate). The repetition is judged as the kernel judges it (kernel/measure/noise.c). */
#ifndef QB_TWIN_PERFNOISE_H
#define QB_TWIN_PERFNOISE_H

#include <stdbool.h>
#include <stdint.h>
#include "noise.h"
#include "perf.h"

/* What perf offers, found once (perfnoise_detect). */
struct perfnoise_caps {
	int type;                      /* the msr PMU's perf type, or -errno */
	bool smi, freq;                /* the events exist and opened on a trial */
	uint64_t smi_cfg, aperf_cfg, mperf_cfg;
	char smi_why[PERF_WHY_LEN];    /* when !smi: "unavailable: <reason>" */
	char freq_why[PERF_WHY_LEN];   /* when !freq */
	bool cycles;                   /* !freq: cycles and ref-cycles opened on a trial instead */
	char clock_why[3 * PERF_WHY_LEN]; /* when neither: "unavailable: no cycle counters: ..." */
};

/* One thread's msr events, one group (up to smi, aperf, mperf), and its
 * cycles and ref-cycles, another (a group holds one hardware PMU's events). */
struct perfnoise_group {
	int fd[3];
	uint32_t n;
	int8_t i_smi, i_aperf, i_mperf; /* member index, -1 when not counted */
	int cyc_fd[2];                  /* cycles (the leader), ref-cycles; -1 when not counted */
};

/* Looks the events up in sysfs and opens them once on the calling thread. */
void perfnoise_detect(struct perfnoise_caps *c);

/* Opens the thread's group (pid 0, cpu -1): 0, or -errno with nothing open. */
int perfnoise_open(const struct perfnoise_caps *c, struct perfnoise_group *g);

/* Reads the group into s->smi, s->aperf, s->mperf (cycles and ref-cycles
 * stand in for APERF and MPERF); false when it could not. */
bool perfnoise_sample(const struct perfnoise_group *g, struct noise_sample *s);

/* The repetition's noise from two samples, as noise_delta judges it (an SMI
 * flags it; the frequency tsc_hz * dAPERF / dMPERF is judged against the
 * result's first repetition by reps.c): TSC, and the sources g counts. */
void perfnoise_delta(const struct perfnoise_group *g, const struct noise_sample *before,
		     const struct noise_sample *after, uint64_t tsc_hz, struct noise_rep *out);

/* An empty group (nothing open), and closing one: every fd it holds, then empty. */
void perfnoise_init(struct perfnoise_group *g);
void perfnoise_close(struct perfnoise_group *g);

#endif
