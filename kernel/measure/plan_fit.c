/* plan_fit.c - fits the configurations' costs to the time budget, a fair share for every workload and each of its fair-share groups; see plan.h and plan_fit.h. */
#include "plan_fit.h"
#include "fmt.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEARCH_STEPS 48                  /* bisections of a factor or a level */
#define SQRT_STEPS 40                    /* Newton steps: ample for doubles in [0, 1] */
#define LEFTOVER_ROUNDS 3                /* rounds that give back what rounding left over */
#define EPS_S 1e-9
#define ANY (-1)

enum severity { SEV_AS_ASKED, SEV_UNITS, SEV_REPS, SEV_DROPPED, SEV_WORKLOADS };
static const char *const severity_names[] = {
	[SEV_AS_ASKED] = "as asked",
	[SEV_UNITS] = "units scaled",
	[SEV_REPS] = "repetitions lowered",
	[SEV_DROPPED] = "configurations dropped",
	[SEV_WORKLOADS] = "workloads skipped",
};

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
	return MAX(cap, plan_least_reps(it));
}

/* need fits in have: sums of the same costs taken in another order differ
 * in their last bits, and that must never drop a configuration. */
static bool fits(double need, double have)
{
	return need <= have + EPS_S * (1 + MAX(have, -have));
}

static double cost_at(const struct plan *p, const struct plan_item *it, double f, uint32_t cap)
{
	return plan_item_seconds(p, it, units_at(it, f), reps_at(it, cap));
}

/* Item i takes part in the fit of workload w and group k (ANY: every one). */
static bool member(const struct plan *p, uint32_t i, int w, int k)
{
	const struct plan_item *it = &p->item[i];
	return i >= p->first && (w == ANY || it->workload == w) && (k == ANY || it->group == k);
}

/* The cost of a group's items that are not dropped, at factor f and cap. */
static double group_at(const struct plan *p, int w, int k, double f, uint32_t cap)
{
	double s = 0;
	for (uint32_t i = p->first; i < p->n; i++)
		if (member(p, i, w, k) && !p->item[i].skip)
			s += cost_at(p, &p->item[i], f, cap);
	return s;
}

static uint32_t group_max_reps(const struct plan *p, int w, int k)
{
	uint32_t m = 0;
	for (uint32_t i = p->first; i < p->n; i++)
		if (member(p, i, w, k) && !p->item[i].skip)
			m = MAX(m, p->item[i].want_reps);
	return m;
}

