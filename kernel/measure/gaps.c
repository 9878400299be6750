/* gaps.c - the noise loop: gaps between consecutive clock reads, their histogram, rtla's thresholds, the timed bookkeeping and the causes; see gaps.h. */
#include "gaps.h"
#include "lib.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define NS_PER_S 1e9

const uint64_t gaps_over_ns[GAPS_OVER] = { 1000, 5000 }; /* gaps.h: rtla's thresholds */

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

static bool counting(const struct gaps_ops *ops)
{
	return ops->counts && ops->mask;
}

static uint64_t ns_ticks(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((double)ns * (double)hz / NS_PER_S + 0.5);
}

/* Read the counters after a gap (attr: one long enough to be attributed)
 * or on a calm stretch. An attributed gap is named by each counter that
 * moved since the read before it, which came right after the gap before
 * it or at most a calm stretch (cfg->rebase) before it began: what moved
 * in another gap was taken by that gap's read. */
static void read_counts(struct gaps_cpu *c, const struct gaps_ops *ops, bool attr)
{
	uint64_t v[GAPS_CAUSES] = { 0 };
	c->attributed += attr;
	if (!counting(ops)) {
		c->unexplained += attr; /* nothing counted here: no cause can be named */
		return;
	}
	c->reads++;
	if (!ops->counts(ops->arg, v)) {
		c->unread += attr;
		c->have_seen = false;   /* the next gap has no read before it to compare with */
		return;
	}
	if (attr && !c->have_seen) {
		c->unread++;            /* nothing to compare with: the read before it failed */
	} else if (attr) {
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

/* An iteration of d ticks (at least cfg->trigger) that ended at now: at
 * rtla's thresholds its whole length; a gap when it reached the threshold:
 * counted, its length beyond base lost, binned. */
static void record(struct gaps_cpu *c, const struct gaps_cfg *cfg, uint64_t d, uint64_t now)
{
	for (uint32_t k = 0; k < GAPS_OVER; k++)
		if (cfg->over[k] && d >= cfg->over[k]) {
			c->over_count[k]++;
			c->over_lost[k] += d;
		}
	c->over_longest = MAX(c->over_longest, d);
	if (d < cfg->threshold)
		return;                 /* only past rtla's threshold: the loop's own threshold is longer */
	c->count++;
	c->lost += d - cfg->base;
	if (d > c->longest) {
		c->longest = d;
		c->longest_at = now;
	}
	uint64_t q = d / cfg->hist_base;
	uint32_t k = q ? (uint32_t)(63 - __builtin_clzll(q)) : 0;
	c->hist[MIN(k, cfg->hist_n - 1)]++;
}

/* The bookkeeping after an iteration of d ticks that ended at now (d 0: a
 * calm stretch, only the counters read afresh). Its stretch, from now to a
 * fresh read of the clock, is timed. One within its calibrated cost and the
 * larger of the gap threshold and that cost again (a system call's own
 * jitter is no stall) is left out of the observed time whole. One past it
 * was stalled: its cost is left out, and its excess is a gap of its own,
 * as long as the excess plus one ordinary iteration (so that all the
 * excess is lost), recorded and read after in turn. Returns the fresh
 * read: the loop goes on from there. */
static __attribute__((noinline)) uint64_t note(struct gaps_cpu *c, const struct gaps_cfg *cfg,
					       const struct gaps_ops *ops, bool tsc, uint64_t d, uint64_t now)
{
	for (uint32_t k = 0;; k++) {
		bool attr = d >= cfg->attr_threshold;
		if (d)
			record(c, cfg, d, now);
		if (attr || counting(ops))
			read_counts(c, ops, attr);
		uint64_t after = read_clock(ops, tsc);
		uint64_t took = after > now ? after - now : 0;
		if (k < GAPS_STALLS_MAX && took >= cfg->book + MAX(cfg->threshold, cfg->book)) {
			c->excluded += cfg->book;
			c->stalls++;
			c->stall_lost += took - cfg->book;
			d = took - cfg->book + cfg->base;
			now = after;
			continue;
		}
		c->excluded += took;
		return after;
	}
}

static inline __attribute__((always_inline)) void spin(struct gaps_cpu *c, const struct gaps_cfg *cfg,
						       const struct gaps_ops *ops, bool tsc)
{
	const uint64_t end = cfg->end, trigger = cfg->trigger, rebase = counting(ops) ? cfg->rebase : 0;
	uint64_t iters = 0, min = UINT64_MAX, backwards = 0;
	uint64_t prev = read_clock(ops, tsc);
	c->first = prev;
	for (;;) {
		/* The hot loop runs to the end, or to the next calm-stretch read. */
		uint64_t stop = rebase && prev + rebase < end ? prev + rebase : end;
		while (prev < stop) {
			uint64_t now = read_clock(ops, tsc);
			iters++;
			if (__builtin_expect(now < prev, 0)) { /* not a gap: a clock that went back */
				backwards++;
				prev = now;
				continue;
			}
			uint64_t d = now - prev;
			min = d && d < min ? d : min;     /* 0: the clock did not step, not an iteration's length */
			if (__builtin_expect(d >= trigger, 0))
				now = note(c, cfg, ops, tsc, d, now);
			prev = now;
		}
		if (prev >= end)
			break;
		prev = note(c, cfg, ops, tsc, 0, prev);
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

/* One timed bookkeeping call, as the loop makes it after an attributed gap. */
static inline __attribute__((always_inline)) uint64_t book_once(struct gaps_cpu *s, const struct gaps_cfg *t,
							       const struct gaps_ops *ops, bool tsc)
{
	uint64_t now = read_clock(ops, tsc);
	uint64_t after = note(s, t, ops, tsc, t->attr_threshold, now);
	return after > now ? after - now : 0;
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

static double ratio_ppm(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole * 1e6 : -1;
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

void gaps_setup(struct gaps_cfg *cfg, uint64_t hist_base, uint64_t attr_ns, uint64_t hz)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->hist_base = hist_base ? hist_base : 1;
	cfg->attr_ticks = ns_ticks(attr_ns, hz);
	for (uint32_t k = 0; k < GAPS_OVER; k++)
		cfg->over[k] = ns_ticks(gaps_over_ns[k], hz);
	cfg->rebase = ns_ticks(GAPS_REBASE_NS, hz);
	uint64_t top = ns_ticks(GAPS_HIST_TOP_NS, hz);
	uint32_t n = 1;
	for (uint64_t edge = cfg->hist_base; n < GAPS_HIST_MAX && edge < top && edge <= UINT64_MAX / 2; edge *= 2)
		n++;
	cfg->hist_n = n;
	gaps_setup_cpu(cfg, cfg->hist_base);
}

void gaps_setup_cpu(struct gaps_cfg *cfg, uint64_t loop_min)
{
	cfg->base = loop_min ? loop_min : 1;
	cfg->threshold = GAPS_FACTOR * cfg->base;
	cfg->attr_threshold = MAX(cfg->attr_ticks, cfg->threshold); /* a shorter one is never seen as a gap */
	cfg->trigger = cfg->over[0] && cfg->over[0] < cfg->threshold ? cfg->over[0] : cfg->threshold;
}

void gaps_book_time(struct gaps_cfg *cfg, const struct gaps_ops *ops)
{
	struct gaps_cfg t = *cfg;
	struct gaps_cpu scratch;
	uint64_t took[GAPS_BOOK_CALLS];
	t.book = UINT64_MAX / 4;       /* no stall is noted while the cost itself is timed */
	memset(&scratch, 0, sizeof(scratch));
	if (counting(ops))
		scratch.have_seen = ops->counts(ops->arg, scratch.seen);
	for (uint32_t i = 0; i < GAPS_BOOK_CALLS; i++)
		took[i] = ops->clock ? book_once(&scratch, &t, ops, false) : book_once(&scratch, &t, ops, true);
	for (uint32_t i = 1; i < GAPS_BOOK_CALLS; i++)      /* insertion sort: nine values */
		for (uint32_t j = i; j && took[j - 1] > took[j]; j--) {
			uint64_t x = took[j];
			took[j] = took[j - 1];
			took[j - 1] = x;
		}
	cfg->book = took[GAPS_BOOK_CALLS / 2];
}

void gaps_spin(struct gaps_cpu *c, const struct gaps_cfg *cfg, const struct gaps_ops *ops)
{
	memset(c, 0, sizeof(*c));
	c->base = cfg->base;
	c->threshold = cfg->threshold;
	c->book = cfg->book;
	if (counting(ops))
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
	return ratio_ppm(c->lost, gaps_observed(c));
}

double gaps_over_ppm(const struct gaps_cpu *c, uint32_t k)
{
	return k < GAPS_OVER ? ratio_ppm(c->over_lost[k], gaps_observed(c)) : -1;
}

uint64_t gaps_edge(const struct gaps_cfg *cfg, uint32_t k)
{
	return k < 64 ? cfg->hist_base << k : UINT64_MAX;
}

void gaps_merge(uint64_t *run_hist, const struct gaps_cpu *c, uint32_t hist_n)
{
	for (uint32_t k = 0; k < hist_n && k < GAPS_HIST_MAX; k++)
		if (c->hist[k])
			__atomic_add_fetch(&run_hist[k], c->hist[k], __ATOMIC_RELAXED);
}

void gaps_sum_add(struct gaps_sum *s, const struct gaps_cpu *c)
{
	uint64_t obs = gaps_observed(c);
	s->base_min = s->cpus ? MIN(s->base_min, c->base) : c->base;
	s->base_max = MAX(s->base_max, c->base);
	s->book_min = s->cpus ? MIN(s->book_min, c->book) : c->book;
	s->book_max = MAX(s->book_max, c->book);
	if (c->longest > s->longest) {
		s->longest = c->longest;
		s->longest_cpu = s->cpus;
	}
	s->over_longest = MAX(s->over_longest, c->over_longest);
	s->observed += obs;
	s->lost += c->lost;
	s->count += c->count;
	s->stalls += c->stalls;
	s->stall_lost += c->stall_lost;
	s->attributed += c->attributed;
	s->unexplained += c->unexplained;
	s->unread += c->unread;
	for (uint32_t k = 0; k < GAPS_CAUSES; k++)
		s->cause[k] += c->cause[k];
	for (uint32_t k = 0; k < GAPS_OVER; k++) {
		s->over_count[k] += c->over_count[k];
		s->over_lost[k] += c->over_lost[k];
	}
	if (obs) {
		s->observed_cpus++;
		s->ppm_sum += gaps_ppm(c);
		s->ppm_max = MAX(s->ppm_max, gaps_ppm(c));
	}
	s->cpus++;
}

double gaps_sum_ppm(const struct gaps_sum *s)
{
	return ratio_ppm(s->lost, s->observed);
}

double gaps_sum_ppm_mean(const struct gaps_sum *s)
{
	return s->observed_cpus ? s->ppm_sum / s->observed_cpus : -1;
}

double gaps_sum_over_ppm(const struct gaps_sum *s, uint32_t k)
{
	return k < GAPS_OVER ? ratio_ppm(s->over_lost[k], s->observed) : -1;
}
