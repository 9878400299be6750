/* cold.h - how cold a flush left a working set, judged on the scale of the flush workload (after shared/seeds/000 and 001): the chase after the flush against the warm chase (0%) and the chase after CLFLUSH of the set (100%), and the verdict on the flush; shared by workloads/flush.c and the run's flush check (kernel/run/flushcheck.c). Pure: no hardware, so that host tests drive it. */
#ifndef QB_KERNEL_COLD_H
#define QB_KERNEL_COLD_H

#include <stddef.h>
#include <stdint.h>
#include "stats.h"

#define COLD_GAP_MIN 1.5            /* the cold reference's median must be 50% slower than the warm one's: real
                                     * caches make it several times slower (23-31x on this project's twin),
                                     * while an emulator's chases, noisy on a busy host, must never make a scale */
#define COLD_WARM_MAX 0.25          /* and the warm one at most a quarter of it: a set that stays in the cache
                                     * between the warming pass and the chase is many times faster than memory
                                     * (86 against 222 ticks a line is a set that did not stay warm) */
#define COLD_INEFFECTIVE_PCT 25.0   /* a flush that leaves the set less cold than this is ineffective */
#define COLD_EFFECTIVE_PCT 70.0     /* effective from here, with its first quartile above the warm third; between
                                     * the two, partial (working flushes score 87-126% on this project's twin,
                                     * a CLFLUSH of a random 25-30% of the set 25-28%, eviction reads near the
                                     * size of the host's L3 18-58%) */

/* Whether the two references make a scale. */
enum cold_scale {
	COLD_SCALE_OK,        /* CLFLUSH makes the set measurably colder, and warm is warm: cold_pct means something */
	COLD_NO_WARM,         /* the warm reference was not measured */
	COLD_NO_COLD,         /* the cold reference was not measured */
	COLD_REF_FASTER,      /* the cold reference's median was faster than the warm one's */
	COLD_GAP_SMALL,       /* slower, but by less than COLD_GAP_MIN */
	COLD_REF_OVERLAP,     /* ... and by enough at the median, but its first quartile is not above the warm third */
	COLD_WARM_NOT_WARM,   /* a gap, but the warm median is over COLD_WARM_MAX of the cold one */
};

/* The verdict on a flush, from the most trusted to the least; a verdict over
 * several cache domains is the worst of theirs (cold_worse). */
enum cold_verdict {
	COLD_EFFECTIVE,       /* at least COLD_EFFECTIVE_PCT as cold as CLFLUSH leaves the set, its first
	                       * quartile above the warm third */
	COLD_CANNOT_TELL,     /* CLFLUSH itself makes no measurable difference: no visible caches (an emulator) */
	COLD_NOT_WARM,        /* the warm reference was not warm: the scale cannot be trusted */
	COLD_DISTURBED,       /* too few rounds were undisturbed (kernel/run/flushcheck.c decides it) */
	COLD_NOT_CHECKED,     /* a reference or the flush's own figure is missing: nothing to judge */
	COLD_PARTIAL,         /* from COLD_INEFFECTIVE_PCT to COLD_EFFECTIVE_PCT (or over it, its first quartile not
	                       * above the warm third): part of the set stayed in the caches */
	COLD_INEFFECTIVE,     /* under COLD_INEFFECTIVE_PCT, where CLFLUSH makes the set measurably colder */
};

struct cold_judgement {
	enum cold_scale scale;
	double pct;           /* 100 (after - warm) / (cold - warm) at the medians; 0 without a scale */
	enum cold_verdict verdict;
};

/* Judge a flush whose chases afterwards had the statistics `after` (n 0: not
 * measured, or failed) against the warm and cold references' (n 0: not
 * measured). The scale holds when the cold median is above COLD_GAP_MIN x the
 * warm one and the cold first quartile above the warm third, so that noise
 * alone (an emulator on a busy host) makes none; it is trusted when the warm
 * median is at most COLD_WARM_MAX of the cold one. */
void cold_judge(const struct stats *warm, const struct stats *cold, const struct stats *after,
		struct cold_judgement *out);

/* As cold_judge, from n rounds each of which measured its own references
 * and its flush back to back (the run's flush check): the scale from the
 * references' statistics, then cold_pct as the median of each round's own
 * 100 (after - warm) / (cold - warm), the warm reference's median as warm
 * (a round whose cold chase was no slower than that is left out), so that
 * memory that is slower in some rounds than in others moves a round's
 * references and its flush together, and the three medians of a drifting
 * machine, each from other rounds, never add up to a verdict no round gave.
 * n at most COLD_ROUNDS_MAX. */
#define COLD_ROUNDS_MAX 32
void cold_judge_rounds(const uint64_t *warm, const uint64_t *cold, const uint64_t *after, size_t n,
		       struct cold_judgement *out);

/* The worse of two verdicts (the later in enum cold_verdict). */
enum cold_verdict cold_worse(enum cold_verdict a, enum cold_verdict b);

/* "effective", "partial", "ineffective", "cannot tell: no visible caches",
 * "cannot tell: the warm set was not warm", "cannot tell: disturbed" or
 * "not checked". */
const char *cold_verdict_name(enum cold_verdict v);

/* Why there is no scale, in words that say what happened (a result's
 * cold_pct_note), with ref naming the cold reference. Empty with a scale. */
void cold_scale_note(const struct cold_judgement *j, const struct stats *warm, const struct stats *cold,
		     const char *ref, char *buf, size_t cap);

#endif
