/* first_touch.h - shared parts of the first-touch workload (first_touch.c, first_touch_numa.c). */
#ifndef QB_WORKLOADS_FIRST_TOUCH_H
#define QB_WORKLOADS_FIRST_TOUCH_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "workload.h"

#define FT_PAGE 4096ull
#define FT_LINE 64ull

/* A result record for first-touch with the common params (params.bytes left
 * out when bytes is 0: a variant for which a byte count means nothing). Close
 * it with report_result_close. */
struct rec *ft_result_open(const struct wl_ctx *ctx, const char *variant, const struct cpuset *set,
			   uint64_t bytes, const char *flush);

/* A skipped result for variant with the reason. */
void ft_skip(const char *variant, const char *why);

/* The NUMA half: placement by one CPU against each CPU, and the node x node matrices. */
void first_touch_numa(const struct wl_ctx *ctx);

#endif
