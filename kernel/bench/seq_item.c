/* seq_item.c - the wl_* services a workload calls, and the walk over its configurations; see workload.h and seq_item.h. */
#include "seq_item.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "report.h"
#include "sequence.h"

/* ---- Private Types and Variables ------------------------------------------ */
struct absent {
	uint16_t w;                  /* its workload */
	uint8_t row;                 /* its kind */
	uint32_t before;             /* the plan item it stands before (the plan's length then) */
	struct wl_cfg cfg;
	char why[PLAN_WHY_LEN];
};

static struct wl_cfg cfgs[PLAN_MAX_ITEMS];       /* each plan item's own description */
static struct absent absents[SEQ_MAX_ABSENT];
static uint32_t n_absent;
static struct wl_item inner;                     /* wl_inner's: one at a time */

const char *const WL_NO_RESULT[] = { 0 };

/* ---- Private Functions ---------------------------------------------------- */
static struct wl_item *outer_of(struct wl_item *c)
{
	return c->outer ? c->outer : c;
}

/* The variants a configuration of kind kd writes: its own when it names
 * one (a kind's single variant that a machine lacks is absent alone), else
 * the kind's, else its name. */
static unsigned variants_of(const struct wl_kind *kd, const struct wl_cfg *cfg, const char **out, unsigned cap)
{
	unsigned n = 0;
	if (!cap)
		return 0;
	if (cfg->variant) {
		out[n++] = cfg->variant;
	} else if (kd->variants) {
		for (const char *const *v = kd->variants; *v && n < cap; v++)
			out[n++] = *v;
	} else {
		out[n++] = cfg->name;
	}
	return n;
}

static void write_skipped(const struct workload *wl, const struct wl_kind *kd, const struct wl_cfg *cfg,
			  const struct wl_ctx *x, const char *why)
{
	const char *v[8];
	unsigned n = variants_of(kd, cfg, v, ARRAY_SIZE(v));
	for (unsigned i = 0; i < n; i++) {
		struct rec *r = report_result_open(wl->name, v[i], kd->all_cpus ? x->online : 0);
		if (kd->params)
			kd->params(x, cfg, r);
		report_result_close(r, "skipped", why);
		kprintf("  %-22s skipped: %s\n", v[i], why);
	}
	if (!n)
		kprintf("  %-22s skipped: %s\n", cfg->name, why);
	if (kd->skipped)
		kd->skipped(x, cfg, why);
}

static void absent_add(struct wl_plan *wp, unsigned kind, const struct wl_cfg *cfg, const char *why)
{
	if (n_absent >= SEQ_MAX_ABSENT) {
		console_error(wp->wl->name, "%s: absent (%s), past the %u absent configurations kept: no result",
			      cfg->name, why, SEQ_MAX_ABSENT);
		return;
	}
	struct absent *a = &absents[n_absent++];
	a->w = wp->w;
	a->row = (uint8_t)kind;
	a->before = wp->p->n;
	a->cfg = *cfg;
	fmt_snprintf(a->why, sizeof(a->why), "%s", why);
}

/* Workload w's absent configurations that stand before item k, from *a on. */
static void emit_absent(const struct workload *wl, uint16_t w, const struct wl_ctx *x, uint32_t *a, uint32_t k)
{
	for (; *a < n_absent; (*a)++) {
		const struct absent *ab = &absents[*a];
		if (ab->w != w)
			continue;
		if (ab->before > k)
			break;
		write_skipped(wl, &wl->kinds[ab->row], &ab->cfg, x, ab->why);
	}
}

/* ---- Public Functions: the framework's ------------------------------------ */
void seq_item_reset(void)
{
	n_absent = 0;
}

void seq_item_plan(struct plan *p, uint16_t w, const struct workload *wl, const struct wl_ctx *x)
{
	struct wl_plan wp = { p, w, wl, p->n };
	for (unsigned g = 0; wl->groups && wl->groups[g] && g < PLAN_MAX_GROUPS; g++)
		plan_group(p, w, (uint8_t)g, wl->groups[g]);
	wl->plan(x, &wp);
}

