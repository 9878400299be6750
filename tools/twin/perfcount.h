/* perfcount.h - the kernel's counter plans (kernel/measure/pmu.c) counted through perf: each event opened as the raw event the kernel would program (Linux's x86 raw formats: Intel event | umask << 8; AMD core event[7:0] | umask << 8 | event[11:8] << 32; the amd_l3 PMU's event | umask << 8), one group per thread, read around each repetition. */
#ifndef QB_TWIN_PERFCOUNT_H
#define QB_TWIN_PERFCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include "perf.h"
#include "pmu.h"

/* One perf group: the events of one scope of a plan. */
struct perfcount_group {
	int fd[PMU_MAX_EVENTS];      /* fd[0] leads; -1 where none */
	uint8_t ev[PMU_MAX_EVENTS];  /* each member's index in the plan */
	uint32_t n;                  /* members open (0: none) */
};

/* What is counted for one goal: the plan's events that perf accepted. */
struct perfcount_choice {
	struct pmu_plan plan;        /* the events counted, in record order (n == 0: none) */
	bool user_only;              /* perf keeps ring 0 out: exclude_kernel */
	bool has_l3;                 /* plan holds L3 events (the amd_l3 PMU) */
	uint32_t l3_type;            /* the amd_l3 PMU's perf type */
	char why[PERF_WHY_LEN];      /* plan.n == 0: "unavailable: <reason>" */
	char l3_why[PERF_WHY_LEN];   /* the plan's L3 events were left out: why; "" otherwise */
	char note[3 * PERF_WHY_LEN]; /* the plan's note, ring 3 only, events left out and why; "" if none */
};

/* The perf config of a planned event, as the kernel programs it. */
uint64_t perfcount_config(const struct pmu_caps *c, const struct pmu_event *e);

/* An empty group (no fd). */
void perfcount_init(struct perfcount_group *g);

/* Opens every event of plan p in scope as one group (PERF_FORMAT_GROUP,
 * the leader pinned): type is PERF_TYPE_RAW for core events or the amd_l3
 * PMU's type; pid/cpu as perf_event_open's (0, -1: the calling thread; -1,
 * cpu: a CPU's L3). Returns 0, or -errno of the refusal with nothing left
 * open. A plan with no event in scope opens nothing and returns 0. */
int perfcount_open(struct perfcount_group *g, const struct pmu_caps *c, const struct pmu_plan *p,
		   enum pmu_scope scope, uint32_t type, int pid, int cpu, bool user_only);

/* Reads the group at once into vals[plan index] of its members: 0, or
 * -errno; -ENODATA when perf could not schedule the group. */
int perfcount_read(const struct perfcount_group *g, uint64_t *vals);

/* out[plan index] = after - before for each member (others untouched). */
void perfcount_delta(const struct perfcount_group *g, const uint64_t *before, const uint64_t *after, uint64_t *out);

void perfcount_close(struct perfcount_group *g);

/* Chooses what to count for goal g on caps c: pmu_plan, then a trial of its
 * core events as a group on the calling thread (rings 0 and 3 as the kernel
 * counts; ring 3 alone when perf_event_paranoid keeps the kernel out), and
 * of its L3 events on CPU l3_cpu through the amd_l3 PMU (l3_cpu < 0: none
 * to try). What perf refused is left out of out->plan and said in
 * out->note, or in out->why when nothing is left. */
void perfcount_choose(const struct pmu_caps *c, enum pmu_goal g, int l3_cpu, struct perfcount_choice *out);

#endif
