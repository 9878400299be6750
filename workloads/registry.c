/* registry.c - the table of workloads; a new workload adds one line here. */
#include "workload.h"

void selftest_run(const struct wl_ctx *ctx);
void counter_run(const struct wl_ctx *ctx);
void locality_run(const struct wl_ctx *ctx);
void first_touch_run(const struct wl_ctx *ctx);
void flush_run(const struct wl_ctx *ctx);

const struct workload wl_all[] = {
	{ "selftest", "every CPU increments its own padded slot: proves the workload API", selftest_run },
	{ "counter", "false sharing: per-CPU counters packed, padded, behind an array header, or shared", counter_run },
	{ "locality", "interleaved vs blocked summing, shared-slot vs private accumulators, L2 to DRAM sizes", locality_run },
	{ "first-touch", "demand-zero page faults: the seed's warm-up cases, the cost of one fault, page sizes, NUMA", first_touch_run },
	{ "flush", "how cold is cold: WBINVD, per-domain WBINVD, the seeds' eviction reads, CLFLUSH, none", flush_run },
};
const unsigned wl_count = sizeof(wl_all) / sizeof(wl_all[0]);
