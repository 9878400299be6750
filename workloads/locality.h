/* locality.h - shared parts of the locality workload (locality.c: the run and its records; locality_plan.c: the sizes and the plan). */
#ifndef QB_WORKLOADS_LOCALITY_H
#define QB_WORKLOADS_LOCALITY_H

#include <stdbool.h>
#include <stdint.h>
#include "run.h"
#include "sizes.h"
#include "workload.h"

enum loc_variant { LOC_INTERLEAVED, LOC_BLOCKED_STRIDED, LOC_BLOCKED, LOC_N_VARIANTS };
enum loc_acc { LOC_SHARED_SLOT, LOC_PRIVATE, LOC_N_ACCS };
/* The sizes, each chosen for a role: the gist's 64 Ki ints (for the L2), half the LLC, past it (DRAM). */
enum loc_size { LOC_L2, LOC_LLC, LOC_DRAM, LOC_N_SIZES };
/* Where a pass's data starts. cold: in memory (the slots and a cache-sized
 * array CLFLUSHed, then the run's flush); resident: read just before by the
 * same threads (the untimed warm-up or the repetition before), nothing
 * flushed, as in the gist's 64 Ki-int run. */
enum loc_start { LOC_COLD, LOC_RESIDENT, LOC_N_STARTS };

#define LOC_SAME_PLACEMENTS 0x100u     /* a plan item's placement: scatter is the same CPUs */

/* A plan item's param[3]: variant, accumulator and start. */
static inline uint32_t loc_param3(enum loc_variant v, enum loc_acc ac, enum loc_start st)
{
	return (uint32_t)v | (uint32_t)ac << 8 | (uint32_t)st << 16;
}

/* One pass of every thread: what they sum and where each puts its total. */
struct loc_job {
	const uint32_t *a;
	uint64_t n;
	enum loc_variant variant;
	enum loc_acc acc;
	enum loc_start start;
	uint32_t *slots;                          /* s[P]: packed 32-bit slots, as the gist's int s[NUM_THREADS] */
	uint64_t priv[QB_MAX_CPUS][8];            /* private totals, one line each */
	uint64_t ticks[QB_MAX_CPUS];
};

/* The sizes, decided once at planning and kept for the run. */
struct loc_sizes {
	uint64_t bytes[LOC_N_SIZES];
	char name[LOC_N_SIZES][SIZE_NAME_LEN];    /* the role's name where it holds, else the size */
	enum size_role role[LOC_N_SIZES];
	uint64_t dram_min;
	uint64_t alloc;                           /* bytes allocated: the largest size */
	uint64_t held;                            /* 4 KiB pages the last loc_alloc_array took */
	double alloc_s;                           /* what allocating it took (the twin touches every page) */
	bool have_dram;
};

extern struct loc_job loc_job;
extern struct loc_sizes loc_sizes;
extern struct cpuset loc_set;
extern const char *const loc_variant_names[LOC_N_VARIANTS];
extern const char *const loc_acc_names[LOC_N_ACCS];
extern const char *const loc_start_names[LOC_N_STARTS];

/* The starts a size gets: both for the cache sizes, cold alone for DRAM;
 * with flush=none (nothing can start cold) resident alone, DRAM included. */
bool loc_start_planned(const struct wl_ctx *ctx, enum loc_size sz, enum loc_start st);

/* Workload memory for the array on node if it has room, in whole 2 MiB pages
 * where there are some, else 4 KiB pages (loc_sizes.held counts them). */
uint64_t loc_alloc_array(uint64_t bytes, int node);

/* One pass of loc_job on loc_set as its start asks (the slots zeroed; cold:
 * the slots and a cache-sized array CLFLUSHed, then the run's flush). */
enum run_status loc_pass(const struct wl_ctx *ctx, uint64_t timeout_ms);

#endif
