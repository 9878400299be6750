/* gaps_fake.h - the noise loop's tests' fake clock and counters (test_gaps.c, test_gaps_attr.c): every read of the clock advances it one ordinary iteration, and scripted reads jump it (a gap) and move a counter (what caused it). */
#ifndef QB_TESTS_GAPS_FAKE_H
#define QB_TESTS_GAPS_FAKE_H

#include <math.h>
#include <string.h>
#include "gaps.h"

#define MAX_JUMPS 8
#define STEP 10                         /* an ordinary iteration: 10 ticks */
#define FAKE_HZ 1000000000ull           /* 1 GHz: a tick is a ns, 1 us 1000 ticks */

static struct {
	uint64_t now, calls, step;
	uint64_t at[MAX_JUMPS];             /* the read that ends a gap (1: the first read) */
	int64_t by[MAX_JUMPS];              /* and how much longer than step it was */
	uint64_t *bump[MAX_JUMPS];          /* a counter that moves during that gap (or NULL) */
	unsigned n;
} fc;

static inline void clock_reset(uint64_t step)
{
	memset(&fc, 0, sizeof(fc));
	fc.step = step;
}

static inline void jump(uint64_t at, int64_t by, uint64_t *bump)
{
	fc.at[fc.n] = at;
	fc.by[fc.n] = by;
	fc.bump[fc.n++] = bump;
}

static inline uint64_t fake_clock(void *arg)
{
	(void)arg;
	fc.calls++;
	fc.now += fc.step;
	for (unsigned i = 0; i < fc.n; i++)
		if (fc.at[i] == fc.calls) {
			fc.now = (uint64_t)((int64_t)fc.now + fc.by[i]);
			if (fc.bump[i])
				(*fc.bump[i])++;
		}
	return fc.now;
}

/* Fake counters, as a platform counts them. */
static uint64_t counter[GAPS_CAUSES];
static bool counts_fail;

static inline bool fake_counts(void *arg, uint64_t v[GAPS_CAUSES])
{
	(void)arg;
	if (counts_fail)
		return false;
	memcpy(v, counter, sizeof(counter));
	return true;
}

/* A run on a STEP-tick loop at 1 GHz: attribution from attr ns, stopping at end. */
static inline void cfg_for(struct gaps_cfg *cfg, uint64_t attr, uint64_t end)
{
	gaps_setup(cfg, STEP, attr, FAKE_HZ);
	cfg->end = end;
}

static inline bool approx(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

#endif
