/* workload.h - what a workload is, and what the kernel hands it.
 *
 * Layer 9: workloads. The experiments, written once for both platforms
 * against the runtime and the platform interface (kernel/run/platform.h).
 * Includes every kernel layer up to run; only start includes it. */
#ifndef QB_WORKLOADS_WORKLOAD_H
#define QB_WORKLOADS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "flushcheck.h"
#include "plan.h"
#include "pmu.h"
#include "run.h"
#include "topo.h"

/* The run's settings and the machine, as a workload sees them. */
struct wl_ctx {
	bool quick;                    /* profile=quick: seconds under QEMU TCG */
	uint32_t reps;                 /* timed repetitions (after one untimed warm-up) */
	bool flush;                    /* flush=wbinvd: WBINVD on every participant before each rep */
	uint64_t selftest_iters;       /* 0: profile default */
	uint64_t iters;                /* counter increments per thread; 0: profile default */
	unsigned selftest_fault;       /* debug: 1/2 a page fault on the BSP / an AP, 3 an AP that hangs */
	uint64_t timeout_ms;           /* bound for each run_on */
	uint32_t noise_attr_ns;        /* noise: gaps this long or longer are attributed (noise_attr_ns=) */
	const struct cpuset *online;   /* the CPUs to use, BSP first (cpus= applied) */
	const struct topo *topo;       /* topology, indexed by topo number */
	const uint32_t *cpu_of_topo;   /* topo number -> dense CPU number */
	const struct cpuid_snap *bsp_cpuid; /* the BSP's CPUID, for optional instructions */
	uint32_t nodes;                /* NUMA nodes from the SRAT (1 without one) */
	bool sp_memory;                /* sp_memory=on: specific-purpose memory is measured too */
	uint32_t fail;                 /* fail= (debug): allocations made to fail (kernel/run/options.h enum opt_fail) */
	/* What the platform can do. The kernel can do everything; the Linux twin
	 * (tools/twin) cannot, and a workload reports what it skips and why. */
	const char *platform;          /* "bare-metal" or "linux" */
	bool has_wbinvd;               /* the platform's own flush is WBINVD (else an eviction read from every CPU) */
	bool has_fault_internals;      /* page-fault handler timings, prezeroed pools, TLB flushes on demand */
	/* The plan (workloads/sequence.h): plan() adds this workload's
	 * configurations with their calibrated costs, run() walks them. */
	struct plan *plan;
	uint16_t index;                /* this workload's index in wl_all: its items in the plan */
};

struct workload {
	const char *name;              /* as in workloads= */
	const char *summary;           /* one line for the console */
	/* Add every configuration to ctx->plan, in the order run() will walk
	 * them, each with the cost of one unit measured by a short calibration. */
	void (*plan)(const struct wl_ctx *ctx);
	/* Run the configurations as planned (units, repetitions, skips). */
	void (*run)(const struct wl_ctx *ctx);
	enum pmu_goal counters;        /* what the performance counters measure during its runs */
	bool measures_faults;          /* its timed regions fault by design: faults are not noise (reps_faults_measured) */
};

/* How the run empties caches before a repetition, for the text: the
 * platform's own flush ("wbinvd", or "eviction-read" on Linux), or after the
 * flush check found it ineffective "clflush+eviction-read"
 * (kernel/run/flushcheck.h); a result's params say it with the verdict
 * (flushcheck_params). */
static inline const char *wl_flush_method(const struct wl_ctx *ctx)
{
	(void)ctx;
	return flushcheck_run_flush();
}

/* The flush= setting as applied: the method, or "none". */
static inline const char *wl_flush_name(const struct wl_ctx *ctx)
{
	return ctx->flush ? wl_flush_method(ctx) : "none";
}

/* Every workload, in the default order. */
extern const struct workload wl_all[];
extern const unsigned wl_count;

#endif
