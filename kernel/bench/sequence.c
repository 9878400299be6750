/* sequence.c - calibrate, plan, show, run: the run's workloads in order, each configuration against its deadline; see sequence.h. */
#include "sequence.h"
#include "reps.h"
#include "console.h"
#include "deadline.h"
#include "finish.h"
#include "fmt.h"
#include "instr.h"
#include "lib.h"
#include "options.h"
#include "plan_fit.h"
#include "report.h"
#include "run.h"
#include "seq_item.h"
#include "seq_report.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define NOTE_LEN 160
#define STATUS_MS 1000               /* the status line at most this often */
#define DUR_LEN 24
#define LINE_LEN 160
#define FINAL_LEN 320               /* the noise line: a count per cause */
/* What the run keeps at the budget's end for its last records (the closing
 * state and done records, a few per CPU) and the save: a fiftieth of the
 * budget, 1 to 5 s, the printing at the serial port's speed, and one and a
 * half times the longest save after a workload. */
#define END_RESERVE_FRACTION 0.02
#define END_RESERVE_MIN_S 1.0
#define END_RESERVE_MAX_S 5.0
#define END_BYTES 2048
#define END_BYTES_PER_CPU 64
#define END_SAVE_MARGIN 1.5
#define SLOW_PAD_MAX_S 60.0          /* slow=: the longest one wait (bounded, as every wait) */

/* ---- Private Variables ---------------------------------------------------- */
static struct plan the_plan;
static struct deadline dl;
static struct seq_run *cur;
static struct plan_item *cur_item;               /* the configuration under way (NULL: none) */
static double bound_cut_s;                       /* > 0: the last bound handed out was cut to the budget's end, this long */
static uint32_t next_item;                       /* the first configuration not begun */
static uint64_t item_start, last_progress, last_status;
static char samples_note[NOTE_LEN];              /* why the plan left the samples out, or empty */
static struct { const char *name; unsigned k, n; } calibrating; /* the workload calibrating, before the plan */
static double end_reserve_s, longest_save_s;
static uint64_t slow_mark;                       /* slow=: the work since here is padded at the next checkpoint */
static bool slowing;
static char final_line[FINAL_LEN];               /* seq_final_line: the run's last text line */

/* ---- Private Functions ---------------------------------------------------- */
/* The run's clock: the TSC, or the one a test injects (seq_run.clock). */
static uint64_t ticks_now(void)
{
	return cur && cur->clock ? cur->clock() : tsc_read();
}

static uint64_t ms_ticks(uint64_t ms)
{
	return ms * tsc_hz() / 1000;
}

/* Seconds since the run started: the budget's clock. */
static double now_s(void)
{
	return tsc_seconds(ticks_now() - cur->start_tsc);
}

static bool budgeted(void)
{
	return cur && cur->budget_s > 0;
}

/* slow= (debug): the work since the last checkpoint, between repetitions
 * and configurations (never inside a timed region), is padded with a
 * busy wait to slow x as long, bounded by SLOW_PAD_MAX_S and the budget's
 * end: a machine that turned slower after the plan was made. */
static void slow_pad(void)
{
	if (!slowing)
		return;
	uint64_t now = ticks_now();
	double pad = (double)(cur->slow - 1) * tsc_seconds(now - slow_mark);
	if (budgeted())
		pad = MIN(pad, dl.end_s - now_s());
	pad = MIN(pad, SLOW_PAD_MAX_S);
	uint64_t hz = tsc_hz();
	if (pad > 0 && hz) {
		uint64_t until = now + (uint64_t)(pad * (double)hz);
		while (ticks_now() < until)
			__builtin_ia32_pause();
	}
	slow_mark = ticks_now();
}

/* What is left: the configurations not begun, and what the current one still has. */
static double remaining_s(void)
{
	const struct plan *p = &the_plan;
	double left = plan_left_s(p, next_item);
	if (cur_item) {
		double in = tsc_seconds(ticks_now() - item_start);
		left += cur_item->planned_s > in ? cur_item->planned_s - in : 0;
	}
	return left;
}

static void progress(bool text)
{
	char el[DUR_LEN], left[DUR_LEN], line[LINE_LEN];
	uint64_t now = ticks_now();
	seq_dur(el, sizeof(el), tsc_seconds(now - cur->start_tsc));
	if (calibrating.name) { /* no plan yet: nothing to count down, no configuration "0 of n" */
		fmt_snprintf(line, sizeof(line), "%s elapsed: calibrating %s (workload %u of %u), before the plan", el,
			     calibrating.name, calibrating.k, calibrating.n);
		if (text) {
			kprintf("progress: %s\n", line);
			last_progress = now;
		}
		console_status(line);
		last_status = now;
		return;
	}
	seq_dur(left, sizeof(left), remaining_s());
	uint32_t k = cur_item ? (uint32_t)(cur_item - the_plan.item) + 1 : next_item;
	fmt_snprintf(line, sizeof(line), "%s elapsed, about %s left: %s %u of %u%s%s", el, left,
		     cur_item ? cur->table[cur_item->workload]->name : "configuration", k, the_plan.n,
		     cur_item ? ", " : "", cur_item ? cur_item->name : "");
	if (text) {
		kprintf("progress: %s\n", line);
		last_progress = now;
	}
	console_status(line);
	last_status = now;
}

