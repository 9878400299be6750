/* plan.c - fits the configurations' costs to the time budget; see plan.h. */
#include "plan.h"
#include "fmt.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEARCH_STEPS 48                  /* bisections of the units factor */
#define SQRT_STEPS 40                    /* Newton steps: ample for doubles in [0, 1] */

/* ---- Private Functions ---------------------------------------------------- */
/* Square root by Newton's method (no libm in the kernel); x in [0, 1]. */
static double root(double x)
{
	if (x <= 0)
		return 0;
	double r = x < 1 ? 1 : x;
	for (int i = 0; i < SQRT_STEPS; i++)
		r = (r + x / r) / 2;
	return r;
}

/* Units at factor f. Sampled pairs shrink with the square root of f: the
 * CPUs a matrix covers fall linearly with f, so a tight budget still keeps
 * a readable sample rather than a handful of CPUs. */
static uint64_t units_at(const struct plan_item *it, double f)
{
	if (it->unit == PLAN_UNIT_PASSES || f >= 1.0)
		return it->want_units;
	if (it->unit == PLAN_UNIT_PAIRS)
		f = root(f);
	double u = (double)it->want_units * f;
	uint64_t n = (uint64_t)u + (u > (double)(uint64_t)u);
	return MIN(it->want_units, MAX(it->min_units, n));
}

static uint32_t reps_at(const struct plan_item *it, uint32_t cap)
{
	if (!cap || it->want_reps <= cap)
		return it->want_reps;
	return MAX(cap, MIN((uint32_t)PLAN_MIN_REPS, it->want_reps));
}

static double total_at(const struct plan *p, double f, uint32_t cap)
{
	double s = 0;
	for (uint32_t i = p->first; i < p->n; i++)
		if (!p->item[i].skip)
			s += plan_item_seconds(p, &p->item[i], units_at(&p->item[i], f), reps_at(&p->item[i], cap));
	return s;
}

static uint32_t max_want_reps(const struct plan *p)
{
	uint32_t m = 0;
	for (uint32_t i = p->first; i < p->n; i++)
		if (!p->item[i].skip)
			m = MAX(m, p->item[i].want_reps);
	return m;
}