/* The highest repetition cap in [lo, hi] that fits avail at factor f (lo if none does). */
static uint32_t best_cap(const struct plan *p, int w, int k, double f, uint32_t lo, uint32_t hi, double avail)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (fits(group_at(p, w, k, f, mid), avail))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The largest units factor in [0, 1] that fits avail with cap (0 if none does). */
static double best_factor(const struct plan *p, int w, int k, uint32_t cap, double avail)
{
	if (fits(group_at(p, w, k, 1.0, cap), avail))
		return 1.0;
	double lo = 0, hi = 1;
	for (int i = 0; i < SEARCH_STEPS; i++) {
		double mid = (lo + hi) / 2;
		if (fits(group_at(p, w, k, mid, cap), avail))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Water filling: out[i] = clamp(level, lo[i], hi[i]) with the highest level
 * whose sum fits avail (which holds every lo). */
static void water(const double *lo, const double *hi, unsigned n, double avail, double *out)
{
	double top = 0, all = 0;
	for (unsigned i = 0; i < n; i++) {
		top = MAX(top, hi[i]);
		all += hi[i];
	}
	if (fits(all, avail)) { /* everyone gets what it asks */
		memcpy(out, hi, n * sizeof(*out));
		return;
	}
	double a = 0, b = top;
	for (int s = 0; s < SEARCH_STEPS; s++) {
		double level = (a + b) / 2, sum = 0;
		for (unsigned i = 0; i < n; i++)
			sum += MIN(hi[i], MAX(lo[i], level));
		if (sum <= avail)
			a = level;
		else
			b = level;
	}
	for (unsigned i = 0; i < n; i++)
		out[i] = MIN(hi[i], MAX(lo[i], a));
}

/* Whether workload w has run an item already (its set-up is then spent). */
static bool begun(const struct plan *p, uint16_t w)
{
	if ((p->setup_done >> w) & 1)
		return true;
	for (uint32_t i = 0; i < p->first && i < p->n; i++)
		if (p->item[i].workload == w)
			return true;
	return false;
}

static bool group_has_run(const struct plan *p, uint16_t w, uint8_t k)
{
	for (uint32_t i = 0; i < p->first && i < p->n; i++)
		if (p->item[i].workload == w && p->item[i].group == k && !p->item[i].skip)
			return true;
	return false;
}

static double setup_now(const struct plan *p, uint16_t w)
{
	return begun(p, w) ? 0 : p->share[w].setup_s * p->pace;
}

/* Each group's least form and wants; the least items marked. */
static void survey(struct plan *p)
{
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++) {
		struct plan_share *s = &p->share[w];
		s->least_s = s->want_s = setup_now(p, w);
		for (uint8_t k = 0; k < PLAN_MAX_GROUPS; k++) {
			struct plan_group_fit *kf = &s->group[k];
			kf->n = 0;
			kf->least_s = kf->want_s = 0;
			struct plan_item *cheapest = 0;
			bool any_least = false;
			for (uint32_t i = p->first; i < p->n; i++) {
				struct plan_item *it = &p->item[i];
				if (!member(p, i, w, k))
					continue;
				kf->n++;
				kf->want_s += cost_at(p, it, 1.0, 0);
				it->least = it->essential;
				any_least |= it->least;
				if (!cheapest || cost_at(p, it, 0, PLAN_MIN_REPS) < cost_at(p, cheapest, 0, PLAN_MIN_REPS))
					cheapest = it;
			}
			if (cheapest && !any_least && !group_has_run(p, w, k))
				cheapest->least = true; /* every group keeps at least one configuration */
			for (uint32_t i = p->first; i < p->n; i++)
				if (member(p, i, w, k) && p->item[i].least)
					kf->least_s += cost_at(p, &p->item[i], 0, PLAN_MIN_REPS);
			s->least_s += kf->least_s;
			s->want_s += kf->want_s;
		}
	}
}

static void decide(struct plan *p, int w, int k, double f, uint32_t cap)
{
	for (uint32_t i = p->first; i < p->n; i++) {
		struct plan_item *it = &p->item[i];
		if (!member(p, i, w, k))
			continue;
		if (it->skip) {
			it->units = 0;
			it->reps = 0;
			it->planned_s = 0;
			continue;
		}
		it->units = units_at(it, f);
		it->reps = reps_at(it, cap);
		it->planned_s = plan_item_seconds(p, it, it->units, it->reps);
	}
}

/* Fit group k of workload w into share seconds: units, then repetitions,
 * then the dearest configurations outside the least form. Returns the
 * seconds planned. */
static double fit_group(struct plan *p, uint16_t w, uint8_t k, double share)
{
	struct plan_group_fit *kf = &p->share[w].group[k];
	for (uint32_t i = p->first; i < p->n; i++)
		if (member(p, i, w, k)) {
			p->item[i].skip = false;
			p->item[i].why[0] = 0;
		}
	double f = 1;
	uint32_t cap = 0, dropped = 0, hi = group_max_reps(p, w, k);
	if (!fits(group_at(p, w, k, 1.0, 0), share)) {
		if (fits(group_at(p, w, k, 0, 0), share)) {
			f = best_factor(p, w, k, 0, share);
		} else {
			while (!fits(group_at(p, w, k, 0, PLAN_MIN_REPS), share)) {
				struct plan_item *worst = 0;
				double worst_s = -1;
				for (uint32_t i = p->first; i < p->n; i++) {
					struct plan_item *it = &p->item[i];
					double s = member(p, i, w, k) && !it->skip && !it->least ? cost_at(p, it, 0, PLAN_MIN_REPS) : -1;
					if (s > worst_s) {
						worst_s = s;
						worst = it;
					}
				}
				if (!worst)
					break; /* the least form alone: its share always holds it */
				worst->skip = true;
				dropped++;
				fmt_snprintf(worst->why, sizeof(worst->why),
					     "dropped to fit the budget: %s%s%.1f s for this kind of experiment, it needs %.1f s "
					     "at the least", kf->name, kf->name[0] ? ": " : "", share, worst_s);
			}
			cap = best_cap(p, w, k, 0, MIN((uint32_t)PLAN_MIN_REPS, hi), hi, share);
			f = best_factor(p, w, k, cap, share);
		}
	}
	decide(p, w, k, f, cap);
	bool scalable = false;
	for (uint32_t i = p->first; i < p->n; i++)
		scalable |= member(p, i, w, k) && !p->item[i].skip && p->item[i].unit != PLAN_UNIT_PASSES;
	kf->scale = scalable ? f : 1;
	kf->reps_cap = cap && cap < hi ? cap : 0;
	kf->dropped = dropped;
	kf->planned_s = group_at(p, w, k, f, cap);
	return kf->planned_s;
}

/* Rounding leaves time over: give it to the parties that want more, each
 * an equal part of it; a refit that would take back keeps what it had.
 * target[] holds what each was last fitted into. */
static double give_back(double avail, unsigned n, const double *want, double *target, double *used,
			double (*refit)(struct plan *, uint16_t, unsigned, double), struct plan *p, uint16_t w)
{
	double sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += used[i];
	for (int round = 0; round < LEFTOVER_ROUNDS; round++) {
		double left = avail - sum;
		unsigned hungry = 0;
		for (unsigned i = 0; i < n; i++)
			hungry += used[i] < want[i] - EPS_S;
		if (left <= EPS_S * (1 + avail) || !hungry)
			break;
		for (unsigned i = 0; i < n; i++) {
			if (used[i] >= want[i] - EPS_S)
				continue;
			double more = used[i] + left / hungry, got = refit(p, w, i, more);
			if (got < used[i])
				got = refit(p, w, i, target[i]); /* not monotone here: keep the fit it had */
			else
				target[i] = more;
			sum += got - used[i];
			used[i] = got;
		}
	}
	return sum;
}

static double refit_group(struct plan *p, uint16_t w, unsigned k, double share)
{
	return fit_group(p, w, (uint8_t)k, share);
}

/* Fit workload w into share seconds: its set-up, then each group its fair
 * part (the groups' share_s), then what is left over to those that want more. */
static double fit_workload(struct plan *p, uint16_t w, double share)
{
	struct plan_share *s = &p->share[w];
	double setup = setup_now(p, w), lo[PLAN_MAX_GROUPS], hi[PLAN_MAX_GROUPS], part[PLAN_MAX_GROUPS],
	       used[PLAN_MAX_GROUPS];
	for (unsigned k = 0; k < PLAN_MAX_GROUPS; k++) {
		lo[k] = s->group[k].least_s;
		hi[k] = s->group[k].want_s;
	}
	double avail = share - setup;
	water(lo, hi, PLAN_MAX_GROUPS, avail, part);
	for (unsigned k = 0; k < PLAN_MAX_GROUPS; k++) {
		s->group[k].share_s = part[k];
		used[k] = s->group[k].n ? fit_group(p, w, (uint8_t)k, part[k]) : 0;
	}
	double sum = give_back(avail, PLAN_MAX_GROUPS, hi, part, used, refit_group, p, w);
	s->planned_s = setup + sum;
	return s->planned_s;
}

/* Workload w as asked: every group its whole want, nothing scaled or dropped. */
static void as_asked(struct plan *p, uint16_t w)
{
	struct plan_share *s = &p->share[w];
	s->share_s = s->want_s;
	if (s->want_s <= 0)
		return;
	double sum = setup_now(p, w);
	for (uint8_t k = 0; k < PLAN_MAX_GROUPS; k++) {
		s->group[k].share_s = s->group[k].want_s;
		sum += s->group[k].n ? fit_group(p, w, k, s->group[k].want_s) : 0;
	}
	s->planned_s = sum;
}

static double refit_workload(struct plan *p, uint16_t unused, unsigned w, double share)
{
	(void)unused;
	return p->share[w].skip || !p->share[w].want_s ? 0 : fit_workload(p, (uint16_t)w, share);
}

/* The workloads whose least forms do not all fit: the dearest go first. */
static void skip_workloads(struct plan *p, double avail)
{
	double need = 0;
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++)
		need += p->share[w].least_s;
	double all = need;
	while (need > avail) {
		int worst = ANY;
		for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++)
			if (!p->share[w].skip && p->share[w].least_s > 0 &&
			    (worst == ANY || p->share[w].least_s > p->share[worst].least_s))
				worst = w;
		if (worst == ANY)
			break;
		struct plan_share *s = &p->share[worst];
		s->skip = true;
		p->n_workloads_skipped++;
		need -= s->least_s;
		if (avail <= 0)
			fmt_snprintf(s->why, sizeof(s->why), "budget used up (%.0f s of %.0f s spent)", p->spent_s,
				     p->budget_s);
		else
			fmt_snprintf(s->why, sizeof(s->why),
				     "does not fit the budget: its least form needs %.1f s, and every workload's %.1f s "
				     "of the %.1f s left", s->least_s, all, avail);
		for (uint32_t i = p->first; i < p->n; i++) {
			struct plan_item *it = &p->item[i];
			if (it->workload != worst)
				continue;
			it->skip = true;
			fmt_snprintf(it->why, sizeof(it->why), "%s", s->why);
			it->units = it->reps = 0;
			it->planned_s = 0;
		}
		s->planned_s = s->share_s = 0;
	}
}

