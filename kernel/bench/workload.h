/* workload.h - the interface between the framework and a workload: a workload declares (its kinds of configuration, one plan()), the sequence drives (it walks the plan, keeps the budget, writes the plan fields and the skipped, short, absent and budget-cut marks).
 *
 * Layer 9: bench. The framework that runs the workloads: the sequence
 * (sequence.h), its reports (seq_report.h) and the wl_* services below.
 * Below the workloads (layer 10), which it never names: kernel/start and the
 * Linux twin hand it the table (seq_go). docs/internals.md "Adding a
 * workload" shows the whole contract, with the selftest workload as the
 * example. */
#ifndef QB_BENCH_WORKLOAD_H
#define QB_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "flushcheck.h"
#include "plan.h"
#include "pmu.h"
#include "record.h"
#include "run.h"
#include "topo.h"

/* The run's settings and the machine, as a workload sees them. Read only:
 * nothing passes from plan() to a kind's run() but the configuration. */
struct wl_ctx {
	bool quick;                    /* profile=quick: seconds under QEMU TCG */
	uint32_t reps;                 /* timed repetitions (after one untimed warm-up) */
	bool flush;                    /* flush=wbinvd: the platform's flush on every participant before each rep */
	uint64_t selftest_iters;       /* 0: profile default */
	uint64_t iters;                /* counter increments per thread; 0: profile default */
	unsigned selftest_fault;       /* debug: 1/2 a page fault on the BSP / an AP, 3 an AP that hangs */
	uint32_t noise_attr_ns;        /* noise: gaps this long or longer are attributed (noise_attr_ns=) */
	uint32_t fail;                 /* fail= (debug): allocations made to fail (kernel/run/options.h enum opt_fail) */
	const struct cpuset *online;   /* the CPUs to use, BSP first (cpus= applied) */
	const struct topo *topo;       /* topology, indexed by topo number */
	const uint32_t *cpu_of_topo;   /* topo number -> dense CPU number */
	const struct cpuid_snap *bsp_cpuid; /* the BSP's CPUID, for optional instructions */
	uint32_t nodes;                /* NUMA nodes from the SRAT (1 without one) */
	bool sp_memory;                /* sp_memory=on: specific-purpose memory is measured too */
	/* What the platform can do. The kernel can do everything; the Linux twin
	 * (tools/twin) cannot, and a workload declares what it cannot measure
	 * here as absent configurations (wl_absent), with the reason. */
	const char *platform;          /* "bare-metal" or "linux" */
	bool has_wbinvd;               /* the platform's own flush is WBINVD (else an eviction read from every CPU) */
	bool has_fault_internals;      /* page-fault handler timings, prezeroed pools, TLB flushes on demand */
};

/* Where the budget may stop a configuration. */
enum wl_stop {
	WL_STOP_REPS,                  /* between repetitions: an untimed warm-up, then wl_reps() timed ones */
	WL_STOP_STEPS,                 /* between the steps of its one pass (a matrix's pairs) */
	WL_STOP_ONCE,                  /* nowhere: started only when its planned time fits what is left */
};

/* What went wrong in a measurement, for the result's check (never a string prefix). */
enum wl_err {
	WL_OK,
	WL_ERR_FAIL,                   /* wrong answer, lost CPU, failed run: "fail" */
	WL_ERR_OVERRUN,                /* a run passed its bound (wl_bound_ms): "overrun", or the budget's cut */
};

/* A workload's own typed description of one configuration, kept by the
 * framework beside the plan item and handed back to the kind's run: each
 * workload defines a struct of at most WL_CFG_OWN_BYTES and reads it with
 * WL_OWN (its size checked at compile time). */
#define WL_CFG_OWN_BYTES 48
struct wl_cfg {
	char name[PLAN_NAME_LEN];      /* "packed 4 threads compact", for the plan */
	const char *variant;           /* its result's variant (NULL: the kind's variants; set in a kind with
					  several, one of them alone, as a variant a machine lacks) */
	union {
		uint64_t align;
		unsigned char bytes[WL_CFG_OWN_BYTES];
	} own;
};
#define WL_OWN(cfg, type) \
	((void)sizeof(char[sizeof(type) <= WL_CFG_OWN_BYTES ? 1 : -1]), (type *)(void *)(cfg)->own.bytes)