/* The highest repetition cap in [lo, hi] that fits avail at factor f (lo if none does). */
static uint32_t best_cap(const struct plan *p, double f, uint32_t lo, uint32_t hi, double avail)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (total_at(p, f, mid) <= avail)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The largest units factor in [0, 1] that fits avail with cap (0 if none does). */
static double best_factor(const struct plan *p, uint32_t cap, double avail)
{
	if (total_at(p, 1.0, cap) <= avail)
		return 1.0;
	double lo = 0, hi = 1;
	for (int i = 0; i < SEARCH_STEPS; i++) {
		double mid = (lo + hi) / 2;
		if (total_at(p, mid, cap) <= avail)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void apply(struct plan *p, double f, uint32_t cap)
{
	p->scale = f;
	p->reps_cap = cap;
	p->estimated_s = p->spent_s;
	for (uint32_t i = p->first; i < p->n; i++) {
		struct plan_item *it = &p->item[i];
		if (it->skip) {
			it->units = 0;
			it->reps = 0;
			it->planned_s = 0;
			continue;
		}
		it->units = units_at(it, f);
		it->reps = reps_at(it, cap);
		it->planned_s = plan_item_seconds(p, it, it->units, it->reps);
		p->estimated_s += it->planned_s;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
void plan_reset(struct plan *p, double budget_s, double serial_bytes_per_s)
{
	p->budget_s = budget_s > 0 ? budget_s : 0;
	p->spent_s = 0;
	p->serial_bytes_per_s = serial_bytes_per_s > 0 ? serial_bytes_per_s : 0;
	p->n = 0;
	p->first = 0;
	p->n_skipped = 0;
	p->n_lost = 0;
	p->scale = 1;
	p->reps_cap = 0;
	p->estimated_s = 0;
	p->how = "not fitted";
}

struct plan_item *plan_add(struct plan *p, uint16_t workload, const char *name)
{
	if (p->n >= PLAN_MAX_ITEMS) {
		p->n_lost++;
		return 0;
	}
	struct plan_item *it = &p->item[p->n++];
	memset(it, 0, sizeof(*it));
	it->workload = workload;
	fmt_snprintf(it->name, sizeof(it->name), "%s", name ? name : "");
	return it;
}

double plan_item_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps)
{
	double rep = (double)units * it->unit_s + it->rep_fixed_s;
	double bytes = (double)it->out_bytes + (double)p->bytes_per_rep * reps;
	double out = p->serial_bytes_per_s > 0 ? bytes / p->serial_bytes_per_s : 0;
	return (double)(reps + 1) * rep + out;
}

double plan_rep_seconds(const struct plan_item *it)
{
	return (double)it->units * it->unit_s + it->rep_fixed_s;
}

uint32_t plan_fit(struct plan *p)
{
	p->n_skipped = 0;
	for (uint32_t i = 0; i < p->first && i < p->n; i++)
		p->n_skipped += p->item[i].skip;
	for (uint32_t i = p->first; i < p->n; i++)
		p->item[i].skip = false;
	if (p->budget_s <= 0) {
		apply(p, 1.0, 0);
		p->how = "no budget";
		return 0;
	}
	double avail = p->budget_s * (1 - PLAN_RESERVE) - p->spent_s;
	if (total_at(p, 1.0, 0) <= avail) {
		apply(p, 1.0, 0);
		p->how = "as asked";
		return 0;
	}
	if (total_at(p, 0, 0) <= avail) {
		apply(p, best_factor(p, 0, avail), 0);
		p->how = "units scaled";
		return 0;
	}
	uint32_t hi = max_want_reps(p);
	if (total_at(p, 0, PLAN_MIN_REPS) <= avail) {
		uint32_t cap = best_cap(p, 0, PLAN_MIN_REPS, hi, avail);
		apply(p, 0, cap);
		p->how = "repetitions lowered";
		return 0;
	}
	/* Even the least of everything does not fit: drop the dearest first. */
	double need = total_at(p, 0, PLAN_MIN_REPS);
	while (need > avail) {
		struct plan_item *worst = 0;
		double worst_s = -1;
		for (uint32_t i = p->first; i < p->n; i++) {
			struct plan_item *it = &p->item[i];
			if (it->skip)
				continue;
			double s = plan_item_seconds(p, it, units_at(it, 0), reps_at(it, PLAN_MIN_REPS));
			if (s > worst_s) {
				worst_s = s;
				worst = it;
			}
		}
		if (!worst)
			break;
		worst->skip = true;
		p->n_skipped++;
		need -= worst_s;
		if (avail <= 0)
			fmt_snprintf(worst->why, sizeof(worst->why),
				     "budget used up (%.0f s of %.0f s spent)", p->spent_s,
				     p->budget_s);
		else
			fmt_snprintf(worst->why, sizeof(worst->why),
				     "does not fit the budget: needs %.1f s at the least, %.0f s left for all", worst_s,
				     avail);
	}
	/* Room may be left: give it back as repetitions, then units. */
	uint32_t cap = best_cap(p, 0, PLAN_MIN_REPS, max_want_reps(p), avail);
	apply(p, best_factor(p, cap, avail), cap);
	p->how = "configurations skipped";
	return p->n_skipped;
}

uint32_t plan_refit(struct plan *p, uint32_t first, double spent_s)
{
	p->first = MIN(first, p->n);
	p->spent_s = spent_s;
	return plan_fit(p);
}

struct plan_item *plan_next(struct plan *p, uint16_t workload, uint32_t *cursor)
{
	while (*cursor < p->n) {
		struct plan_item *it = &p->item[(*cursor)++];
		if (it->workload == workload)
			return it;
	}
	return 0;
}

double plan_workload_seconds(const struct plan *p, uint16_t workload, uint32_t *n, uint32_t *skipped)
{
	double s = 0;
	uint32_t k = 0, sk = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->item[i].workload != workload)
			continue;
		k++;
		sk += p->item[i].skip;
		s += p->item[i].planned_s;
	}
	if (n)
		*n = k;
	if (skipped)
		*skipped = sk;
	return s;
}
