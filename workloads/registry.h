/* registry.h - every workload of the run, each defined in its own file as a table (kernel/bench/workload.h).
 *
 * Layer 10: workloads. The experiments, written once for both platforms
 * against the framework (kernel/bench) and the runtime (kernel/run/run.h):
 * each declares its kinds of configuration and one plan(); the sequence
 * walks them. Start (kernel/start, tools/twin/main.c) includes this header
 * to hand the table to the sequence; each workload's file includes it so
 * that the compiler checks its definition against the declaration here.
 * Adding a workload: its file, a line here and a line in registry.c
 * (docs/internals.md). */
#ifndef QB_WORKLOADS_REGISTRY_H
#define QB_WORKLOADS_REGISTRY_H

#include "workload.h"

extern const struct workload wl_selftest;
extern const struct workload wl_counter;
extern const struct workload wl_locality;
extern const struct workload wl_first_touch;
extern const struct workload wl_flush;
extern const struct workload wl_noise;

/* Every workload, in the default order (workloads= names them). */
extern const struct workload *const wl_all[];
extern const unsigned wl_count;

#endif