#define WL_OWN_CONST(cfg, type) \
	((void)sizeof(char[sizeof(type) <= WL_CFG_OWN_BYTES ? 1 : -1]), (const type *)(const void *)(cfg)->own.bytes)

/* What calibration says of a configuration: the plan item's first block. */
struct wl_cost {
	uint8_t group;                 /* fair-share group: index into workload.groups */
	bool essential;                /* in the workload's least form */
	uint64_t want_units, min_units;
	uint32_t want_reps;            /* WL_STOP_REPS only; 0 for the others */
	double unit_s, unit_spread_s, rep_fixed_s, once_s;
	uint32_t out_bytes;            /* printed besides its results' records (WL_RESULT_BYTES each, added by the framework) */
	uint32_t out_per_unit;
};

/* What one result record and its text line cost to print: the one guess,
 * the framework adds it per result variant a configuration writes. */
#define WL_RESULT_BYTES 1500
#define WL_SAMPLE_BYTES 11           /* one number of a samples list (up to 10 digits and a comma) */

struct wl_item;                        /* a configuration under way, or a calibration run (the framework's) */
struct wl_plan;                        /* the plan being made (the framework's) */

/* One kind of configuration: one run function. */
struct wl_kind {
	const char *name;              /* "sweep", "demand-zero", "pair" */
	const char *measures;          /* one line: what a configuration of it measures */
	enum plan_unit unit;           /* what wl_units() counts */
	enum wl_stop stop;
	const char *const *variants;   /* the results one configuration writes, NULL-ended (NULL: cfg.variant alone;
					  WL_NO_RESULT: none, e.g. a reference or a matrix record) */
	bool all_cpus;                 /* its results name every online CPU (a skipped one too); else none */
	void (*run)(struct wl_item *c);                          /* measure one configuration as planned */
	void (*params)(const struct wl_ctx *x, const struct wl_cfg *cfg, struct rec *r);
						       /* a skipped or absent result's params (optional) */
	bool (*setup)(const struct wl_ctx *x, const char **why); /* before its first that runs (optional) */
	void (*teardown)(const struct wl_ctx *x);                /* after its last, when set up (optional) */
	void (*skipped)(const struct wl_ctx *x, const struct wl_cfg *cfg, const char *why);
						       /* after a configuration of it is written skipped (optional) */
};
extern const char *const WL_NO_RESULT[];

#define WL_MAX_KINDS 8                 /* kinds in one workload's table at most */

/* A workload: one table, one plan(). */
struct workload {
	const char *name;              /* as in workloads= */
	const char *summary;           /* one line for the console */
	enum pmu_goal counters;        /* what the performance counters measure in its runs */
	bool measures_faults;          /* its timed regions fault by design: faults are not noise */
	const char *const *groups;     /* fair-share group names ("copies", "4k-pages", ...), NULL-ended */
	const struct wl_kind *kinds;   /* indexed by wl_add's kind */
	unsigned n_kinds;
	/* Calibrate and list every configuration, in run order, each with its
	 * cost (wl_add), and those this machine lacks with the reason (wl_absent). */
	void (*plan)(const struct wl_ctx *x, struct wl_plan *p);
	bool (*setup)(const struct wl_ctx *x, const char **why); /* once, before its first that runs (optional) */
	void (*teardown)(const struct wl_ctx *x);                /* after its last, when set up (optional) */
	void (*finish)(const struct wl_ctx *x);                  /* its summary line, last (optional) */
};

/* How the run empties caches before a repetition, for the text: the
 * platform's own flush ("wbinvd", or "eviction-read" on Linux), or after the
 * flush check found it ineffective "clflush+eviction-read"
 * (kernel/run/flushcheck.h); a result's params say it with the verdict
 * (flushcheck_params). */
static inline const char *wl_flush_method(const struct wl_ctx *x)
{
	(void)x;
	return flushcheck_run_flush();
}

