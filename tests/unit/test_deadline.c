/* test_deadline.c - host tests of kernel/measure/deadline.c, and of the plan and the deadlines together on a simulated clock.
 *
 * The simulation walks a fitted plan as kernel/bench/sequence.c does: each
 * configuration gets its deadline when it begins, asks before each
 * repetition whether another fits, has its run_on bound capped at the run's
 * end, and the rest is refitted between workloads at the pace measured so
 * far. The machine it runs on takes `slow` times the calibrated time once
 * the clock passes `slow_from` (a machine that a busy neighbour slows down
 * after calibration), so the promise can be checked: the work ends before
 * the budget's end, and every workload is present, or skipped by the plan
 * with its reason before anything was measured. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "deadline.h"
#include "lib.h"
#include "plan_fit.h"

#define N_WORKLOADS 5
#define RESERVE_S 3.0
#define BOUND_MARGIN 4           /* a run_on bound: 4x the planned repetition (as the sequence) */
#define BOUND_FLOOR_S 5.0

static struct plan P;
static struct deadline D;

/* A machine: calibrated costs times `slow` once the clock is past slow_from. */
struct machine {
	double slow, slow_from;
};

struct outcome {
	double end;                            /* when the last configuration ended */
	uint32_t present[N_WORKLOADS];         /* configurations with a figure (a timed repetition, or a one-shot run) */
	uint32_t shorts, stopped, not_started, overruns, refits_dropping, refits;
};

static struct plan_item *add(uint16_t w, uint8_t kind, bool essential, uint8_t unit, uint64_t want, uint64_t min,
			     uint32_t reps, double unit_s, double fixed_s)
{
	struct plan_item *it = plan_add(&P, w, "item");
	it->group = kind;
	it->essential = essential;
	it->unit = unit;
	it->want_units = want;
	it->min_units = min;
	it->want_reps = reps;
	it->unit_s = unit_s;
	it->rep_fixed_s = fixed_s;
	it->out_bytes = 1500;
	return it;
}

/* Five workloads shaped like QuietBench's full profile on a small machine:
 * a selftest, a counter sweep that asks far more than any budget, locality
 * passes by size, first-touch one-shots and flush methods. */
static void build(double budget_s, double calib_s)
{
	plan_reset(&P, budget_s, 11520.0);
	add(0, 0, true, PLAN_UNIT_ITERS, 100000000, 10000, 10, 0.5e-9, 2e-4);
	for (int l = 0; l < 5; l++)
		for (int n = 0; n < 3; n++)
			add(1, 0, l < 2 && n != 1, PLAN_UNIT_ITERS, 1ull << 29, 20000, 10, (0.3 + 8.0 * n) * 1e-9, 2e-4);
	add(1, 1, true, PLAN_UNIT_ITERS, 1ull << 29, 20000, 10, 0.3e-9, 2e-4);
	for (int r = 0; r < 3; r++)
		add(1, 1, r == 2, PLAN_UNIT_ITERS, 1ull << 29, 20000, 10, (8.0 + r) * 1e-9, 2e-4);
	add(1, 2, false, PLAN_UNIT_PAIRS, 28, 28, 0, 0.05, 0)->out_per_unit = 18;
	for (int sz = 0; sz < 3; sz++)
		for (int k = 0; k < 12; k++)
			add(2, (uint8_t)sz, k < 2, PLAN_UNIT_PASSES, 1, 1, 10, sz == 2 ? 0.15 : 0.002, 2e-4);
	plan_set_setup(&P, 2, 1.5);
	for (int c = 0; c < 3; c++)
		add(3, 0, c == 0, PLAN_UNIT_PASSES, 1, 1, 0, 1.2, 0);
	for (int k = 0; k < 5; k++)
		add(3, k == 1 ? 2 : 1, k < 2, PLAN_UNIT_ITERS, 4096, 64, 0, 2e-6, 0);
	for (int m = 0; m < 6; m++)
		add(4, (uint8_t)(m / 2), m % 2 == 0, PLAN_UNIT_PASSES, 1, 1, 10, 0.03, 0);
	P.spent_s = calib_s;
	P.end_reserve_s = RESERVE_S;
	plan_fit(&P);
}

/* What `planned` seconds (at the plan's pace) take on the machine: the
 * calibrated seconds, times its slowness from slow_from on. */
