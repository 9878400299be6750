/* cold.c - the coldness scale and the verdict on a flush; see cold.h. */
#include "cold.h"
#include "fmt.h"

/* ---- Constants ------------------------------------------------------------ */
#define COLD_PCT_ZERO 0.05 /* under the records' one decimal */

/* ---- Public Functions ----------------------------------------------------- */
void cold_judge(const struct stats *warm, const struct stats *cold, double after, struct cold_judgement *out)
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
	else
		out->scale = COLD_SCALE_OK;
	if (out->scale != COLD_SCALE_OK)
		return;
	if (after < 0) {
		out->verdict = COLD_NOT_CHECKED;
		return;
	}
	out->pct = 100.0 * (after - warm->median) / (cold->median - warm->median);
	if (out->pct > -COLD_PCT_ZERO && out->pct < COLD_PCT_ZERO)
		out->pct = 0; /* never "-0.0" in a record */
	out->verdict = out->pct < COLD_INEFFECTIVE_PCT ? COLD_INEFFECTIVE : COLD_EFFECTIVE;
}

const char *cold_verdict_name(enum cold_verdict v)
{
	switch (v) {
	case COLD_EFFECTIVE: return "effective";
	case COLD_INEFFECTIVE: return "ineffective";
	case COLD_CANNOT_TELL: return "cannot tell: no visible caches";
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
	}
}