/* What the fit did, the plan's totals. */
static void sum_up(struct plan *p, bool budget)
{
	enum severity sev = SEV_AS_ASKED;
	p->scale = 1;
	p->reps_cap = 0;
	p->estimated_s = p->spent_s;
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++) {
		struct plan_share *s = &p->share[w];
		if (s->skip) {
			sev = SEV_WORKLOADS;
			continue;
		}
		p->estimated_s += setup_now(p, w);
		for (unsigned k = 0; k < PLAN_MAX_GROUPS; k++) {
			const struct plan_group_fit *kf = &s->group[k];
			if (!kf->n)
				continue;
			if (kf->dropped)
				sev = MAX(sev, SEV_DROPPED);
			if (kf->reps_cap) {
				sev = MAX(sev, SEV_REPS);
				p->reps_cap = p->reps_cap ? MIN(p->reps_cap, kf->reps_cap) : kf->reps_cap;
			}
			if (kf->scale < 1) {
				sev = MAX(sev, SEV_UNITS);
				p->scale = MIN(p->scale, kf->scale);
			}
		}
	}
	p->n_skipped = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		p->n_skipped += p->item[i].skip;
		if (i >= p->first && !p->item[i].skip)
			p->estimated_s += p->item[i].planned_s;
	}
	p->how = budget ? severity_names[sev] : "no budget";
}

