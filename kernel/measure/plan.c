/* plan.c - the plan's model: configurations, what they cost, what is left; see plan.h (plan_fit.c decides). */
#include "plan.h"
#include "fmt.h"
#include "lib.h"

/* ---- Public Functions ----------------------------------------------------- */
void plan_reset(struct plan *p, double budget_s, double serial_bytes_per_s)
{
	p->budget_s = budget_s > 0 ? budget_s : 0;
	p->spent_s = 0;
	p->end_reserve_s = 0;
	p->serial_bytes_per_s = serial_bytes_per_s > 0 ? serial_bytes_per_s : 0;
	p->pace = 1;
	p->bytes_per_rep = 0;
	p->n = 0;
	p->first = 0;
	p->setup_done = 0;
	p->n_skipped = 0;
	p->n_workloads_skipped = 0;
	p->n_lost = 0;
	p->scale = 1;
	p->reps_cap = 0;
	p->estimated_s = 0;
	p->how = "not fitted";
	memset(p->share, 0, sizeof(p->share));
}

struct plan_item *plan_add(struct plan *p, uint16_t workload, const char *name)
{
	if (p->n >= PLAN_MAX_ITEMS || workload >= PLAN_MAX_WORKLOADS) {
		p->n_lost++;
		return 0;
	}
	struct plan_item *it = &p->item[p->n++];
	memset(it, 0, sizeof(*it));
	it->workload = workload;
	fmt_snprintf(it->name, sizeof(it->name), "%s", name ? name : "");
	return it;
}

void plan_group(struct plan *p, uint16_t workload, uint8_t group, const char *name)
{
	if (workload < PLAN_MAX_WORKLOADS && group < PLAN_MAX_GROUPS)
		fmt_snprintf(p->share[workload].group[group].name, PLAN_GROUP_LEN, "%s", name ? name : "");
}

void plan_set_setup(struct plan *p, uint16_t workload, double seconds)
{
	if (workload < PLAN_MAX_WORKLOADS)
		p->share[workload].setup_s = seconds > 0 ? seconds : 0;
}

double plan_item_base_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps)
{
	double rep = (double)units * it->unit_s + it->rep_fixed_s;
	double bytes = (double)it->out_bytes + (double)it->out_per_unit * (double)units + (double)p->bytes_per_rep * reps;
	double out = p->serial_bytes_per_s > 0 ? bytes / p->serial_bytes_per_s : 0;
	return it->once_s + (double)(reps + 1) * rep + out;
}

double plan_item_seconds(const struct plan *p, const struct plan_item *it, uint64_t units, uint32_t reps)
{
	return p->pace * plan_item_base_seconds(p, it, units, reps);
}

double plan_rep_seconds(const struct plan *p, const struct plan_item *it)
{
	return p->pace * ((double)it->units * it->unit_s + it->rep_fixed_s);
}

uint32_t plan_least_reps(const struct plan_item *it)
{
	return MIN((uint32_t)PLAN_MIN_REPS, it->want_reps);
}

double plan_available_s(const struct plan *p)
{
	return (p->budget_s - p->end_reserve_s - p->spent_s) * (1 - PLAN_RESERVE);
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
	if (workload < PLAN_MAX_WORKLOADS && !p->share[workload].skip)
		s += p->share[workload].setup_s * p->pace;
	if (n)
		*n = k;
	if (skipped)
		*skipped = sk;
	return s;
}

double plan_calibration_spread(const struct plan *p)
{
	double moved = 0, planned = 0;
	for (uint32_t i = p->first; i < p->n; i++) {
		const struct plan_item *it = &p->item[i];
		if (it->skip || it->unit_spread_s <= 0)
			continue;
		double n = (double)(it->reps + 1) * (double)it->units;
		moved += n * it->unit_spread_s;
		planned += n * it->unit_s;
	}
	return planned > 0 ? moved / planned : -1;
}

double plan_left_s(const struct plan *p, uint32_t from)
{
	double s = 0;
	bool begun[PLAN_MAX_WORKLOADS] = { false };
	for (uint32_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->item[i];
		uint16_t w = it->workload;
		if (i < from) {
			begun[w] = true; /* its set-up is done */
			continue;
		}
		if (!it->skip)
			s += it->planned_s;
		if (!begun[w] && !((p->setup_done >> w) & 1) && !p->share[w].skip)
			s += p->share[w].setup_s * p->pace;
		begun[w] = true;
	}
	return s;
}
