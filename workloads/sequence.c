/* sequence.c - calibrate, plan, show, run: the run's workloads in order; see sequence.h. */
#include "sequence.h"
#include "reps.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "instr.h"
#include "lib.h"
#include "options.h"
#include "run.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define SAMPLE_BYTES 11 /* one number of a samples list (up to 10 digits and a comma) */
#define NOTE_LEN 160
#define PLAN_REFIT_NOTE_S 1.0 /* a refit that moves the end by more than this is said */
#define STATUS_MS 1000               /* the status line at most this often */
#define PLAN_CONFIGS_PER_RECORD 300  /* configurations listed in one plan_configs record */
#define DUR_LEN 24
#define LINE_LEN 160

/* ---- Private Variables ---------------------------------------------------- */
static struct plan the_plan;
static struct seq_run *cur;
static const struct plan_item *cur_item;
static uint64_t item_start, last_progress, last_status;
static char samples_note[NOTE_LEN];              /* why the plan left the samples out, or empty */

/* ---- Private Functions ---------------------------------------------------- */
static void dur(char *buf, size_t cap, double s)
{
	uint64_t t = s > 0 ? (uint64_t)(s + 0.5) : 0;
	if (t >= 3600)
		fmt_snprintf(buf, cap, "%lluh%02llum", (unsigned long long)(t / 3600),
			     (unsigned long long)(t % 3600 / 60));
	else if (t >= 60)
		fmt_snprintf(buf, cap, "%llum%02llus", (unsigned long long)(t / 60), (unsigned long long)(t % 60));
	else
		fmt_snprintf(buf, cap, "%llus", (unsigned long long)t);
}

static uint64_t ms_ticks(uint64_t ms)
{
	return tsc_deadline_ms(ms) - tsc_read();
}

/* What is left: the items after the current one, and what the current one still has. */
static double remaining_s(void)
{
	const struct plan *p = &the_plan;
	if (!cur_item)
		return p->estimated_s - p->spent_s;
	uint32_t k = (uint32_t)(cur_item - p->item);
	double left = 0;
	for (uint32_t i = k + 1; i < p->n; i++)
		left += p->item[i].planned_s;
	double in = seq_seconds(tsc_read() - item_start);
	return left + (cur_item->planned_s > in ? cur_item->planned_s - in : 0);
}

static void progress(bool text)
{
	char el[DUR_LEN], left[DUR_LEN], line[LINE_LEN];
	uint64_t now = tsc_read();
	dur(el, sizeof(el), seq_seconds(now - cur->start_tsc));
	dur(left, sizeof(left), remaining_s());
	uint32_t k = cur_item ? (uint32_t)(cur_item - the_plan.item) + 1 : 0;
	fmt_snprintf(line, sizeof(line), "%s elapsed, about %s left: %s %u of %u%s%s", el, left,
		     cur_item ? wl_all[cur_item->workload].name : "configuration", k, the_plan.n,
		     cur_item ? ", " : "", cur_item ? cur_item->name : "");
	if (text) {
		kprintf("progress: %s\n", line);
		last_progress = now;
	}
	console_status(line);
	last_status = now;
}

/* How far a fit had to give way: 0 as asked (or no budget) .. 3 configurations skipped. */
static int fit_severity(const struct plan *p)
{
	static const char *const steps[] = { "units scaled", "repetitions lowered", "configurations skipped" };
	for (int i = 0; i < 3; i++)
		if (p->how && !strcmp(p->how, steps[i]))
			return i + 1;
	return 0;
}

/* Samples cost serial time. When the budget cannot afford them, a fit without
 * them that gives way less wins, and the run leaves them out (and says so). */
static void fit_samples(struct plan *p)
{
	if (!p->bytes_per_rep || !fit_severity(p))
		return;
	int with = fit_severity(p);
	uint32_t skipped = p->n_skipped, cap = p->reps_cap;
	double scale = p->scale, est = p->estimated_s;
	p->bytes_per_rep = 0;
	plan_fit(p);
	bool better = fit_severity(p) < with || p->n_skipped < skipped || p->scale > scale ||
		      (cap && (!p->reps_cap || p->reps_cap > cap));
	if (!better) {
		p->bytes_per_rep = SAMPLE_BYTES;
		plan_fit(p);
		return;
	}
	reps_keep_samples(false);
	fmt_snprintf(samples_note, sizeof(samples_note),
		     "left out: printing every repetition does not fit the budget (%.0f s as planned with them)", est);
	kprintf("plan: samples %s\n", samples_note);
}

