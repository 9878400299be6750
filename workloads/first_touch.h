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

/* A result record for first-touch with the common params (params.bytes left
 * out when bytes is 0: a variant for which a byte count means nothing), and
 * the flush it got (flushcheck_params: the run's flush and suffix, or "none"
 * when !flushed; with its verdict). Close it with report_result_close. */
struct rec *ft_result_open(const struct wl_ctx *ctx, const char *variant, const struct cpuset *set,
			   uint64_t bytes, bool flushed, const char *suffix);

/* A skipped result for variant with the reason. */
void ft_skip(const char *variant, const char *why);

/* The BSP alone, where first-touch measures all but its NUMA part. */
const struct cpuset *ft_bsp(const struct wl_ctx *ctx);

/* Whether the BSP has CLZERO (AMD). */
bool ft_has_clzero(const struct wl_ctx *ctx);

/* The next item of this workload in the plan, begun. *why is NULL when it
 * is to run, else why not: skipped by the plan, not in it (it was full), or
 * its planned time does not fit what the run has left (a first-touch step
 * cannot stop halfway, so it is not started). */
const struct plan_item *ft_take(const struct wl_ctx *ctx, uint32_t *cursor, const char **why);

/* One result from per-page (or per-access) samples, measured over one span
 * on the BSP: their statistics (the figure: all of them, noisy when the span
 * was flagged), the measures of kind (first_touch_measures.h), up to 256
 * samples, the span's noise, and what means something for the kind: a fault
 * kind has params.bytes, page_bytes, ticks_per_fault and ticks_per_byte;
 * zeroing and TLB kinds page_bytes and ticks_per_byte; an access none. With
 * r, the region's fault counts. Check ok or fail (with fail as the reason
 * only when it failed; a figure past a physical limit fails it too). Prints
 * the figure's line and returns its primary measure (negative: none). */
double ft_report_pages(const struct wl_ctx *ctx, const char *variant, enum ft_kind kind, const uint64_t *per,
		       uint64_t n, uint64_t page, const struct demand_region *r, bool ok, const char *fail,
		       const struct instr_thread *span);

/* page-fault-entry (ring 0 only), demand-zero-4k and demand-zero-2m: a
 * first write into each page of a fresh region, timed. Returns
 * demand-zero-4k's ns per page (negative: not measured in ns). */
double ft_fault_costs(const struct wl_ctx *ctx, uint32_t *cursor);

/* zero-rep-stosb, zero-nt, zero-clzero: up to n pages zeroed one by one, each way. */
void ft_zeroing_costs(const struct wl_ctx *ctx, uint32_t *cursor, uint64_t n);

/* tlb-miss, tlb-miss-cached (pages of them) and hot-access on the BSP (bsp). */
void ft_tlb_costs(const struct wl_ctx *ctx, const struct cpuset *bsp, uint64_t pages);

/* The NUMA half: placement by one CPU against each CPU, and the node x node matrices. */
void first_touch_numa(const struct wl_ctx *ctx);

#endif