/* How far a fit had to give way: 0 as asked (or no budget) .. 4 workloads skipped. */
static int fit_severity(const struct plan *p)
{
	static const char *const steps[] = { "units scaled", "repetitions lowered", "configurations dropped",
					     "workloads skipped" };
	for (int i = 0; i < (int)ARRAY_SIZE(steps); i++)
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
		p->bytes_per_rep = WL_SAMPLE_BYTES;
		plan_fit(p);
		return;
	}
	reps_keep_samples(false);
	fmt_snprintf(samples_note, sizeof(samples_note),
		     "left out: printing every repetition does not fit the budget (%.0f s as planned with them)", est);
	kprintf("plan: samples %s\n", samples_note);
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

/* The configuration under way is over: what it took goes into the pace. */
static void item_end(void)
{
	struct plan_item *it = cur_item;
	if (!it)
		return;
	cur_item = 0;
	double took = tsc_seconds(ticks_now() - item_start);
	it->spent_s = took;
	bool ran = it->reps ? deadline_reps_kept(&dl) > 0 : !dl.stopped || dl.units_done > 0;
	if (it->skip || !ran)
		return; /* nothing ran: no pace to learn */
	uint32_t reps = it->reps ? deadline_reps_kept(&dl) : 0;
	deadline_pace_add(&dl, plan_item_base_seconds(&the_plan, it, it->units, reps), took);
}

/* Refit what is left from item `first`, at the pace measured when it is off
 * the plan's by `by`, and say so when it changed anything. */
static void refit(uint32_t first, const char *where, double by)
{
	struct plan *p = &the_plan;
	bool off = deadline_pace_off(&dl, p->pace, by); /* a pace within reach of the plan's is noise: kept */
	double pace = off ? deadline_pace(&dl, p->pace) : p->pace, before = p->estimated_s, spent = now_s();
	uint32_t skipped_before = p->n_skipped;
	plan_refit(p, first, spent, pace);
	seq_report_refit(p, spent, before, skipped_before, first, where);
}

/* After a workload: fit what is left into what is left of the budget, so
 * that estimates that erred (a calibration under load, a cost that does not
 * scale as assumed) do not carry the run past its budget. */
static void refit_after(struct plan *p, uint16_t done)
{
	if (!budgeted())
		return;
	uint32_t first = p->first;
	for (uint32_t j = p->first; j < p->n; j++)
		if (p->item[j].workload == done)
			first = j + 1;
	if (first < p->n)
		refit(first, "between workloads", DEADLINE_PACE_NUDGE);
}

/* The save after a workload, timed: the run keeps room for the last one. */
static void save(struct seq_run *s)
{
	if (!s->after_workload)
		return;
	uint64_t t0 = ticks_now();
	s->after_workload(); /* the kernel saves the log to the stick: a crash keeps what came before */
	longest_save_s = MAX(longest_save_s, tsc_seconds(ticks_now() - t0));
	if (budgeted())
		dl.end_s = s->budget_s - end_reserve_s - END_SAVE_MARGIN * longest_save_s;
}

static void run_one(struct seq_run *s, unsigned i, unsigned k, unsigned total)
{
	char line[LINE_LEN];
	const struct workload *wl = s->table[i];
	kprintf("\n== workload %u of %u: %s - %s\n", k, total, wl->name, wl->summary);
	fmt_snprintf(line, sizeof(line), "workload %u of %u: %s", k, total, wl->name);
	console_status(line);
	unsigned long fails0 = finish_failures(), errors0 = console_errors();
	instr_goal(wl->counters);
	reps_faults_measured(wl->measures_faults);
	uint64_t t0 = ticks_now();
	reps_tally_take();
	if (the_plan.share[i].skip) /* its configurations say so too, each a skipped result */
		kprintf("%s skipped: %s\n", wl->name, the_plan.share[i].why);
	seq_item_walk(&the_plan, (uint16_t)i, wl, &s->ctx);
	slow_pad();
	item_end();
	uint64_t ms = (uint64_t)(tsc_seconds(ticks_now() - t0) * 1000);
	uint32_t n, sk;
	double planned = plan_workload_seconds(&the_plan, (uint16_t)i, &n, &sk);
	kprintf("== %s finished in %llu ms (planned %.0f ms)\n", wl->name, (unsigned long long)ms,
		planned * 1000);
	struct rec *r = console_rec_open("workload");
	rec_str(r, "name", wl->name);
	rec_u64(r, "elapsed_ms", ms);
	rec_f64(r, "planned_s", planned, 1);
	rec_u64(r, "configs", n);
	rec_u64(r, "skipped", sk);
	console_rec_emit(r);
	char noise[LINE_LEN];
	noise_mark(noise, sizeof(noise), reps_tally_take());
	fmt_snprintf(line, sizeof(line), "%-12s %8llu ms  %s, %lu error record(s); %s", wl->name,
		     (unsigned long long)ms, finish_failures() == fails0 ? "ok" : "FAIL",
		     console_errors() - errors0, noise);
	console_summary_line(line);
	save(s);
}

