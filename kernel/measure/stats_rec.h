/* stats_rec.h - the statistics fields of a record (n, min, q1, median, q3, mean, max, stddev, cv), written once for a result record (report.c) and for its clean repetitions (reps.c). */
#ifndef QB_KERNEL_STATS_REC_H
#define QB_KERNEL_STATS_REC_H

#include "record.h"
#include "stats.h"

/* Add n, min, q1, median, q3, mean, max, stddev and cv of st to r
 * (docs/records.md, `result`): counts as integers, the rest as decimals (cv
 * to 4 places). A statistic of nothing is null, never 0: with n == 0 every
 * field but n is null; with n == 1 stddev and cv are; with a mean of 0, cv. */
void stats_rec(struct rec *r, const struct stats *st);

/* min_ns, q1_ns, median_ns, q3_ns, mean_ns and max_ns of st at tsc_hz; null
 * when tsc_hz is 0 (unknown) or st holds no sample. */
void stats_rec_ns(struct rec *r, const struct stats *st, uint64_t tsc_hz);

#endif
