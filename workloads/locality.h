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


/* Where a configuration's array lives on a machine of several nodes
 * (locality_mem.c): on its threads' one node, interleaved over their nodes,
 * or each blocked thread's part on its own node. */
enum loc_mem { LOC_MEM_NODE, LOC_MEM_INTERLEAVED, LOC_MEM_THREAD_LOCAL, LOC_N_MEMS };

/* A configuration (kernel/bench/workload.h's wl_cfg, WL_OWN): a size from
 * a start, its variant and accumulator, on threads placed compact or
 * scatter (same: both pick the same CPUs), the array thread-local; or a
 * whole size and start that is absent (whole_size: no variant, accumulator,
 * threads or placement of its own). */
struct loc_cfg {
	uint8_t size;                  /* enum loc_size */
	uint8_t start;                 /* enum loc_start */
	uint8_t variant;               /* enum loc_variant */
	uint8_t acc;                   /* enum loc_acc */
	uint8_t placement;             /* enum place_how */
	uint8_t role;                  /* enum size_role of its size */
	bool same, thread_local, whole_size;
	uint32_t threads;
	uint64_t bytes;                /* the size's bytes as planned */
	char size_name[SIZE_NAME_LEN]; /* the size's name ("l2", "2mib") */
};

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

/* The sizes: decided at planning for the plan, and again at the run's set-up for the run. */
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
extern const char *const loc_mem_names[LOC_N_MEMS];

/* The starts a size gets: both for the cache sizes, cold alone for DRAM;
 * with flush=none (nothing can start cold) resident alone, DRAM included. */
bool loc_start_planned(const struct wl_ctx *ctx, enum loc_size sz, enum loc_start st);

/* Workload memory for the array on node if it has room, in whole 2 MiB pages
 * where there are some, else 4 KiB pages (loc_sizes.held counts them). */
uint64_t loc_alloc_array(uint64_t bytes, int node);

/* One pass of loc_job on loc_set as its start asks (the slots zeroed; cold:
 * the slots and a cache-sized array CLFLUSHed, then the run's flush). */
enum run_status loc_pass(const struct wl_ctx *ctx, uint64_t timeout_ms);

/* Decide the sizes into loc_sizes and, on one node, allocate the array
 * (*phys); false without memory. On several nodes nothing is allocated:
 * each configuration's placement takes its own (locality_plan.c). */
bool loc_decide_sizes(const struct wl_ctx *ctx, uint64_t *phys);

/* ---- Memory placement (locality_mem.c) ---------------------------------- */

/* Whether the array is placed per configuration: more than one NUMA node.
 * Otherwise it is one pmm block (loc_alloc_array), as it always was. */
bool loc_mem_placed(const struct wl_ctx *ctx);

/* The placement the threads of set get: LOC_MEM_NODE when they are on one
 * node, else LOC_MEM_THREAD_LOCAL when asked, else LOC_MEM_INTERLEAVED;
 * *nodes the node mask it names (an interleave's: the threads' nodes that
 * have memory, or all of them when none has). */
enum loc_mem loc_mem_of(const struct wl_ctx *ctx, const struct cpuset *set, bool thread_local, uint64_t *nodes);

/* Point loc_job.a at an array of at least `bytes` placed as kind over nodes
 * (thread-local: for the blocks of loc_set's threads over exactly that
 * many bytes, prefaulted by each within bound_ms), every page mapped and the
 * array filled (loc_fill). Keeps the
 * array when its slot already holds it; else places it anew, *placed_s
 * the seconds that took (0 when kept). false with *why on failure. */
bool loc_mem_place(enum loc_mem kind, uint64_t nodes, uint64_t bytes, uint64_t bound_ms, double *placed_s,
		   const char **why);

/* After a configuration: read back where each page of [0, bytes) is. false
 * with *why when a page is not present (a timed pass may have faulted) or,
 * where the platform counts them, a fault landed in the region. */
bool loc_mem_read_back(const struct wl_ctx *ctx, uint64_t bytes, const char **why);

/* The last placement as a result's params.memory_placement ("node 0",
 * "interleaved", "thread-local") and, for an array in 2 MiB pages,
 * params.huge_source (kernel/mm/demand.h); nothing without one. */
void loc_mem_params(struct rec *r);

/* Its fields after params: memory_nodes, page_bytes, pages_by_node (one
 * count per node), misplaced_pages, and memory_note when pages are not
 * where the placement asks. */
void loc_mem_report(const struct wl_ctx *ctx, struct rec *r);

/* The name of a placement: "node N" (N the mask's lowest node) or the kind's. */
const char *loc_mem_text(enum loc_mem kind, uint64_t nodes);

/* The text line's end: "  interleaved 0:1 1:1" (pages per node); "" without one. */
void loc_mem_line(const struct wl_ctx *ctx, char *buf, size_t cap);

/* Give back every placed array (the end of the plan and of the run). */
void loc_mem_end(void);

/* The plan: sizes, calibration and every configuration (locality_plan.c). */
struct wl_plan;
void locality_plan(const struct wl_ctx *ctx, struct wl_plan *p);

/* The kinds of configuration (locality.c's table): a pass, and a size that is not measured at all. */
enum loc_row { LOC_PASS, LOC_ROWS };

#endif