static double actual(const struct machine *m, double now, double planned)
{
	double base = planned / P.pace;
	return now >= m->slow_from ? base * m->slow : base;
}

/* Run the plan on machine m as the sequence would; the clock starts after calibration. */
static struct outcome simulate(const struct machine *m)
{
	struct outcome o = { 0 };
	double now = P.spent_s;
	deadline_start(&D, P.budget_s - RESERVE_S);
	for (uint16_t w = 0; w < N_WORKLOADS; w++) {
		uint32_t first = P.n, last = 0;
		for (uint32_t i = 0; i < P.n; i++)
			if (P.item[i].workload == w) {
				first = MIN(first, i);
				last = i;
			}
		if (!P.share[w].skip)
			now += actual(m, now, P.share[w].setup_s * P.pace); /* its set-up */
		for (uint32_t i = first; i <= last && first < P.n; i++) {
			struct plan_item *it = &P.item[i];
			P.setup_done |= 1u << w;
			if (deadline_pace_off(&D, P.pace, DEADLINE_PACE_OFF) && P.budget_s > 0 && deadline_pace(&D, P.pace) > P.pace &&
			    MIN(PLAN_PACE_MAX, deadline_pace(&D, P.pace)) != P.pace) { /* fell behind its plan: refit */
				double pace = deadline_pace(&D, P.pace);
				if (getenv("SIM_DEBUG"))
					printf("    refit at item %u, %.1f s: pace %.2f (planned %.2f measured %.2f), was %.2f\n", i,
					       now, pace, D.paced_planned_s, D.paced_measured_s, P.pace);
				plan_refit(&P, i, now, pace);
				o.refits++;
			}
			if (it->skip)
				continue;
			double rep = plan_rep_seconds(&P, it), t0 = now;
			deadline_item(&D, now, it->planned_s, plan_left_s(&P, i), rep, it->reps,
				      it->reps ? plan_least_reps(it) : (uint32_t)it->min_units, it->reps ? 0 : (uint32_t)it->units,
				      P.pace);
			uint32_t kept;
			if (!it->reps && it->unit == PLAN_UNIT_PAIRS) {
				while (D.units_done < it->units && deadline_unit_fits(&D, now))
					now += actual(m, now, it->planned_s / (double)it->units);
				kept = D.units_done;
			} else if (!it->reps) {
				if (!deadline_once_fits(&D, now, it->planned_s)) {
					o.not_started++;
					continue;
				}
				now += actual(m, now, it->planned_s);
				kept = 1;
			} else {
				for (uint32_t r = 0; r <= it->reps && deadline_rep_fits(&D, now); r++) {
					double bound = deadline_bound_s(&D, now, MAX(BOUND_MARGIN * rep, BOUND_FLOOR_S));
					double took = actual(m, now, rep);
					if (took > bound) { /* run_on stops it at its bound: an overrun */
						now += bound;
						o.overruns++;
						break;
					}
					now += took;
				}
				kept = deadline_reps_kept(&D);
				/* Its result and the rest of what it prints. */
				now += actual(m, now, it->planned_s - (it->reps + 1) * rep);
			}
			if (getenv("SIM_DEBUG") && D.stopped)
				printf("      item %u (w %u k %u) at %.1f: %s\n", i, w, it->group, now, D.why);
			o.stopped += D.stopped;
			o.shorts += deadline_short(&D) && kept;
			o.not_started += D.stopped && !kept;
			o.present[w] += kept > 0;
			double base = plan_item_base_seconds(&P, it, it->units, it->reps ? kept : it->reps);
			deadline_pace_add(&D, base, now - t0);
			it->spent_s = now - t0;
		}
		uint32_t skipped_before = P.n_skipped;
		if (last + 1 < P.n && P.budget_s > 0) {
			bool off = deadline_pace_off(&D, P.pace, DEADLINE_PACE_NUDGE);
			plan_refit(&P, last + 1, now, off ? deadline_pace(&D, P.pace) : P.pace);
		}
		o.refits_dropping += P.n_skipped > skipped_before;
		if (getenv("SIM_DEBUG"))
			printf("    after workload %u at %.1f s: present %u, pace %.2f, refit %s, estimated %.1f, %u skipped\n",
			       w, now, o.present[w], P.pace, P.how, P.estimated_s, P.n_workloads_skipped);
	}
	o.end = now;
	return o;
}

