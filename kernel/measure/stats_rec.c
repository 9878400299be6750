/* stats_rec.c - the statistics fields of a record; see stats_rec.h. */
#include "stats_rec.h"

/* What a statistics block holds, in its order (docs/records.md, `result`). */
static const char *const fields[] = { "min", "q1", "median", "q3", "mean", "max", "stddev", "cv" };

void stats_rec(struct rec *r, const struct stats *st)
{
	rec_u64(r, "n", st->n);
	if (!st->n) { /* a statistic of nothing is null, never 0 */
		for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			rec_null(r, fields[i]);
		return;
	}
	rec_u64(r, "min", st->min);
	rec_f64(r, "q1", st->q1, 1);
	rec_f64(r, "median", st->median, 1);
	rec_f64(r, "q3", st->q3, 1);
	rec_f64(r, "mean", st->mean, 1);
	rec_u64(r, "max", st->max);
	if (st->n < 2) { /* one sample has no spread */
		rec_null(r, "stddev");
		rec_null(r, "cv");
		return;
	}
	rec_f64(r, "stddev", st->stddev, 1);
	if (st->mean != 0.0)
		rec_f64(r, "cv", st->cv, 4);
	else
		rec_null(r, "cv");
}

void stats_rec_ns(struct rec *r, const struct stats *st, uint64_t tsc_hz)
{
	static const char *const ns[] = { "min_ns", "q1_ns", "median_ns", "q3_ns", "mean_ns", "max_ns" };
	double v[] = { (double)st->min, st->q1, st->median, st->q3, st->mean, (double)st->max };
	for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		if (st->n && tsc_hz)
			rec_f64(r, ns[i], stats_ticks_to_ns(v[i], tsc_hz), 1);
		else
			rec_null(r, ns[i]);
	}
}
