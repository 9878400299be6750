/* deadline.c - each configuration's deadline, repetition by repetition, from the run's end; see deadline.h. */
#include "deadline.h"
#include "fmt.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define NO_END 1e300                     /* a deadline that never comes */

/* ---- Private Functions ---------------------------------------------------- */
static bool budgeted(const struct deadline *d)
{
	return d->end_s > 0;
}

/* The deadline of what a statistic needs: DEADLINE_LEAST_SLACK times the configuration's time. */
static double slack_end(const struct deadline *d)
{
	return d->item_start_s + DEADLINE_LEAST_SLACK * (d->item_end_s - d->item_start_s);
}

static void stop(struct deadline *d)
{
	d->stopped = true;
}

/* ---- Public Functions ----------------------------------------------------- */
void deadline_start(struct deadline *d, double end_s)
{
	memset(d, 0, sizeof(*d));
	d->end_s = end_s > 0 ? end_s : 0;
	d->item_end_s = NO_END;
}

static bool believed(const struct deadline *d)
{
	return d->paced_items >= DEADLINE_PACE_MIN_ITEMS &&
	       (d->paced_planned_s >= DEADLINE_PACE_MIN_S || d->paced_measured_s >= 2 * DEADLINE_PACE_MIN_S);
}

void deadline_item(struct deadline *d, double now, double planned_s, double left_s, double rep_s, uint32_t reps,
		   uint32_t least_reps, uint32_t units, double plan_pace)
{
	d->item_start_s = d->last_check_s = now;
	d->planned_s = planned_s;
	d->behind = plan_pace > 0 ? MAX(1.0, deadline_pace(d, plan_pace) / plan_pace) : 1;
	d->rep_s = rep_s * d->behind;
	d->tail_s = MAX(0.0, planned_s - (double)(reps + 1) * rep_s) * d->behind;
	d->last_rep_s = 0;
	d->reps = reps;
	d->least_reps = MIN(least_reps, reps ? reps : units);
	d->started = 0;
	d->units = units;
	d->units_done = 0;
	d->stopped = false;
	d->why[0] = 0;
	if (!budgeted(d)) {
		d->item_end_s = NO_END;
		return;
	}
	/* Its share of what is left: planned x (time left) / (planned left). */
	double time_left = d->end_s - now, ratio = left_s > 0 ? time_left / left_s : 1;
	d->item_end_s = time_left <= 0 ? now : MIN(d->end_s, now + planned_s * MAX(ratio, 0.0));
}

bool deadline_rep_fits(struct deadline *d, double now)
{
	if (!budgeted(d) || !d->reps) { /* no budget, or a one-shot: its units are judged instead */
		d->started++;
		return true;
	}
	if (d->stopped)
		return false;
	if (d->started)
		d->last_rep_s = now - d->last_check_s;
	/* One more repetition, and what the configuration does after them. */
	double est = MAX(d->rep_s, d->last_rep_s), left = d->end_s - now - d->tail_s;
	bool fits;
	if (d->started == 0) /* the warm-up and one timed repetition: before the run's end */
		fits = 2 * est <= left;
	else if (d->started == 1)
		fits = est <= left;
	else if (d->started <= d->least_reps) /* short of a statistic yet: slack, if it reaches one */
		fits = est <= left && (now + (d->least_reps - d->started + 1) * est + d->tail_s <= MIN(d->end_s, slack_end(d)) ||
				       now + est + d->tail_s <= d->item_end_s);
	else
		fits = now + est + d->tail_s <= d->item_end_s;
	if (!fits) {
		stop(d);
		if (d->started == 0)
			fmt_snprintf(d->why, sizeof(d->why),
				     "not started: %.1f s of the budget left, its warm-up and a repetition need about %.1f s",
				     MAX(left, 0.0), 2 * est);
		else if (d->started == 1)
			fmt_snprintf(d->why, sizeof(d->why),
				     "stopped after its warm-up: %.1f s of the budget left, a repetition needs about %.1f s",
				     MAX(left, 0.0), est);
		else
			fmt_snprintf(d->why, sizeof(d->why),
				     "stopped at its deadline: %u of %u repetitions in %.2f s (planned %.2f s, the run's "
				     "pace shares what is left)", d->started - 1, d->reps, d->item_end_s - d->item_start_s,
				     d->planned_s);
		return false;
	}
	d->started++;
	d->last_check_s = now;
	return true;
}