/* Present: a figure from at least one configuration, or skipped whole by the
 * plan with its reason (decided before measuring). */
static void check_promise(const struct outcome *o, const char *what)
{
	if (o->end > P.budget_s - RESERVE_S + 1e-9)
		printf("  %s: ended at %.1f s, past %.1f s\n", what, o->end, P.budget_s - RESERVE_S);
	CHECK(o->end <= P.budget_s - RESERVE_S + 1e-9);
	for (uint16_t w = 0; w < N_WORKLOADS; w++) {
		if (!o->present[w] && !P.share[w].skip)
			printf("  %s: workload %u has no figure and was not skipped by the plan\n", what, w);
		CHECK(o->present[w] > 0 || (P.share[w].skip && P.share[w].why[0]));
	}
}

TEST(a_machine_as_calibrated_keeps_the_plan)
{
	build(150, 7);
	struct machine m = { 1, 0 };
	struct outcome o = simulate(&m);
	check_promise(&o, "as calibrated");
	CHECK_EQ_U(o.stopped, 0);
	CHECK_EQ_U(o.shorts, 0);
	CHECK(fabs(o.end - P.estimated_s) < 1e-6); /* the plan is the run */
	printf("  as calibrated: planned %.1f s, ended at %.1f s\n", P.estimated_s, o.end);
}

/* The case: the host is loaded once the plan is made, everything
 * takes 4x as long. The first workload is cut by its deadlines (short), the
 * refit learns the pace, the rest is planned at it; the run still ends in
 * time with every workload there. */
TEST(a_machine_4x_slower_after_calibration_ends_in_time_with_every_workload)
{
	build(150, 7);
	struct machine m = { 4, 7 };
	struct outcome o = simulate(&m);
	check_promise(&o, "4x slower");
	CHECK(o.stopped > 0);
	CHECK(P.pace > 3.5 && P.pace <= 4.0 + 1e-9);
	CHECK_EQ_U(o.overruns, 0);
	printf("  4x slower: ended at %.1f s of %.0f, %u stopped (%u short, %u not started), pace %.2f\n", o.end,
	       P.budget_s - RESERVE_S, o.stopped, o.shorts, o.not_started, P.pace);
}

/* Slower still, and from the middle of the run: the promise holds. (A
 * one-shot that cannot stop halfway, begun just as the machine turned far
 * slower, can still carry the run past its end: past 16x that is what the
 * end reserve is for; the plan cannot foresee it.) */
TEST(slowdowns_of_any_size_and_time_keep_the_promise)
{
	static const double factors[] = { 1.5, 2, 4, 8, 16 };
	static const double starts[] = { 7, 20, 60, 100 };
	static const double budgets[] = { 60, 150, 300 };
	for (unsigned b = 0; b < ARRAY_SIZE(budgets); b++)
		for (unsigned f = 0; f < ARRAY_SIZE(factors); f++)
			for (unsigned s = 0; s < ARRAY_SIZE(starts); s++) {
				build(budgets[b], 7);
				struct machine m = { factors[f], starts[s] };
				if (getenv("SIM_CASE")) {
					char c[64];
					snprintf(c, sizeof(c), "%g,%g,%g", factors[f], starts[s], budgets[b]);
					if (strcmp(c, getenv("SIM_CASE")))
						continue;
				}
				struct outcome o = simulate(&m);
				char what[64];
				snprintf(what, sizeof(what), "%gx from %g s in %g s", factors[f], starts[s], budgets[b]);
				check_promise(&o, what);
				if (getenv("SIM_GRID"))
					printf("    %-24s end %6.1f, %2u stopped, %2u short, %2u not started, %u workloads skipped, "
					       "%u refits, %u items dropped\n", what, o.end, o.stopped, o.shorts, o.not_started,
					       P.n_workloads_skipped, o.refits, P.n_skipped);
			}
}

/* A faster machine than calibrated: nothing is stopped, the run ends early. */
TEST(a_faster_machine_is_never_stopped)
{
	build(150, 7);
	struct machine m = { 0.5, 7 };
	struct outcome o = simulate(&m);
	check_promise(&o, "2x faster");
	CHECK_EQ_U(o.stopped, 0); /* and the time it saves goes to the workloads after the first */
}