void seq_item_walk(struct plan *p, uint16_t w, const struct workload *wl, const struct wl_ctx *x)
{
	signed char wl_up = 0, kind_up[WL_MAX_KINDS] = { 0 }; /* 0 not tried, 1 set up, -1 failed */
	const char *wl_why = 0, *kind_why[WL_MAX_KINDS] = { 0 };
	uint32_t a = 0;
	for (uint32_t k = 0; k < p->n; k++) {
		struct plan_item *it = &p->item[k];
		if (it->workload != w)
			continue;
		emit_absent(wl, w, x, &a, k);
		seq_item_begin(it); /* pace, refit, deadline: read it->skip, units and reps after this */
		const struct wl_kind *kd = &wl->kinds[it->row];
		const char *no = it->skip ? seq_skip_reason(it)
			       : kd->stop == WL_STOP_ONCE && !seq_once_fits() ? seq_stop_reason() : 0;
		if (!no && !wl_up)
			wl_up = !wl->setup || wl->setup(x, &wl_why) ? 1 : -1;
		if (!no && wl_up < 0)
			no = wl_why ? wl_why : "the workload's set-up failed";
		if (!no && !kind_up[it->row])
			kind_up[it->row] = !kd->setup || kd->setup(x, &kind_why[it->row]) ? 1 : -1;
		if (!no && kind_up[it->row] < 0)
			no = kind_why[it->row] ? kind_why[it->row] : "its set-up failed";
		if (no) {
			write_skipped(wl, kd, &cfgs[k], x, no);
			continue;
		}
		struct wl_item c = { .wl = wl, .x = x, .it = it, .cfg = &cfgs[k], .kind = kd };
		kd->run(&c);
		if (!c.results && kd->variants != WL_NO_RESULT)
			console_error(wl->name, "%s wrote no result", it->name);
	}
	emit_absent(wl, w, x, &a, UINT32_MAX);
	for (unsigned r = 0; r < wl->n_kinds && r < WL_MAX_KINDS; r++)
		if (kind_up[r] > 0 && wl->kinds[r].teardown)
			wl->kinds[r].teardown(x);
	if (wl_up > 0 && wl->teardown)
		wl->teardown(x);
	if (wl->finish)
		wl->finish(x);
}

/* ---- Public Functions: planning ------------------------------------------- */
void wl_add(struct wl_plan *wp, unsigned kind, const struct wl_cfg *cfg, const struct wl_cost *cost)
{
	if (kind >= wp->wl->n_kinds || kind >= WL_MAX_KINDS) { /* a bug in the workload's plan: said, not run */
		console_error(wp->wl->name, "%s: kind %u is not in its table of %u", cfg->name, kind, wp->wl->n_kinds);
		return;
	}
	const struct wl_kind *kd = &wp->wl->kinds[kind];
	struct plan_item *it = plan_add(wp->p, wp->w, cfg->name);
	if (!it) { /* counted in the plan's n_lost, and said in its place */
		absent_add(wp, kind, cfg, "not in the plan (it was full)");
		return;
	}
	cfgs[it - wp->p->item] = *cfg;
	const char *v[8];
	it->row = (uint8_t)kind;
	it->group = cost->group;
	it->unit = (uint8_t)kd->unit;
	it->essential = cost->essential;
	it->want_units = cost->want_units;
	it->min_units = cost->min_units;
	it->want_reps = kd->stop == WL_STOP_REPS ? cost->want_reps : 0;
	it->unit_s = cost->unit_s;
	it->unit_spread_s = cost->unit_spread_s;
	it->rep_fixed_s = cost->rep_fixed_s;
	it->once_s = cost->once_s;
	it->out_bytes = cost->out_bytes + WL_RESULT_BYTES * variants_of(kd, cfg, v, ARRAY_SIZE(v));
	it->out_per_unit = cost->out_per_unit;
}

void wl_absent(struct wl_plan *wp, unsigned kind, const struct wl_cfg *cfg, const char *why)
{
	if (kind >= wp->wl->n_kinds || kind >= WL_MAX_KINDS) {
		console_error(wp->wl->name, "%s: kind %u is not in its table of %u", cfg->name, kind, wp->wl->n_kinds);
		return;
	}
	absent_add(wp, kind, cfg, why);
}

void wl_set_setup(struct wl_plan *wp, double seconds)
{
	plan_set_setup(wp->p, wp->w, seconds);
}

void wl_group(struct wl_plan *wp, uint8_t group, const char *name)
{
	plan_group(wp->p, wp->w, group, name);
}

struct plan_item *wl_planned(struct wl_plan *wp, uint32_t *n)
{
	*n = wp->p->n - wp->first;
	return &wp->p->item[wp->first];
}

const struct wl_cfg *wl_planned_cfg(struct wl_plan *wp, uint32_t k)
{
	return &cfgs[wp->first + k];
}

