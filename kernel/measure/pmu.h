/* pmu.h - which core performance counters a CPU has, decided from CPUID alone,
 * and which events to program for a measurement goal (Intel SDM vol. 3B
 * ch. 20 "Performance Monitoring"; AMD APM vol. 2 §13.2; AMD PPRs for
 * families 17h/19h). Pure: no MSR is touched here except through the
 * caller's rd/wr functions. */
#ifndef QB_KERNEL_PMU_H
#define QB_KERNEL_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuid_snap.h"

#define PMU_MAX_EVENTS 8	/* events in one plan */
#define PMU_DESC_LEN 48		/* pmu_describe() text, NUL included */

enum pmu_kind {
	PMU_NONE,		/* no usable counters (absent, or under a hypervisor) */
	PMU_INTEL_ARCH,		/* CPUID.0AH architectural PMU, version >= 1 */
	PMU_AMD_LEGACY,		/* 4 counters at C001_0000 (K7 .. family 10h) */
	PMU_AMD_CORE_EXT,	/* PerfCtrExtCore: counters at C001_0200 */
};

/* What the counters are, from CPUID only. */
struct pmu_caps {
	enum pmu_kind kind;
	enum cpu_vendor vendor;
	uint32_t family, model;	/* DisplayFamily / DisplayModel */
	uint8_t version;	/* Intel CPUID.0AH:EAX[7:0]; AMD 2 with PerfMonV2, else 1 */
	uint8_t n_gp;		/* general-purpose counters per logical CPU */
	uint8_t gp_width;	/* bits in a GP counter */
	uint8_t n_fixed;	/* Intel fixed counters (highest usable index + 1) */
	uint8_t fixed_width;	/* bits in a fixed counter */
	uint32_t fixed_mask;	/* bit i: fixed counter i exists */
	uint8_t arch_len;	/* Intel CPUID.0AH:EAX[31:24]: valid bits of arch_unavail */
	uint32_t arch_unavail;	/* Intel CPUID.0AH:EBX: bit i set = event i absent */
	uint8_t n_l3;		/* AMD L3 counters (PerfCtrExtLLC), 0 if none */
	bool global_ctrl;	/* Intel v2+ PERF_GLOBAL_CTRL or AMD PerfCntrGlobalCtl */
	const char *why;	/* for PMU_NONE: the reason, e.g. "hypervisor" */
	char desc[PMU_DESC_LEN]; /* filled by pmu_detect(), see pmu_describe() */
};

/* Measurement goals a workload asks for. */
enum pmu_goal {
	PMU_GOAL_CYCLES_INSNS,	/* cycles and instructions */
	PMU_GOAL_LLC,		/* last-level cache references and misses */
	PMU_GOAL_COHERENCE,	/* lines moved between cores' caches */
	PMU_GOAL_L1L2,		/* L1D and L2 misses */
	PMU_GOAL_TLB,		/* data TLB misses */
	PMU_GOAL_COUNT
};

/* Who a counter counts for: the calling thread, or every core sharing an L3
 * (AMD L3 counters are one set per L3: program them from one CPU of it). */
enum pmu_scope { PMU_SCOPE_THREAD, PMU_SCOPE_L3 };

/* One event: its control bits and its counter. */
struct pmu_event {
	const char *name;	/* "cycles", "llc_misses", "l1d_misses", ... */
	uint32_t sel_msr;	/* PERFEVTSEL / PERF_CTL / FIXED_CTR_CTRL / ChL3PmcCfg */
	uint64_t sel_mask;	/* bits of sel_msr this event owns (all for a GP select) */
	uint64_t sel_value;	/* value of those bits that counts at CPL 0 and 3 */
	uint32_t ctr_msr;	/* the counter: zeroed before, read after */
	uint8_t width;		/* counter bits: deltas are taken modulo 2^width */
	uint8_t scope;		/* enum pmu_scope */
	bool fixed;		/* an Intel fixed-function counter */
	uint16_t event;		/* the event select as the manuals name it (AMD: 12 bits) */
	uint8_t umask;		/* its unit mask */
};

