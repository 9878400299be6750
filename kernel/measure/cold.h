/* cold.h - how cold a flush left a working set, judged on the scale of the flush workload (after shared/seeds/000 and 001): the chase after the flush against the warm chase (0%) and the chase after CLFLUSH of the set (100%), and the verdict on the flush; shared by workloads/flush.c and the run's flush check (kernel/run/flushcheck.c). Pure: no hardware, so that host tests drive it. */
#ifndef QB_KERNEL_COLD_H
#define QB_KERNEL_COLD_H

#include <stddef.h>
#include "stats.h"

#define COLD_GAP_MIN 1.5            /* the cold reference's median must be 50% slower than the warm one's: real
                                     * caches make it several times slower (23-31x on this project's twin),
                                     * while an emulator's chases, noisy on a busy host, must never make a scale */
#define COLD_INEFFECTIVE_PCT 25.0   /* a flush that leaves the set less cold than this is ineffective */

/* Whether the two references make a scale. */
enum cold_scale {
	COLD_SCALE_OK,        /* CLFLUSH makes the set measurably colder: cold_pct means something */
	COLD_NO_WARM,         /* the warm reference was not measured */
	COLD_NO_COLD,         /* the cold reference was not measured */
	COLD_REF_FASTER,      /* the cold reference's median was faster than the warm one's */
	COLD_GAP_SMALL,       /* slower, but by less than COLD_GAP_MIN */
	COLD_REF_OVERLAP,     /* ... and by enough at the median, but its first quartile is not above the warm third */
};

/* The verdict on a flush. */
enum cold_verdict {
	COLD_EFFECTIVE,       /* at least COLD_INEFFECTIVE_PCT as cold as CLFLUSH leaves the set */
	COLD_INEFFECTIVE,     /* under COLD_INEFFECTIVE_PCT, where CLFLUSH makes the set measurably colder */
	COLD_CANNOT_TELL,     /* CLFLUSH itself makes no measurable difference: no visible caches (an emulator) */
	COLD_NOT_CHECKED,     /* a reference or the flush's own figure is missing: nothing to judge */
};

struct cold_judgement {
	enum cold_scale scale;
	double pct;           /* 100 (after - warm) / (cold - warm) at the medians; 0 without a scale */
	enum cold_verdict verdict;
};

/* Judge a flush whose chase afterwards had median `after` (negative: it was
 * not measured, or failed) against the warm and cold references' statistics
 * (n 0: not measured). The scale holds when the cold median is above
 * COLD_GAP_MIN x the warm one and the cold first quartile above the warm
 * third, so that noise alone (an emulator on a busy host) makes none. */
void cold_judge(const struct stats *warm, const struct stats *cold, double after, struct cold_judgement *out);

/* "effective", "ineffective", "cannot tell: no visible caches" or "not checked". */
const char *cold_verdict_name(enum cold_verdict v);

/* Why there is no scale, in words that say what happened (a result's
 * cold_pct_note), with ref naming the cold reference. Empty with a scale. */
void cold_scale_note(const struct cold_judgement *j, const struct stats *warm, const struct stats *cold,
		     const char *ref, char *buf, size_t cap);

#endif