static void emit_plan_records(const struct seq_run *s, const struct plan *p)
{
	struct rec *r = console_rec_open("plan");
	if (p->budget_s > 0)
		rec_f64(r, "budget_s", p->budget_s, 0);
	else
		rec_null(r, "budget_s");
	rec_f64(r, "estimated_s", p->estimated_s, 1);
	rec_f64(r, "calibration_s", p->spent_s, 1);
	rec_str(r, "fit", p->how);
	rec_f64(r, "units_scale", p->scale, 4);
	if (p->reps_cap)
		rec_u64(r, "reps_cap", p->reps_cap);
	rec_u64(r, "configs", p->n);
	rec_u64(r, "skipped", p->n_skipped);
	if (p->n_lost)
		rec_u64(r, "not_planned", p->n_lost);
	rec_bool(r, "plan_only", s->plan_only);
	rec_str(r, "samples", samples_note[0] ? samples_note : reps_samples_on() ? "kept" : "off (samples=off)");
	rec_arr_begin(r, "workloads");
	for (unsigned w = 0; w < wl_count; w++) {
		if (!((s->workloads >> w) & 1))
			continue;
		uint32_t n, sk;
		double sec = plan_workload_seconds(p, (uint16_t)w, &n, &sk);
		rec_obj_begin(r, 0);
		rec_str(r, "name", wl_all[w].name);
		rec_f64(r, "estimated_s", sec, 1);
		rec_u64(r, "configs", n);
		rec_u64(r, "skipped", sk);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	console_rec_emit(r);

	/* Every configuration, a few hundred per record. */
	for (unsigned w = 0; w < wl_count; w++) {
		uint32_t cursor = 0, listed = 0;
		const struct plan_item *it = plan_next(&the_plan, (uint16_t)w, &cursor);
		while (it) {
			r = console_rec_open("plan_configs");
			rec_str(r, "workload", wl_all[w].name);
			rec_u64(r, "first", listed);
			rec_arr_begin(r, "configs");
			for (uint32_t k = 0; it && k < PLAN_CONFIGS_PER_RECORD; k++, listed++) {
				rec_obj_begin(r, 0);
				rec_str(r, "name", it->name);
				if (it->skip) {
					rec_str(r, "skipped", it->why);
				} else {
					rec_u64(r, it->unit == PLAN_UNIT_PAIRS ? "pairs"
						   : it->unit == PLAN_UNIT_PASSES ? "passes" : "iters", it->units);
					rec_u64(r, "reps", it->reps);
					rec_f64(r, "planned_s", it->planned_s, 3);
				}
				rec_obj_end(r);
				it = plan_next(&the_plan, (uint16_t)w, &cursor);
			}
			rec_arr_end(r);
			console_rec_emit(r);
		}
	}
}

static void print_plan(const struct seq_run *s, const struct plan *p)
{
	char b[DUR_LEN], e[DUR_LEN], c[DUR_LEN];
	dur(e, sizeof(e), p->estimated_s);
	dur(c, sizeof(c), p->spent_s);
	if (p->budget_s > 0) {
		dur(b, sizeof(b), p->budget_s);
		kprintf("\nplan: about %s in all, budget %s (%s); %s so far (start-up and calibration)\n", e, b,
			p->how, c);
	} else {
		kprintf("\nplan: about %s in all, no budget (the quick profile keeps its sizes); %s so far\n", e, c);
	}
	if (p->scale < 1)
		kprintf("plan: iterations and sampled pairs scaled to %.1f%% of the profile's\n", 100 * p->scale);
	if (p->reps_cap)
		kprintf("plan: at most %u repetitions per configuration\n", p->reps_cap);
	if (p->n_skipped)
		kprintf("plan: %u configuration(s) skipped: they do not fit the budget even at their minimum\n",
			p->n_skipped);
	if (p->n_lost)
		console_error("plan", "%u configurations past the plan's limit of %u were not planned", p->n_lost,
			      PLAN_MAX_ITEMS);
	for (unsigned w = 0; w < wl_count; w++) {
		if (!((s->workloads >> w) & 1))
			continue;
		uint32_t n, sk;
		dur(e, sizeof(e), plan_workload_seconds(p, (uint16_t)w, &n, &sk));
		kprintf("  %-12s %4u configurations, %u skipped, about %s\n", wl_all[w].name, n, sk, e);
		if (!s->plan_only)
			continue;
		uint32_t cursor = 0;
		for (const struct plan_item *it = plan_next(&the_plan, (uint16_t)w, &cursor); it;
		     it = plan_next(&the_plan, (uint16_t)w, &cursor)) {
			if (it->skip)
				kprintf("    %-52s skipped: %s\n", it->name, it->why);
			else if (it->reps)
				kprintf("    %-52s %12llu %-6s x %3u reps %10.2f s\n", it->name,
					(unsigned long long)it->units,
					it->unit == PLAN_UNIT_PAIRS ? "pairs" : it->unit == PLAN_UNIT_PASSES ? "passes" : "iters",
					it->reps, it->planned_s);
			else
				kprintf("    %-52s %12llu %-6s once     %10.2f s\n", it->name,
					(unsigned long long)it->units,
					it->unit == PLAN_UNIT_PAIRS ? "pairs" : it->unit == PLAN_UNIT_PASSES ? "passes" : "iters",
					it->planned_s);
		}
	}
}

/* "clean, cv <= 1.2%", "3 of 33 flagged, cv <= 9.0%", "unchecked (no noise
 * detector), cv <= 4.1%": what a workload's results say about noise. */
static void noise_mark(char *buf, size_t cap, struct reps_tally t)
{
	if (!t.results) {
		fmt_snprintf(buf, cap, "no repeated measurement");
		return;
	}
	if (t.flagged)
		fmt_snprintf(buf, cap, "%u of %u flagged, cv <= %.1f%%", t.flagged, t.results, t.max_cv * 100);
	else if (t.unchecked == t.results)
		fmt_snprintf(buf, cap, "unchecked (no noise detector), cv <= %.1f%%", t.max_cv * 100);
	else
		fmt_snprintf(buf, cap, "clean, cv <= %.1f%%", t.max_cv * 100);
}

/* After a workload: fit what is left into what is left of the budget, so
 * that estimates that erred (a calibration under load, a cost that does not
 * scale as assumed) do not carry the run past its budget. */
static void refit_after(struct seq_run *s, struct plan *p, uint16_t done)
{
	if (p->budget_s <= 0)
		return;
	uint32_t first = p->first;
	for (uint32_t j = p->first; j < p->n; j++)
		if (p->item[j].workload == done)
			first = j + 1;
	if (first >= p->n)
		return;
	double spent = seq_seconds(tsc_read() - s->start_tsc);
	double before = p->estimated_s;
	uint32_t skipped_before = p->n_skipped;
	plan_refit(p, first, spent);
	double drift = before - p->estimated_s;
	if (drift > PLAN_REFIT_NOTE_S || drift < -PLAN_REFIT_NOTE_S || p->n_skipped != skipped_before)
		kprintf("plan: %.0f s used of %.0f s; the remaining %u configuration(s) refitted (%s): "
			"the run now ends at about %.0f s%s\n",
			spent, p->budget_s, p->n - first, p->how, p->estimated_s,
			p->n_skipped > skipped_before ? ", some skipped to keep the budget" : "");
}

static void run_one(struct seq_run *s, unsigned i, unsigned k, unsigned total)
{
	char line[LINE_LEN];
	kprintf("\n== workload %u of %u: %s - %s\n", k, total, wl_all[i].name, wl_all[i].summary);
	fmt_snprintf(line, sizeof(line), "workload %u of %u: %s", k, total, wl_all[i].name);
	console_status(line);
	unsigned long fails0 = finish_failures(), errors0 = console_errors();
	instr_goal(wl_all[i].counters);
	s->ctx.index = (uint16_t)i;
	uint64_t t0 = tsc_read();
	reps_tally_take();
	wl_all[i].run(&s->ctx);
	uint64_t ms = tsc_to_us(tsc_read() - t0) / 1000;
	uint32_t n, sk;
	double planned = plan_workload_seconds(&the_plan, (uint16_t)i, &n, &sk);
	kprintf("== %s finished in %llu ms (planned %.0f ms)\n", wl_all[i].name, (unsigned long long)ms,
		planned * 1000);
	struct rec *r = console_rec_open("workload");
	rec_str(r, "name", wl_all[i].name);
	rec_u64(r, "elapsed_ms", ms);
	rec_f64(r, "planned_s", planned, 1);
	rec_u64(r, "configs", n);
	rec_u64(r, "skipped", sk);
	console_rec_emit(r);
	char noise[LINE_LEN];
	noise_mark(noise, sizeof(noise), reps_tally_take());
	fmt_snprintf(line, sizeof(line), "%-12s %8llu ms  %s, %lu error record(s); %s", wl_all[i].name,
		     (unsigned long long)ms, finish_failures() == fails0 ? "ok" : "FAIL",
		     console_errors() - errors0, noise);
	console_summary_line(line);
	if (s->after_workload)
		s->after_workload(); /* the kernel saves the log to the stick: a crash keeps what came before */
}

/* ---- Public Functions ----------------------------------------------------- */
void seq_from_options(struct seq_run *s, const struct options *o)
{
	bool quick = o->profile == OPT_PROFILE_QUICK;
	*s = (struct seq_run){
		.ctx = {
			.quick = quick,
			.reps = o->reps ? o->reps : quick ? SEQ_QUICK_REPS : SEQ_FULL_REPS,
			.flush = o->flush == OPT_FLUSH_WBINVD,
			.selftest_iters = o->selftest_iters,
			.iters = o->iters,
			.selftest_fault = o->selftest == OPT_SELFTEST_FAULT_BSP ? 1
					: o->selftest == OPT_SELFTEST_FAULT_AP ? 2
					: o->selftest == OPT_SELFTEST_HANG_AP ? 3 : 0,
			.timeout_ms = run_default_timeout_ms,
		},
		.workloads = o->workloads,
		.budget_s = o->budget_s ? o->budget_s : quick ? 0 : OPT_BUDGET_FULL_S,
		.plan_only = o->plan == OPT_ON,
		.run_timeout_ms = o->run_timeout_ms,
	};
}

void seq_go(struct seq_run *s)
{
	cur = s;
	cur_item = 0;
	last_progress = last_status = tsc_read();
	struct plan *p = &the_plan;
	plan_reset(p, s->budget_s, s->serial_bytes_per_s);
	p->bytes_per_rep = reps_samples_on() ? SAMPLE_BYTES : 0;
	s->ctx.plan = p;

	/* Calibration: each workload adds its configurations and their unit costs. */
	unsigned total = 0;
	for (unsigned i = 0; i < wl_count; i++)
		total += (s->workloads >> i) & 1;
	kprintf("\nplan: calibrating %u workload(s)\n", total);
	console_status("calibrating: what one unit of each loop costs");
	uint64_t saved_bound = run_default_timeout_ms;
	for (unsigned i = 0; i < wl_count; i++) {
		if (!((s->workloads >> i) & 1))
			continue;
		s->ctx.index = (uint16_t)i;
		s->ctx.timeout_ms = SEQ_CALIB_TIMEOUT_MS;
		run_default_timeout_ms = SEQ_CALIB_TIMEOUT_MS;
		instr_goal(PMU_GOAL_COUNT); /* no counters while calibrating */
		wl_all[i].plan(&s->ctx);
	}
	run_default_timeout_ms = saved_bound;
	p->spent_s = seq_seconds(tsc_read() - s->start_tsc);
	plan_fit(p);
	fit_samples(p);
	print_plan(s, p);
	emit_plan_records(s, p);
	if (s->plan_only)
		return;

	unsigned k = 0;
	double first_estimate = p->estimated_s;
	for (unsigned i = 0; i < wl_count; i++)
		if ((s->workloads >> i) & 1) {
			run_one(s, i, ++k, total);
			refit_after(s, p, (uint16_t)i);
		}
	cur_item = 0;
	run_default_timeout_ms = saved_bound;
	char el[DUR_LEN], est[DUR_LEN];
	dur(el, sizeof(el), seq_seconds(tsc_read() - s->start_tsc));
	dur(est, sizeof(est), first_estimate);
	kprintf("progress: all workloads done in %s (planned %s)\n", el, est);
}

void seq_item_begin(const struct wl_ctx *ctx, const struct plan_item *it)
{
	(void)ctx;
	cur_item = it;
	item_start = tsc_read();
	run_default_timeout_ms = seq_timeout_ms(it);
	seq_tick();
}

uint64_t seq_timeout_ms(const struct plan_item *it)
{
	if (cur && cur->run_timeout_ms)
		return cur->run_timeout_ms;
	double ms = plan_rep_seconds(it) * 1000.0 * SEQ_BOUND_MARGIN;
	return ms > SEQ_BOUND_FLOOR_MS ? (uint64_t)ms : SEQ_BOUND_FLOOR_MS;
}

void seq_tick(void)
{
	if (!cur)
		return;
	uint64_t now = tsc_read();
	if (now - last_progress >= ms_ticks(SEQ_PROGRESS_MS))
		progress(true);
	else if (now - last_status >= ms_ticks(STATUS_MS))
		progress(false);
}

void seq_item_report(struct rec *r, const struct plan_item *it)
{
	rec_f64(r, "planned_s", it->planned_s, 3);
	rec_f64(r, "measured_s", seq_seconds(tsc_read() - item_start), 3);
}

double seq_seconds(uint64_t ticks)
{
	uint64_t hz = tsc_hz();
	return hz ? (double)ticks / (double)hz : 0;
}

static void empty_fn(const struct run_thread *t)
{
	(void)t;
}

double seq_calibrate_fixed(const struct cpuset *set, bool flush, unsigned tries)
{
	static struct run_result res;
	uint64_t best = ~0ull;
	for (unsigned i = 0; i < tries; i++) {
		uint64_t t0 = tsc_read();
		if (run_on(set, empty_fn, 0, flush ? RUN_FLUSH : 0, SEQ_CALIB_TIMEOUT_MS, &res) != RUN_OK)
			continue;
		uint64_t dt = tsc_read() - t0;
		best = MIN(best, dt);
	}
	return best == ~0ull ? 0 : seq_seconds(best);
}