/* Fair under load: after the refit at 4x, every workload the plan keeps
 * still has its least form, and none is skipped whole while every least
 * form fits what is left. */
TEST(the_refit_at_4x_keeps_every_least_form)
{
	build(300, 7);
	struct machine m = { 4, 7 };
	simulate(&m);
	CHECK_EQ_U(P.n_workloads_skipped, 0);
	for (uint32_t i = P.first; i < P.n; i++)
		CHECK(!P.item[i].essential || !P.item[i].skip);
}

/* The arithmetic of one configuration's deadline. */
TEST(a_deadline_scales_with_what_is_left)
{
	deadline_start(&D, 100);
	/* On plan: 50 s left for 50 s planned: a 10 s item ends 10 s on. */
	deadline_item(&D, 50, 10, 50, 1, 9, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 60) < 1e-9);
	/* Behind: 25 s left for 50 s planned: half its time. */
	deadline_item(&D, 75, 10, 50, 1, 9, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 80) < 1e-9);
	/* Ahead: 50 s left for 25 s planned: twice, never past the run's end. */
	deadline_item(&D, 50, 10, 25, 1, 9, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 70) < 1e-9);
	deadline_item(&D, 95, 10, 10, 1, 9, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 100) < 1e-9);
	/* Past the end: now. */
	deadline_item(&D, 101, 10, 10, 1, 9, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 101) < 1e-9);
}

TEST(repetitions_stop_at_the_deadline_and_say_why)
{
	deadline_start(&D, 100);
	/* 10 reps of 1 s planned (11 s with the warm-up), 5.5 s given: behind by
	 * half. The five a statistic needs may take twice that: kept, not short. */
	deadline_item(&D, 0, 11, 200, 1, 10, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 5.5) < 1e-9);
	double now = 0;
	uint32_t ran = 0;
	while (deadline_rep_fits(&D, now)) {
		now += 1;
		ran++;
	}
	CHECK_EQ_U(ran, 6);               /* the warm-up and 5 timed */
	CHECK_EQ_U(deadline_reps_kept(&D), 5);
	CHECK(D.stopped && !deadline_short(&D));
	CHECK(!strncmp(D.why, "stopped at its deadline: 5 of 10 repetitions", 44));
	/* Behind by a factor of five: not even twice its time holds five, so
	 * it takes no slack and stops at its deadline (short), leaving the time
	 * to what comes after. */
	deadline_item(&D, 0, 11, 500, 1, 10, 5, 0, 1);
	CHECK(fabs(D.item_end_s - 2.2) < 1e-9);
	for (now = 0; deadline_rep_fits(&D, now); now += 1)
		;
	CHECK_EQ_U(deadline_reps_kept(&D), 1);
	CHECK(D.stopped && deadline_short(&D));
	/* Repetitions that turn out slower than planned: judged by the last one. */
	deadline_item(&D, 0, 11, 100, 1, 10, 2, 0, 1);
	CHECK(fabs(D.item_end_s - 11) < 1e-9);
	CHECK(deadline_rep_fits(&D, 0));
	CHECK(deadline_rep_fits(&D, 3)); /* the warm-up took 3 s */
	CHECK(deadline_rep_fits(&D, 6));
	CHECK(!deadline_rep_fits(&D, 9)); /* 9 + 1 fits at the plan's 1 s, not at the 3 s measured */
	CHECK_EQ_U(deadline_reps_kept(&D), 2);
	/* A run measured 3x slower than its plan's pace (three configurations): every estimate scaled up. */
	for (int k = 0; k < DEADLINE_PACE_MIN_ITEMS; k++)
		deadline_pace_add(&D, 1.0 / DEADLINE_PACE_MIN_ITEMS, 3.0 / DEADLINE_PACE_MIN_ITEMS);
	CHECK(deadline_pace_off(&D, 1, DEADLINE_PACE_OFF) && !deadline_pace_off(&D, 2.8, DEADLINE_PACE_NUDGE));
	deadline_item(&D, 0, 11, 100, 1, 10, 5, 0, 1);
	CHECK(fabs(D.rep_s - 3) < 1e-9);
	deadline_pace_reset(&D);
	CHECK(deadline_pace(&D, 7) == 7);
	/* Enough kept: stopped, not short. */
	deadline_item(&D, 0, 11, 11, 1, 10, 2, 0, 1);
	for (now = 0; deadline_rep_fits(&D, now); now += 2)
		;
	CHECK(D.stopped && !deadline_short(&D) && deadline_reps_kept(&D) >= 2);
}