bool deadline_unit_fits(struct deadline *d, double now)
{
	if (!budgeted(d)) {
		d->units_done++;
		return true;
	}
	if (d->stopped)
		return false;
	if (d->units_done)
		d->last_rep_s = now - d->last_check_s;
	double per = d->behind * (d->units ? d->planned_s / d->units : d->planned_s);
	double est = MAX(per, d->last_rep_s);
	bool fits = !d->units_done                     ? now + est <= d->end_s
		    : d->units_done < d->least_reps    ? now + est <= MIN(d->end_s, slack_end(d))
						       : now + est <= d->item_end_s;
	if (!fits) {
		stop(d);
		fmt_snprintf(d->why, sizeof(d->why), "stopped at its deadline: %u of %u steps in %.2f s (planned %.2f s)",
			     d->units_done, d->units, d->item_end_s - d->item_start_s, d->planned_s);
		return false;
	}
	d->units_done++;
	d->last_check_s = now;
	return true;
}

bool deadline_once_fits(struct deadline *d, double now, double est_s)
{
	if (!budgeted(d))
		return true;
	double left = d->end_s - now, mine = d->item_end_s - now;
	est_s *= d->behind;
	if (est_s <= left && est_s <= DEADLINE_ONCE_SLACK * MAX(mine, 0.0))
		return true;
	stop(d);
	if (est_s > left)
		fmt_snprintf(d->why, sizeof(d->why), "not started: it needs about %.1f s, %.1f s of the budget left", est_s,
			     MAX(left, 0.0));
	else
		fmt_snprintf(d->why, sizeof(d->why),
			     "not started: it needs about %.1f s, its share of what is left is %.1f s (the run is behind "
			     "its plan)", est_s, MAX(mine, 0.0));
	return false;
}

uint32_t deadline_reps_kept(const struct deadline *d)
{
	return d->started ? d->started - 1 : 0;
}

bool deadline_short(const struct deadline *d)
{
	if (!d->stopped)
		return false;
	return d->reps ? deadline_reps_kept(d) < d->least_reps : d->units_done < d->units;
}

double deadline_bound_s(const struct deadline *d, double now, double bound_s)
{
	if (!budgeted(d))
		return bound_s;
	return MAX(DEADLINE_BOUND_MIN_S, MIN(bound_s, d->end_s - now));
}

void deadline_pace_add(struct deadline *d, double planned_s, double measured_s)
{
	if (planned_s <= 0 || measured_s < 0)
		return;
	double all = d->paced_measured_s + measured_s;
	if (all > DEADLINE_PACE_WINDOW_S && d->paced_measured_s > 0) { /* the older work weighs less: a recent slowdown shows */
		double keep = MAX(0.0, DEADLINE_PACE_WINDOW_S - measured_s) / d->paced_measured_s;
		d->paced_planned_s *= MIN(keep, 1.0);
		d->paced_measured_s *= MIN(keep, 1.0);
	}
	d->paced_items++;
	d->paced_planned_s += planned_s;
	d->paced_measured_s += measured_s;
}

double deadline_pace(const struct deadline *d, double otherwise)
{
	if (!believed(d) || d->paced_planned_s <= 0)
		return otherwise;
	return d->paced_measured_s / d->paced_planned_s;
}

bool deadline_pace_off(const struct deadline *d, double plan_pace, double by)
{
	if (!believed(d) || plan_pace <= 0 || by <= 1)
		return false;
	double r = deadline_pace(d, plan_pace) / plan_pace;
	return r >= by || r <= 1 / by;
}

void deadline_pace_reset(struct deadline *d)
{
	d->paced_planned_s = d->paced_measured_s = 0;
	d->paced_items = 0;
}
