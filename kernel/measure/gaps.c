/* gaps.c - the noise loop: gaps between consecutive clock reads, their histogram and their causes; see gaps.h. */
#include "gaps.h"
#include "lib.h"
#include "tsc.h"

/* ---- Private Variables ---------------------------------------------------- */
static const char *const cause_names[GAPS_CAUSES] = {
	[GAPS_SMI] = "smi",
	[GAPS_INTERRUPT] = "interrupts",
	[GAPS_SWITCH] = "context_switches",
	[GAPS_MIGRATION] = "migrations",
	[GAPS_FAULT] = "faults",
};

/* ---- Private Functions ---------------------------------------------------- */
/* One read of the clock: the fenced TSC, or the platform's (a test's fake).
 * Inlined into each loop below twice, once per kind, so that the TSC loop
 * makes no call. */
static inline __attribute__((always_inline)) uint64_t read_clock(const struct gaps_ops *ops, bool tsc)
{
	return tsc ? tsc_start() : ops->clock(ops->arg);
}

/* Attribute a gap: what each counter did since it was last read. */
static void attribute(struct gaps_cpu *c, const struct gaps_ops *ops)
{
	uint64_t v[GAPS_CAUSES] = { 0 };
	c->attributed++;
	if (!ops->counts || !ops->mask) {
		c->unexplained++; /* nothing counted here: no cause can be named */
		return;
	}
	if (!ops->counts(ops->arg, v)) {
		c->unread++;
		return;
	}
	if (!c->have_seen) {
		c->unread++;      /* nothing to compare with: the first read failed */
	} else {
		bool any = false;
		for (uint32_t k = 0; k < GAPS_CAUSES; k++)
			if ((ops->mask >> k) & 1 && v[k] != c->seen[k]) {
				c->cause[k]++;
				any = true;
			}
		c->unexplained += !any;
	}
	memcpy(c->seen, v, sizeof(c->seen));
	c->have_seen = true;
}

/* A gap of d ticks that ended at now: counted, binned, attributed when long.
 * Returns a fresh read of the clock: the loop goes on from there, and what
 * this took is excluded from the observed time. */
static __attribute__((noinline)) uint64_t note(struct gaps_cpu *c, const struct gaps_cfg *cfg,
					       const struct gaps_ops *ops, bool tsc, uint64_t d, uint64_t now)
{
	c->count++;
	c->lost += d - cfg->base;
	if (d > c->longest) {
		c->longest = d;
		c->longest_at = now;
	}
	uint64_t q = d / cfg->base;
	uint32_t k = q ? (uint32_t)(63 - __builtin_clzll(q)) : 0;
	c->hist[MIN(k, cfg->hist_n - 1)]++;
	if (d >= cfg->attr_threshold)
		attribute(c, ops);
	uint64_t after = read_clock(ops, tsc);
	c->excluded += after > now ? after - now : 0;
	return after;
}

static inline __attribute__((always_inline)) void spin(struct gaps_cpu *c, const struct gaps_cfg *cfg,
						       const struct gaps_ops *ops, bool tsc)
{
	const uint64_t end = cfg->end, threshold = cfg->threshold;
	uint64_t iters = 0, min = UINT64_MAX, backwards = 0;
	uint64_t prev = read_clock(ops, tsc);
	c->first = prev;
	while (prev < end) {
		uint64_t now = read_clock(ops, tsc);
		iters++;
		if (__builtin_expect(now < prev, 0)) { /* not a gap: a clock that went back */
			backwards++;
			prev = now;
			continue;
		}
		uint64_t d = now - prev;
		min = d && d < min ? d : min;     /* 0: the clock did not step, not an iteration's length */
		if (__builtin_expect(d >= threshold, 0))
			now = note(c, cfg, ops, tsc, d, now);
		prev = now;
	}
	c->last = prev;
	c->iters = iters;
	c->min = min == UINT64_MAX ? 0 : min;
	c->backwards = backwards;
}