/* What the run keeps at the end of its budget. */
static double end_reserve(const struct seq_run *s)
{
	double r = MIN(END_RESERVE_MAX_S, MAX(END_RESERVE_MIN_S, END_RESERVE_FRACTION * s->budget_s));
	uint32_t cpus = s->ctx.online ? s->ctx.online->n : 1;
	if (s->serial_bytes_per_s > 0)
		r += (END_BYTES + (double)END_BYTES_PER_CPU * cpus) / s->serial_bytes_per_s;
	return r;
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
			.sp_memory = o->sp_memory == OPT_ON,
			.noise_attr_ns = o->noise_attr_ns,
			.fail = o->fail,
		},
		.workloads = o->workloads,
		.budget_s = o->budget_s ? o->budget_s : quick ? 0 : OPT_BUDGET_FULL_S,
		.plan_only = o->plan == OPT_ON,
		.run_timeout_ms = o->run_timeout_ms,
		.slow = o->slow,
	};
}

void seq_go(struct seq_run *s)
{
	cur = s;
	cur_item = 0;
	next_item = 0;
	final_line[0] = 0;
	slowing = false;
	longest_save_s = 0;
	last_progress = last_status = ticks_now();
	struct plan *p = &the_plan;
	plan_reset(p, s->budget_s, s->serial_bytes_per_s);
	p->bytes_per_rep = reps_samples_on() ? WL_SAMPLE_BYTES : 0;
	end_reserve_s = s->budget_s > 0 ? end_reserve(s) : 0;
	p->end_reserve_s = end_reserve_s;
	deadline_start(&dl, s->budget_s > 0 ? s->budget_s - end_reserve_s : 0);

	/* Calibration: each workload adds its configurations and their unit costs. */
	unsigned total = 0;
	const char *names[PLAN_MAX_WORKLOADS];
	for (unsigned i = 0; i < s->n_table && i < PLAN_MAX_WORKLOADS; i++) {
		names[i] = s->table[i]->name;
		total += (s->workloads >> i) & 1;
	}
	seq_report_names(names, MIN(s->n_table, (unsigned)PLAN_MAX_WORKLOADS));
	seq_item_reset();
	kprintf("\nplan: calibrating %u workload(s)\n", total);
	console_status("calibrating: what one unit of each loop costs");
	calibrating.n = total;
	for (unsigned i = 0; i < s->n_table && i < PLAN_MAX_WORKLOADS; i++) {
		if (!((s->workloads >> i) & 1))
			continue;
		const struct workload *wl = s->table[i];
		calibrating.name = wl->name;
		calibrating.k++;
		instr_goal(PMU_GOAL_COUNT); /* no counters while calibrating */
		uint64_t t0 = ticks_now();
		seq_item_plan(p, (uint16_t)i, wl, &s->ctx);
		if (i < PLAN_MAX_WORKLOADS)
			p->share[i].calibration_s = tsc_seconds(ticks_now() - t0);
	}
	calibrating.name = 0;
	p->spent_s = now_s();
	plan_fit(p);
	fit_samples(p);
	seq_report_plan(p, s->workloads, s->plan_only,
			samples_note[0] ? samples_note : reps_samples_on() ? "kept" : "off (samples=off)",
			s->slow > 1 ? s->slow : 0, plan_calibration_spread(p));
	if (s->plan_only)
		return;

	slowing = s->slow > 1;
	slow_mark = ticks_now();
	unsigned k = 0;
	double first_estimate = p->estimated_s;
	for (unsigned i = 0; i < s->n_table && i < PLAN_MAX_WORKLOADS; i++)
		if ((s->workloads >> i) & 1) {
			run_one(s, i, ++k, total);
			refit_after(p, (uint16_t)i);
		}
	cur_item = 0;
	slowing = false;
	char el[DUR_LEN], est[DUR_LEN];
	seq_dur(el, sizeof(el), now_s());
	seq_dur(est, sizeof(est), first_estimate);
	kprintf("progress: all workloads done in %s (planned %s)\n", el, est);
	reps_faults_measured(false);
	if (final_line[0]) { /* the noise workload's line: how quiet the machine was, last */
		kprintf("%s\n", final_line);
		console_summary_line(final_line);
	}
}