/* ---- Public Functions ----------------------------------------------------- */
uint32_t plan_fit(struct plan *p)
{
	p->n_workloads_skipped = 0;
	for (uint32_t i = p->first; i < p->n; i++) {
		p->item[i].skip = false;
		p->item[i].why[0] = 0;
	}
	bool ahead[PLAN_MAX_WORKLOADS] = { false };     /* has items still to run */
	double spent[PLAN_MAX_WORKLOADS] = { 0 };       /* what its items so far took */
	for (uint32_t i = p->first; i < p->n; i++)
		ahead[p->item[i].workload] = true;
	for (uint32_t i = 0; i < p->first && i < p->n; i++)
		spent[p->item[i].workload] += p->item[i].spent_s;
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++) {
		if (!ahead[w]) { /* done, or skipped by an earlier fit: as it was */
			p->n_workloads_skipped += p->share[w].skip;
			spent[w] = 0;
			continue;
		}
		p->share[w].skip = false;
		p->share[w].why[0] = 0;
	}
	survey(p);
	double avail = plan_available_s(p), want = 0;
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++)
		want += p->share[w].want_s;
	bool budget = p->budget_s > 0;
	if (!budget || want <= avail) { /* everything as asked */
		for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++)
			as_asked(p, w);
		sum_up(p, budget);
		return p->n_skipped;
	}
	skip_workloads(p, avail);
	/* Water filling over each workload's whole share, what it already took
	 * included: a refit in the middle of a workload that ran long gives the
	 * others their part first. */
	double lo[PLAN_MAX_WORKLOADS], hi[PLAN_MAX_WORKLOADS], share[PLAN_MAX_WORKLOADS], used[PLAN_MAX_WORKLOADS];
	double total = MAX(avail, 0.0);
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++) {
		bool in = !p->share[w].skip && p->share[w].want_s > 0;
		lo[w] = in ? spent[w] + p->share[w].least_s : 0;
		hi[w] = in ? spent[w] + p->share[w].want_s : 0;
		total += in ? spent[w] : 0;
	}
	water(lo, hi, PLAN_MAX_WORKLOADS, total, share);
	for (uint16_t w = 0; w < PLAN_MAX_WORKLOADS; w++) {
		bool in = !p->share[w].skip && p->share[w].want_s > 0;
		p->share[w].share_s = share[w];
		share[w] = in ? share[w] - spent[w] : 0; /* what is left of it */
		hi[w] = in ? p->share[w].want_s : 0;
		used[w] = refit_workload(p, 0, w, share[w]);
	}
	give_back(MAX(avail, 0.0), PLAN_MAX_WORKLOADS, hi, share, used, refit_workload, p, 0);
	sum_up(p, true);
	return p->n_skipped;
}

uint32_t plan_refit(struct plan *p, uint32_t first, double spent_s, double pace)
{
	p->first = MIN(first, p->n);
	p->spent_s = spent_s;
	p->pace = MIN(PLAN_PACE_MAX, MAX(PLAN_PACE_MIN, pace));
	return plan_fit(p);
}