static inline __attribute__((always_inline)) void loop_time(const struct gaps_ops *ops, uint32_t n, bool tsc,
							    uint32_t *bins, uint32_t *zero)
{
	uint64_t prev = read_clock(ops, tsc);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t now = read_clock(ops, tsc);
		uint64_t d = now >= prev ? now - prev : 0;
		*zero += d == 0;
		if (d)
			bins[MIN(d, (uint64_t)GAPS_TIME_BINS - 1)]++;
		prev = now;
	}
}

/* The tick at which the iterations counted in bins reach fraction q of k. */
static uint64_t quantile(const uint32_t *bins, uint32_t k, double q)
{
	uint64_t want = (uint64_t)(q * (double)(k - 1)) + 1, seen = 0;
	for (uint32_t t = 1; t < GAPS_TIME_BINS; t++) {
		seen += bins[t];
		if (seen >= want)
			return t;
	}
	return GAPS_TIME_BINS - 1;
}

/* ---- Public Functions ----------------------------------------------------- */
const char *gaps_cause_name(enum gaps_cause k)
{
	return k < GAPS_CAUSES ? cause_names[k] : "?";
}

void gaps_loop_time(const struct gaps_ops *ops, uint32_t n, struct gaps_loop *out)
{
	uint32_t bins[GAPS_TIME_BINS] = { 0 }, zero = 0;
	if (ops->clock)
		loop_time(ops, n, false, bins, &zero);
	else
		loop_time(ops, n, true, bins, &zero);
	memset(out, 0, sizeof(*out));
	out->zero = zero;
	out->n = n - zero;
	if (!out->n) {
		out->min = out->p1 = out->p5 = out->median = 1;
		return;
	}
	out->min = quantile(bins, out->n, 0);
	out->p1 = quantile(bins, out->n, 0.01);
	out->p5 = quantile(bins, out->n, 0.05);
	out->median = quantile(bins, out->n, 0.5);
}

void gaps_setup(struct gaps_cfg *cfg, uint64_t min, uint64_t attr_ticks, uint64_t top_ticks)
{
	cfg->base = min ? min : 1;
	cfg->threshold = GAPS_FACTOR * cfg->base;
	cfg->attr_threshold = MAX(attr_ticks, cfg->threshold); /* a shorter one is never seen as a gap */
	uint32_t n = 1;
	for (uint64_t edge = cfg->base; n < GAPS_HIST_MAX && edge < top_ticks && edge <= UINT64_MAX / 2; edge *= 2)
		n++;
	cfg->hist_n = n;
}

void gaps_spin(struct gaps_cpu *c, const struct gaps_cfg *cfg, const struct gaps_ops *ops)
{
	memset(c, 0, sizeof(*c));
	if (ops->counts && ops->mask)
		c->have_seen = ops->counts(ops->arg, c->seen);
	if (ops->clock)
		spin(c, cfg, ops, false);
	else
		spin(c, cfg, ops, true);
}

uint64_t gaps_observed(const struct gaps_cpu *c)
{
	uint64_t span = c->last > c->first ? c->last - c->first : 0;
	return span > c->excluded ? span - c->excluded : 0;
}

double gaps_ppm(const struct gaps_cpu *c)
{
	uint64_t obs = gaps_observed(c);
	return obs ? (double)c->lost / (double)obs * 1e6 : -1;
}

uint64_t gaps_edge(const struct gaps_cfg *cfg, uint32_t k)
{
	return k < 64 ? cfg->base << k : UINT64_MAX;
}

void gaps_merge(uint64_t *run_hist, const struct gaps_cpu *c, uint32_t hist_n)
{
	for (uint32_t k = 0; k < hist_n && k < GAPS_HIST_MAX; k++)
		if (c->hist[k])
			__atomic_add_fetch(&run_hist[k], c->hist[k], __ATOMIC_RELAXED);
}