void seq_final_line(const char *line)
{
	fmt_snprintf(final_line, sizeof(final_line), "%s", line ? line : "");
}

void seq_item_begin(const struct plan_item *it)
{
	struct plan *p = &the_plan;
	slow_pad();
	item_end();
	uint32_t k = (uint32_t)(it - p->item);
	cur_item = &p->item[k];
	next_item = k + 1;
	p->setup_done |= 1u << it->workload;
	/* Inside a workload only a run that fell behind is refitted: one ahead
	 * gives its time back between workloads, and noise does not churn the plan. */
	double pace = deadline_pace(&dl, p->pace);
	if (budgeted() && deadline_pace_off(&dl, p->pace, DEADLINE_PACE_OFF) && pace > p->pace &&
	    MIN(PLAN_PACE_MAX, pace) != p->pace)
		refit(k, "inside a workload", DEADLINE_PACE_OFF);
	uint32_t steps = it->reps ? 0 : (uint32_t)MIN(it->units, (uint64_t)UINT32_MAX);
	deadline_item(&dl, now_s(), it->planned_s, plan_left_s(p, k), plan_rep_seconds(p, it), it->reps,
		      it->reps ? plan_least_reps(it) : (uint32_t)MIN(it->min_units, (uint64_t)UINT32_MAX), steps, p->pace);
	item_start = ticks_now();
	seq_tick();
}

bool seq_rep_fits(void)
{
	if (!cur_item || cur_item->skip)
		return true;
	slow_pad();
	return deadline_rep_fits(&dl, now_s());
}

bool seq_step_fits(void)
{
	if (!cur_item || cur_item->skip)
		return true;
	slow_pad();
	return deadline_unit_fits(&dl, now_s());
}

bool seq_once_fits(void)
{
	if (!cur_item || cur_item->skip)
		return true;
	return deadline_once_fits(&dl, now_s(), cur_item->planned_s);
}

const char *seq_stop_reason(void)
{
	return dl.stopped ? dl.why : "";
}

bool seq_item_short(void)
{
	return cur_item && deadline_short(&dl);
}

uint64_t seq_timeout_ms(const struct plan_item *it)
{
	double ms;
	if (cur && cur->run_timeout_ms)
		ms = (double)cur->run_timeout_ms;
	else
		ms = MAX(plan_rep_seconds(&the_plan, it) * 1000.0 * SEQ_BOUND_MARGIN, (double)SEQ_BOUND_FLOOR_MS);
	bound_cut_s = 0;
	if (budgeted()) {
		double own = ms;
		ms = deadline_bound_s(&dl, now_s(), ms / 1000.0) * 1000.0;
		if (ms < own)
			bound_cut_s = ms / 1000.0;
	}
	return ms >= 1 ? (uint64_t)ms : 1;
}

void seq_tick(void)
{
	if (!cur)
		return;
	uint64_t now = ticks_now();
	if (now - last_progress >= ms_ticks(SEQ_PROGRESS_MS))
		progress(true);
	else if (now - last_status >= ms_ticks(STATUS_MS))
		progress(false);
}

void seq_item_fields(struct rec *r, const struct plan_item *it, struct report_mark *m)
{
	static char why[96];
	*m = (struct report_mark){ 0 };
	if (!it)
		return;
	rec_f64(r, "planned_s", it->planned_s, 3);
	rec_f64(r, "measured_s", tsc_seconds(ticks_now() - item_start), 3);
	if (cur_item != it)
		return;
	if (it->reps) {
		rec_u64(r, "reps_planned", it->reps);
		rec_u64(r, "reps_kept", deadline_reps_kept(&dl));
	}
	if (dl.stopped)
		rec_str(r, "stopped", dl.why);
	bool none = it->reps ? !deadline_reps_kept(&dl) : !dl.units_done;
	if (bound_cut_s > 0) {
		fmt_snprintf(why, sizeof(why), "stopped at the budget's end: a repetition ran past the %.1f s that were left",
			     bound_cut_s);
		m->overrun_as = none ? "skipped" : "short";
		m->overrun_why = why;
	}
	if (!dl.stopped)
		return;
	if (none || deadline_short(&dl)) {
		m->ok_as = none ? "skipped" : "short";
		m->ok_why = dl.why;
	}
}

