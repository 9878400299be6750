/* first_touch.h - shared parts of the first-touch workload (first_touch.c, first_touch_numa.c). */
#ifndef QB_WORKLOADS_FIRST_TOUCH_H
#define QB_WORKLOADS_FIRST_TOUCH_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "workload.h"

#define FT_PAGE 4096ull
#define FT_LINE 64ull
#define FT_MAX_SAMPLES 4096          /* pages timed one by one at most (the full profile's) */

/* What a per-page result carries beyond its statistics: only what means
 * something for the variant. */
#define FT_PAGES_FAULTS (1u << 0)    /* each sample is one page fault: params.bytes, ticks_per_fault */
#define FT_PAGES_BYTES (1u << 1)     /* each sample is one page's bytes: page_bytes, ticks_per_byte */

struct demand_region;
struct instr_thread;

/* A result record for first-touch with the common params (params.bytes left
 * out when bytes is 0: a variant for which a byte count means nothing). Close
 * it with report_result_close. */
struct rec *ft_result_open(const struct wl_ctx *ctx, const char *variant, const struct cpuset *set,
			   uint64_t bytes, const char *flush);

/* A skipped result for variant with the reason. */
void ft_skip(const char *variant, const char *why);

/* One result from per-page (or per-access) samples: their statistics on the
 * BSP, the FT_PAGES_* fields, the region's fault counts if r is not NULL,
 * check ok or fail (with fail as the reason only when it failed). */
void ft_report_pages(const struct wl_ctx *ctx, const char *variant, const uint64_t *per, uint64_t n, uint64_t page,
		     unsigned fields, const struct demand_region *r, bool ok, const char *fail,
		     const struct instr_thread *span);

/* tlb-miss, tlb-miss-cached (pages of them) and hot-access on the BSP (bsp). */
void ft_tlb_costs(const struct wl_ctx *ctx, const struct cpuset *bsp, uint64_t pages);

/* The NUMA half: placement by one CPU against each CPU, and the node x node matrices. */
void first_touch_numa(const struct wl_ctx *ctx);

#endif
