/* stats_rec.h - the statistics fields of a record (n, min, median, mean, max, stddev, cv), written once for a result record (report.c) and for its clean repetitions (reps.c). */
#ifndef QB_KERNEL_STATS_REC_H
#define QB_KERNEL_STATS_REC_H

#include "record.h"
#include "stats.h"

/* Add n, min, median, mean, max, stddev and cv of st to r (docs/records.md,
 * `result`): counts as integers, the rest as decimals (cv to 4 places). */
void stats_rec(struct rec *r, const struct stats *st);

#endif