TEST(the_warm_up_and_one_repetition_need_only_the_runs_end)
{
	deadline_start(&D, 100);
	/* Its own deadline is 0.5 s away, but the run has 10 s: it starts and keeps one. */
	deadline_item(&D, 90, 1, 20, 1, 10, 5, 0, 1);
	CHECK(deadline_rep_fits(&D, 90));
	CHECK(deadline_rep_fits(&D, 91));
	CHECK(!deadline_rep_fits(&D, 92));
	CHECK_EQ_U(deadline_reps_kept(&D), 1);
	CHECK(deadline_short(&D));
	/* Not even that fits the run's end: not started. */
	deadline_item(&D, 99, 1, 20, 1, 10, 5, 0, 1);
	CHECK(!deadline_rep_fits(&D, 99));
	CHECK_EQ_U(deadline_reps_kept(&D), 0);
	CHECK(!strncmp(D.why, "not started", 11));
}

TEST(one_shots_units_bounds_and_pace)
{
	deadline_start(&D, 100);
	deadline_item(&D, 50, 10, 50, 0, 0, 0, 1, 1);
	CHECK(deadline_once_fits(&D, 50, 15));      /* within twice its 10 s */
	CHECK(!deadline_once_fits(&D, 50, 25));
	CHECK(!strncmp(D.why, "not started: it needs about 25.0 s", 34));
	deadline_item(&D, 90, 10, 10, 0, 0, 0, 1, 1);
	CHECK(!deadline_once_fits(&D, 90, 12));     /* past the run's end */
	/* A matrix of 10 pairs of 1 s, 5 s given: 5 pairs, then short. */
	deadline_item(&D, 0, 10, 200, 0, 0, 0, 10, 1);
	double now = 0;
	while (deadline_unit_fits(&D, now))
		now += 1;
	CHECK_EQ_U(D.units_done, 5);
	CHECK(deadline_short(&D));
	/* Bounds: capped by the time left, never below the floor. */
	CHECK(fabs(deadline_bound_s(&D, 10, 5) - 5) < 1e-12);
	CHECK(fabs(deadline_bound_s(&D, 98, 5) - 2) < 1e-12);
	CHECK(fabs(deadline_bound_s(&D, 120, 5) - DEADLINE_BOUND_MIN_S) < 1e-12);
	/* The pace: believed once enough has run, over enough configurations. */
	CHECK(deadline_pace(&D, 1) == 1);
	deadline_pace_add(&D, 0.1, 0.4);
	CHECK(deadline_pace(&D, 1) == 1);
	deadline_pace_add(&D, 0.9, 3.6);
	CHECK(deadline_pace(&D, 1) == 1); /* two configurations: one of them may have been mistimed */
	deadline_pace_add(&D, 0.1, 0.4);
	CHECK(fabs(deadline_pace(&D, 1) - 4) < 1e-12);
	/* Without a budget nothing is ever stopped. */
	deadline_start(&D, 0);
	deadline_item(&D, 1e6, 1, 1, 1, 3, 3, 0, 1);
	for (int r = 0; r < 4; r++)
		CHECK(deadline_rep_fits(&D, 1e6 + 1e5 * r));
	CHECK(deadline_once_fits(&D, 1e9, 1e9));
	CHECK(fabs(deadline_bound_s(&D, 1e9, 5) - 5) < 1e-12);
}

int main(void)
{
	RUN(a_deadline_scales_with_what_is_left);
	RUN(repetitions_stop_at_the_deadline_and_say_why);
	RUN(the_warm_up_and_one_repetition_need_only_the_runs_end);
	RUN(one_shots_units_bounds_and_pace);
	RUN(a_machine_as_calibrated_keeps_the_plan);
	RUN(a_machine_4x_slower_after_calibration_ends_in_time_with_every_workload);
	RUN(slowdowns_of_any_size_and_time_keep_the_promise);
	RUN(a_faster_machine_is_never_stopped);
	RUN(the_refit_at_4x_keeps_every_least_form);
	return check_summary("deadline");
}
