/* cold.c - the coldness scale and the verdict on a flush; see cold.h. */
#include "cold.h"
#include "fmt.h"

/* ---- Constants ------------------------------------------------------------ */
#define COLD_PCT_ZERO 0.05 /* under the records' one decimal */

/* ---- Private Functions ---------------------------------------------------- */
/* The verdict at pct: effective from COLD_EFFECTIVE_PCT with the after
 * chases' first quartile above the warm third, partial from
 * COLD_INEFFECTIVE_PCT, ineffective under it. */
static void grade(struct cold_judgement *out, double pct, const struct stats *warm, const struct stats *after)
{
	out->pct = pct > -COLD_PCT_ZERO && pct < COLD_PCT_ZERO ? 0 : pct; /* never "-0.0" in a record */
	if (out->pct < COLD_INEFFECTIVE_PCT)
		out->verdict = COLD_INEFFECTIVE;
	else if (out->pct < COLD_EFFECTIVE_PCT || after->q1 <= warm->q3)
		out->verdict = COLD_PARTIAL;
	else
		out->verdict = COLD_EFFECTIVE;
}

/* ---- Public Functions ----------------------------------------------------- */
void cold_judge(const struct stats *warm, const struct stats *cold, const struct stats *after,
		struct cold_judgement *out)
{
	out->pct = 0;
	out->verdict = COLD_CANNOT_TELL;
	if (!warm->n || !cold->n) {
		out->scale = !warm->n ? COLD_NO_WARM : COLD_NO_COLD;
		out->verdict = COLD_NOT_CHECKED;
		return;
	}
	if (cold->median < warm->median)
		out->scale = COLD_REF_FASTER;
	else if (cold->median <= warm->median * COLD_GAP_MIN)
		out->scale = COLD_GAP_SMALL;
	else if (cold->q1 <= warm->q3)
		out->scale = COLD_REF_OVERLAP;
	else if (warm->median > cold->median * COLD_WARM_MAX)
		out->scale = COLD_WARM_NOT_WARM;
	else
		out->scale = COLD_SCALE_OK;
	if (out->scale == COLD_WARM_NOT_WARM)
		out->verdict = COLD_NOT_WARM;
	if (out->scale != COLD_SCALE_OK)
		return;
	if (!after || !after->n) {
		out->verdict = COLD_NOT_CHECKED;
		return;
	}
	grade(out, 100.0 * (after->median - warm->median) / (cold->median - warm->median), warm, after);
}

void cold_judge_rounds(const uint64_t *warm, const uint64_t *cold, const uint64_t *after, size_t n,
		       struct cold_judgement *out)
{
	uint64_t scratch[COLD_ROUNDS_MAX];
	double pct[COLD_ROUNDS_MAX];
	struct stats w, c, a;
	n = n < COLD_ROUNDS_MAX ? n : COLD_ROUNDS_MAX;
	stats_compute(warm, n, scratch, &w);
	stats_compute(cold, n, scratch, &c);
	stats_compute(after, n, scratch, &a);
	cold_judge(&w, &c, &a, out);
	if (out->scale != COLD_SCALE_OK || !a.n)
		return;
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if ((double)cold[k] > w.median)
			pct[m++] = 100.0 * ((double)after[k] - w.median) / ((double)cold[k] - w.median);
	for (size_t i = 1; i < m; i++) /* insertion sort: a few rounds */
		for (size_t j = i; j > 0 && pct[j - 1] > pct[j]; j--) {
			double t = pct[j];
			pct[j] = pct[j - 1];
			pct[j - 1] = t;
		}
	if (!m) {
		out->verdict = COLD_NOT_CHECKED;
		out->pct = 0;
		return;
	}
	grade(out, m % 2 ? pct[m / 2] : (pct[m / 2 - 1] + pct[m / 2]) / 2, &w, &a);
}

enum cold_verdict cold_worse(enum cold_verdict a, enum cold_verdict b)
{
	return a > b ? a : b;
}

const char *cold_verdict_name(enum cold_verdict v)
{
	switch (v) {
	case COLD_EFFECTIVE: return "effective";
	case COLD_PARTIAL: return "partial";
	case COLD_INEFFECTIVE: return "ineffective";
	case COLD_CANNOT_TELL: return "cannot tell: no visible caches";
	case COLD_NOT_WARM: return "cannot tell: the warm set was not warm";
	case COLD_DISTURBED: return "cannot tell: disturbed";
	default: return "not checked";
	}
}

void cold_scale_note(const struct cold_judgement *j, const struct stats *warm, const struct stats *cold,
		     const char *ref, char *buf, size_t cap)
{
	double w = warm->median, c = cold->median;
	switch (j->scale) {
	case COLD_SCALE_OK:
		fmt_snprintf(buf, cap, "%s", "");
		break;
	case COLD_NO_WARM:
		fmt_snprintf(buf, cap, "no warm reference (none) was measured");
		break;
	case COLD_NO_COLD:
		fmt_snprintf(buf, cap, "no cold reference (%s) was measured", ref);
		break;
	case COLD_REF_FASTER:
		fmt_snprintf(buf, cap, "the cold reference pass (%s, %.0f ticks) was faster than the warm one (%.0f ticks): "
			     "no scale", ref, c, w);
		break;
	case COLD_GAP_SMALL:
		fmt_snprintf(buf, cap, "the cold reference pass (%s, %.0f ticks) was only %.1f%% slower than the warm one "
			     "(%.0f ticks), under %.0f%%: no scale (cannot tell: no visible caches)", ref, c,
			     100.0 * (c - w) / w, w, 100.0 * (COLD_GAP_MIN - 1));
		break;
	case COLD_REF_OVERLAP:
		fmt_snprintf(buf, cap, "the cold reference passes (%s, first quartile %.0f ticks) overlap the warm ones "
			     "(third quartile %.0f ticks): no scale (cannot tell: no visible caches)", ref, cold->q1,
			     warm->q3);
		break;
	case COLD_WARM_NOT_WARM:
		fmt_snprintf(buf, cap, "the warm reference pass (%.0f ticks) was over a quarter of the cold one (%s, %.0f "
			     "ticks): the set did not stay in the caches (cannot tell: the warm set was not warm)", w, ref,
			     c);
		break;
	}
}