/* The events for one goal and the global enable that starts them. */
struct pmu_plan {
	uint32_t n;		/* events planned, 0 when nothing fits */
	struct pmu_event ev[PMU_MAX_EVENTS];
	uint32_t global_msr;	/* 0, or PERF_GLOBAL_CTRL / PerfCntrGlobalCtl */
	uint64_t global_value;	/* enable bits for exactly the planned counters */
	const char *note;	/* substitutions made ("coherence via llc_misses"), or NULL */
	const char *why;	/* when n == 0: why nothing fits */
};

/* Reads and writes one MSR on the calling CPU (the caller's hardware glue). */
typedef uint64_t (*pmu_rdmsr_fn)(uint32_t msr);
typedef void (*pmu_wrmsr_fn)(uint32_t msr, uint64_t value);

/*
 * Decides from CPUID which counters exist: Intel leaf 0xA (version, GP and
 * fixed counters, unavailable events), AMD 0x80000001 ECX PerfCtrExtCore /
 * PerfCtrExtLLC and 0x80000022 PerfMonV2. Under a hypervisor (CPUID.1:ECX[31])
 * and without leaf 0xA the result is PMU_NONE with a reason in why.
 */
struct pmu_caps pmu_detect(const struct cpuid_snap *s);

/*
 * As pmu_detect, for a program under an operating system that decides
 * itself whether counters exist (Linux's perf_event_open answers that): the
 * hypervisor bit gates nothing, so the CPU's vendor and family choose the
 * events, and the caller tries them and reports the OS's answer. The kernel
 * uses pmu_detect.
 */
struct pmu_caps pmu_detect_os(const struct cpuid_snap *s);

/* Returns a one-line description for the records, such as "intel arch v4,
 * 4 gp x 48 bit, 3 fixed", "amd core ext, 6 gp, l3 6" or "none". */
const char *pmu_describe(const struct pmu_caps *c);

/* Returns the goal's short name ("llc", "coherence", ...). */
const char *pmu_goal_name(enum pmu_goal g);

/*
 * Fills *out with up to PMU_MAX_EVENTS events for goal g that this PMU has,
 * each counting in ring 0 and ring 3, and returns how many; 0 with out->why
 * when none fits. Counter indices start at 0 in event order.
 */
int pmu_plan(const struct pmu_caps *c, enum pmu_goal g, struct pmu_plan *out);

/*
 * Programs and starts the plan on the calling CPU: global enable off, each
 * selected counter zeroed and its select written, then the global enable.
 * L3-scope events are programmed only when with_l3 is true (one CPU per L3).
 */
void pmu_start(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd,
	       pmu_wrmsr_fn wr);

/* Reads every planned counter into vals[0 .. p->n - 1] (no writes). An
 * L3-scope event is read only when with_l3 is true and is 0 otherwise, so
 * that summing over a run's threads counts each L3 once. */
void pmu_read(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd, uint64_t *vals);

/*
 * Chooses which CPUs of a run program, read and stop the L3 counters: the
 * first CPU of the run on each L3. l3_of[k] is the L3 (0 .. n_l3 - 1) of the
 * run's k-th CPU, or an id >= n_l3 when that CPU has none; seen is scratch
 * for n_l3 flags. counts[k] is set for those first CPUs only, so an L3 is
 * counted exactly once, and never by a CPU outside the run.
 */
void pmu_l3_counting(const uint32_t *l3_of, uint32_t n, bool *seen, uint32_t n_l3, bool *counts);

/* Stops the plan: global enable off and the plan's select bits cleared. */
void pmu_stop(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd,
	      pmu_wrmsr_fn wr);

/*
 * Before taking the counters over (as Linux's check_hw_exists): returns the
 * first select MSR of the plan whose enable bits are already set, that is a
 * counter the firmware (or a hypervisor, or a BMC agent) is using, or 0.
 * L3-scope selects are checked only when with_l3 is true.
 */
uint32_t pmu_in_use(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd);

/*
 * Writes a test value into the plan's first core counter, reads it back and
 * restores the old value; false when the counter does not hold what was
 * written (an emulated PMU that ignores writes). A plan without a core
 * counter passes.
 */
bool pmu_counter_holds(const struct pmu_plan *p, pmu_rdmsr_fn rd, pmu_wrmsr_fn wr);

/* Returns after - before modulo 2^e->width (a counter that wrapped once). */
uint64_t pmu_delta(const struct pmu_event *e, uint64_t before, uint64_t after);

#endif