uint64_t wl_calibrate(uint64_t units, uint64_t max, wl_calib_fn run, void *arg, double *loop_s)
{
	*loop_s = 0;
	for (int round = 0; round < WL_CALIB_ROUNDS; round++) {
		if (!run(arg, units, loop_s))
			return 0;
		if (*loop_s >= WL_CALIB_TARGET_S || units >= max)
			break;
		double grow = *loop_s > 0 ? WL_CALIB_TARGET_S / *loop_s * WL_CALIB_GROW_MARGIN : WL_CALIB_GROW_MAX;
		units = MIN(max, (uint64_t)((double)units * MIN(WL_CALIB_GROW_MAX, MAX(2.0, grow))));
	}
	return units;
}

/* ---- Public Functions: measuring ------------------------------------------ */
const struct wl_ctx *wl_ctx(const struct wl_item *c)
{
	return c->x;
}

const struct wl_cfg *wl_cfg(const struct wl_item *c)
{
	return c->cfg ? c->cfg : c->outer ? c->outer->cfg : 0;
}

uint64_t wl_units(const struct wl_item *c)
{
	return c->it ? c->it->units : c->units;
}

uint32_t wl_reps(const struct wl_item *c)
{
	return c->it ? c->it->reps : c->reps;
}

bool wl_rep(struct wl_item *c)
{
	if (c->started > wl_reps(c))
		return false;
	if (c->it) { /* a configuration under way: its deadline (calibration and inner runs have none) */
		if (c->started)
			seq_tick();
		if (!seq_rep_fits())
			return false; /* why it stopped is the deadline's: wl_result_close marks it */
	}
	c->started++;
	return true;
}

bool wl_timed(const struct wl_item *c)
{
	return c->started >= 2;
}

bool wl_step(struct wl_item *c)
{
	if (!c->it)
		return true;
	if (c->started++)
		seq_tick();
	return seq_step_fits();
}

uint64_t wl_bound_ms(struct wl_item *c)
{
	struct wl_item *o = outer_of(c);
	return o->it ? seq_timeout_ms(o->it) : WL_CALIB_TIMEOUT_MS;
}

struct wl_item *wl_inner(struct wl_item *c, const struct wl_ctx *x, uint64_t units, uint32_t reps)
{
	inner = (struct wl_item){ .wl = c ? c->wl : 0, .x = x, .outer = c, .units = units, .reps = reps };
	return &inner;
}

struct rec *wl_result_open(struct wl_item *c, const char *variant, const struct cpuset *set)
{
	struct wl_item *o = outer_of(c);
	o->results++;
	return report_result_open(o->wl->name, variant, set);
}

void wl_fields(struct wl_item *c, struct rec *r)
{
	struct wl_item *o = outer_of(c);
	seq_item_fields(r, o->it, &o->mark); /* planned_s, measured_s, reps; what its results close as */
}

void wl_record_close(struct wl_item *c, struct rec *r, enum wl_err err, const char *why)
{
	struct wl_item *o = outer_of(c);
	bool cut = err == WL_OK && o->it && seq_item_short();
	rec_str(r, "check", err == WL_ERR_OVERRUN ? "overrun" : err != WL_OK ? "fail" : cut ? "short" : "ok");
	if (cut)
		rec_str(r, "reason", seq_stop_reason());
	else if (err != WL_OK && why)
		rec_str(r, "reason", why);
	console_rec_emit(r);
}

void wl_result_close(struct wl_item *c, struct rec *r, enum wl_err err, const char *why)
{
	wl_fields(c, r);
	report_result_close_marked(r, err == WL_OK ? "ok" : err == WL_ERR_OVERRUN ? "overrun" : "fail",
				   err == WL_OK ? 0 : why, &outer_of(c)->mark);
}

void wl_result_short(struct wl_item *c, struct rec *r, const char *why)
{
	wl_fields(c, r);
	struct report_mark m = outer_of(c)->mark;
	m.ok_as = "short";
	m.ok_why = why;
	report_result_close_marked(r, "ok", 0, &m);
}

void wl_result_skip(struct wl_item *c, const char *variant, const char *why)
{
	struct wl_item *o = outer_of(c);
	o->results++;
	struct rec *r = report_result_open(o->wl->name, variant, o->kind && o->kind->all_cpus ? o->x->online : 0);
	if (o->kind && o->kind->params)
		o->kind->params(o->x, o->cfg, r);
	report_result_close(r, "skipped", why);
	kprintf("  %-22s skipped: %s\n", variant, why);
	if (o->kind && o->kind->skipped)
		o->kind->skipped(o->x, o->cfg, why);
}

void wl_final_line(const char *line)
{
	seq_final_line(line);
}
