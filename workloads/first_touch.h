/* first_touch.h - shared parts of the first-touch workload (first_touch.c, first_touch_pages.c, first_touch_tlb.c, first_touch_numa.c). */
#ifndef QB_WORKLOADS_FIRST_TOUCH_H
#define QB_WORKLOADS_FIRST_TOUCH_H

#include <stdbool.h>
#include <stdint.h>
#include "first_touch_measures.h"
#include "record.h"
#include "workload.h"

#define FT_PAGE 4096ull
#define FT_LINE 64ull
#define FT_MAX_SAMPLES 4096          /* pages timed one by one at most (the full profile's) */

struct demand_region;
struct instr_thread;

/* The kinds of configuration (first_touch.c's table). */
enum ft_row { FT_COPY, FT_FAULT, FT_ZERO, FT_TLB, FT_NUMA, FT_ROWS };

/* A configuration: its kind, which of the kind (a copy case, a fault step,
 * a way of zeroing), and the size the plan priced (a copy's ints). */
struct ft_cfg {
	uint8_t row;                 /* enum ft_row */
	uint8_t which;
	uint64_t size;
};

/* A first-touch result opened with params.bytes (when not 0), its params object left open. */
struct rec *ft_params_open(struct wl_item *c, const char *variant, const struct cpuset *set, uint64_t bytes);

/* A result record for first-touch with the common params (params.bytes left
 * out when bytes is 0: a variant for which a byte count means nothing), and
 * the flush it got (flushcheck_params: the run's flush and suffix, or "none"
 * when !flushed; with its verdict). Close it with wl_result_close. */
struct rec *ft_result_open(struct wl_item *c, const char *variant, const struct cpuset *set, uint64_t bytes,
			   bool flushed, const char *suffix);

/* The BSP alone, where first-touch measures all but its NUMA part. */
const struct cpuset *ft_bsp(const struct wl_ctx *ctx);

/* Whether the BSP has CLZERO (AMD). */
bool ft_has_clzero(const struct wl_ctx *ctx);

/* One result from per-page (or per-access) samples, measured over one span
 * on the BSP: their statistics (the figure: all of them, noisy when the span
 * was flagged), the measures of kind (first_touch_measures.h), up to 256
 * samples, the span's noise, and what means something for the kind: a fault
 * kind has params.bytes, page_bytes, ticks_per_fault and ticks_per_byte;
 * zeroing and TLB kinds page_bytes and ticks_per_byte; an access none. With
 * r, the region's fault counts. Check ok or fail (with fail as the reason
 * only when it failed; a figure past a physical limit fails it too). Prints
 * the figure's line and returns its primary measure (negative: none). */
double ft_report_pages(struct wl_item *c, const char *variant, enum ft_measure kind, const uint64_t *per,
		       uint64_t n, uint64_t page, const struct demand_region *r, bool ok, const char *fail,
		       const struct instr_thread *span);

/* The fault steps (which: FT_FAULT_ENTRY page-fault-entry, ring 0 only;
 * FT_FAULT_4K demand-zero-4k; FT_FAULT_2M demand-zero-2m): a first write
 * into each page of a fresh region, timed; their names. Returns the
 * figure's ns per page (negative: not measured in ns). */
enum { FT_FAULT_ENTRY, FT_FAULT_4K, FT_FAULT_2M, FT_FAULTS };
extern const char *const ft_fault_names[FT_FAULTS];
double ft_fault_run(struct wl_item *c);

/* The ways of zeroing (FT_ZERO_STOSB, FT_ZERO_NT, FT_ZERO_CLZERO) and their
 * names; the pages they zero are the zeroing kind's (set up once for every
 * way, pages pages, fail=zeroing: none); each way zeroes up to its units. */
enum { FT_ZERO_STOSB, FT_ZERO_NT, FT_ZERO_CLZERO, FT_ZEROS };
extern const char *const ft_zero_names[FT_ZEROS];
bool ft_zero_setup(const struct wl_ctx *ctx, uint64_t pages, const char **why);
void ft_zero_teardown(const struct wl_ctx *ctx);
void ft_zero_run(struct wl_item *c);

/* tlb-miss, tlb-miss-cached (wl_units pages of them) and hot-access on the BSP. */
void ft_tlb_run(struct wl_item *c);

/* The NUMA half: placement by one CPU against each CPU, and the node x node matrices. */
void ft_numa_run(struct wl_item *c);

#endif
