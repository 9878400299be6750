/* stats_rec.c - the statistics fields of a record; see stats_rec.h. */
#include "stats_rec.h"

void stats_rec(struct rec *r, const struct stats *st)
{
	rec_u64(r, "n", st->n);
	rec_u64(r, "min", st->min);
	rec_f64(r, "median", st->median, 1);
	rec_f64(r, "mean", st->mean, 1);
	rec_u64(r, "max", st->max);
	rec_f64(r, "stddev", st->stddev, 1);
	rec_f64(r, "cv", st->cv, 4);
}