/* The flush= setting as applied: the method, or "none". */
static inline const char *wl_flush_name(const struct wl_ctx *x)
{
	return x->flush ? wl_flush_method(x) : "none";
}

/* ---- Planning, inside plan(): order of calls = order of the run ---------------- */
void wl_add(struct wl_plan *p, unsigned kind, const struct wl_cfg *cfg, const struct wl_cost *cost);
void wl_absent(struct wl_plan *p, unsigned kind, const struct wl_cfg *cfg, const char *why);
void wl_set_setup(struct wl_plan *p, double seconds);   /* the workload's set-up, once, at pace 1 */
void wl_group(struct wl_plan *p, uint8_t group, const char *name); /* name a group decided at plan time (else .groups) */
struct plan_item *wl_planned(struct wl_plan *p, uint32_t *n); /* its items so far (corrections after the fact) */
const struct wl_cfg *wl_planned_cfg(struct wl_plan *p, uint32_t k); /* the configuration of its k-th item */

/* Calibration's one growth loop: run(arg, units, &loop_s) does one
 * calibration run of `units` (false: it failed) and gives its figure in
 * seconds; units grow from `units` until a run's figure lasts
 * WL_CALIB_TARGET_S (an emulator time-slices its CPUs, and a shorter run says
 * little of a long one) or reach max, at most WL_CALIB_ROUNDS runs. Returns
 * the last run's units (0: a run failed), its figure in *loop_s; what else
 * the caller needs of that run (its wall time, its spread) is the caller's. */
#define WL_CALIB_TARGET_S 0.01
#define WL_CALIB_ROUNDS 4            /* calibration runs at most, each longer than the last */
#define WL_CALIB_GROW_MARGIN 1.25    /* aim a little past the target */
#define WL_CALIB_GROW_MAX 256.0
#define WL_CALIB_TIMEOUT_MS 10000    /* bound for a calibration run, whose cost is not yet known */
typedef bool (*wl_calib_fn)(void *arg, uint64_t units, double *loop_s);
uint64_t wl_calibrate(uint64_t units, uint64_t max, wl_calib_fn run, void *arg, double *loop_s);

/* ---- Measuring, inside a kind's run() ------------------------------------------ */
const struct wl_ctx *wl_ctx(const struct wl_item *c);
const struct wl_cfg *wl_cfg(const struct wl_item *c);
uint64_t wl_units(const struct wl_item *c);  /* per repetition (steps for WL_STOP_STEPS), as decided */
uint32_t wl_reps(const struct wl_item *c);   /* timed repetitions, as decided */
bool wl_rep(struct wl_item *c);              /* before the warm-up and each repetition: one more fits */
bool wl_timed(const struct wl_item *c);      /* the repetition begun is timed (not the warm-up) */
bool wl_step(struct wl_item *c);             /* WL_STOP_STEPS: before each step */
uint64_t wl_bound_ms(struct wl_item *c);     /* the run_on bound for what comes next */
struct wl_item *wl_inner(struct wl_item *c, const struct wl_ctx *x, uint64_t units, uint32_t reps);
	/* repetitions inside a step (c a STEPS item), or a calibration run (c NULL): same code, no deadline */
struct rec *wl_result_open(struct wl_item *c, const char *variant, const struct cpuset *set);
void wl_result_close(struct wl_item *c, struct rec *r, enum wl_err err, const char *why);
	/* + planned_s, measured_s, reps_planned/kept, stopped; ok -> short/skipped; overrun -> budget cut */
void wl_result_short(struct wl_item *c, struct rec *r, const char *why); /* a workload's own short rule */
void wl_result_skip(struct wl_item *c, const char *variant, const char *why); /* cannot measure it now */
void wl_fields(struct wl_item *c, struct rec *r);  /* the plan's fields into another record (a matrix) */
void wl_record_close(struct wl_item *c, struct rec *r, enum wl_err err, const char *why);
	/* close and emit a record that is not a result (a matrix) with its check: ok, short (the deadline
	 * stopped it: its reason), fail or overrun (why) */
void wl_final_line(const char *line);        /* the run's last text line (the noise workload's) */
#endif
