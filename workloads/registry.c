/* registry.c - the table of workloads; a new workload adds one line here. */
#include "workload.h"

void selftest_plan(const struct wl_ctx *ctx);
void selftest_run(const struct wl_ctx *ctx);
void counter_plan(const struct wl_ctx *ctx);
void counter_run(const struct wl_ctx *ctx);
void locality_plan(const struct wl_ctx *ctx);
void locality_run(const struct wl_ctx *ctx);
void first_touch_plan(const struct wl_ctx *ctx);
void first_touch_run(const struct wl_ctx *ctx);
void flush_plan(const struct wl_ctx *ctx);
void flush_run(const struct wl_ctx *ctx);
void noise_plan(const struct wl_ctx *ctx);
void noise_run(const struct wl_ctx *ctx);

const struct workload wl_all[] = {
	{ "selftest", "every CPU increments its own padded slot: proves the workload API", selftest_plan, selftest_run,
	  PMU_GOAL_CYCLES_INSNS, false },
	{ "counter", "false sharing: per-CPU counters packed, padded, behind an array header, or shared", counter_plan, counter_run,
	  PMU_GOAL_COHERENCE, false },
	{ "locality", "interleaved vs blocked summing, shared-slot vs private accumulators, L2 to DRAM sizes, cold and resident",
	  locality_plan, locality_run,
	  PMU_GOAL_LLC, false },
	{ "first-touch", "demand-zero page faults: unwarmed and warmed copies, the cost of one fault, page sizes, NUMA", first_touch_plan,
	  first_touch_run,
	  PMU_GOAL_TLB, true },
	{ "flush", "how cold is cold: WBINVD, per-domain WBINVD, eviction reads of 64 MiB and of the LLC, CLFLUSH, none", flush_plan, flush_run,
	  PMU_GOAL_LLC, false },
	{ "noise", "every CPU spins reading the TSC: each gap, the time lost, the longest, what caused it", noise_plan, noise_run,
	  PMU_GOAL_COUNT, false },
};
const unsigned wl_count = sizeof(wl_all) / sizeof(wl_all[0]);
