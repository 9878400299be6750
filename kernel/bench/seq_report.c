/* seq_report.c - the plan's text and records; see seq_report.h. */
#include "seq_report.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define PLAN_CONFIGS_PER_RECORD 200  /* configurations listed in one plan_configs record */
/* A configuration at its longest in that record: a skipped one with its name,
 * kind and reason at their limits (our own ASCII: nothing escaped), and least,
 * in their JSON. A 768-thread machine plans 600 locality configurations; a
 * short budget drops most, each with a reason of about 100 bytes: 300 to a
 * record could pass CONSOLE_REC_BUF, and the record would be lost. */
#define PLAN_CONFIG_MAX_BYTES (sizeof("{\"name\":\"\",\"kind\":\"\",\"least\":true,\"skipped\":\"\"},") - 1 + \
			       PLAN_NAME_LEN + PLAN_GROUP_LEN + PLAN_WHY_LEN)
#define PLAN_CONFIGS_HEAD_BYTES 128  /* the record's prefix, kind, workload name, first, brackets and CRC */
_Static_assert(PLAN_CONFIGS_PER_RECORD * PLAN_CONFIG_MAX_BYTES + PLAN_CONFIGS_HEAD_BYTES <= CONSOLE_REC_BUF,
	       "a plan_configs record of skipped configurations at their longest fits the record buffer");
#define DUR_LEN 24
#define REFIT_NOTE_S 1.0             /* a refit that moves the end by more than this is said */

/* ---- Private Variables ---------------------------------------------------- */
static const char *names[PLAN_MAX_WORKLOADS];    /* the run's workloads by index (seq_report_names) */
static unsigned n_names;

/* ---- Private Functions ---------------------------------------------------- */
static const char *unit_name(const struct plan_item *it)
{
	return it->unit == PLAN_UNIT_PAIRS ? "pairs" : it->unit == PLAN_UNIT_PASSES ? "passes" : "iters";
}

static void emit_workload(struct rec *r, const struct plan *p, unsigned w)
{
	const struct plan_share *s = &p->share[w];
	uint32_t n, sk;
	double sec = plan_workload_seconds(p, (uint16_t)w, &n, &sk);
	rec_obj_begin(r, 0);
	rec_str(r, "name", names[w]);
	rec_f64(r, "estimated_s", sec, 1);
	rec_f64(r, "share_s", s->share_s, 1);
	rec_f64(r, "least_s", s->least_s, 1);
	rec_f64(r, "asked_s", s->want_s, 1);
	rec_f64(r, "calibration_s", s->calibration_s, 2);
	if (s->setup_s > 0)
		rec_f64(r, "setup_s", s->setup_s * p->pace, 2);
	rec_u64(r, "configs", n);
	rec_u64(r, "skipped", sk);
	if (s->skip)
		rec_str(r, "skip_reason", s->why);
	rec_arr_begin(r, "kinds");
	for (unsigned k = 0; k < PLAN_MAX_GROUPS; k++) {
		const struct plan_group_fit *kf = &s->group[k];
		if (!kf->n)
			continue;
		rec_obj_begin(r, 0);
		rec_str(r, "name", kf->name);
		rec_u64(r, "configs", kf->n);
		rec_f64(r, "share_s", kf->share_s, 2);
		rec_f64(r, "estimated_s", kf->planned_s, 2);
		rec_f64(r, "units_scale", kf->scale, 4);
		if (kf->reps_cap)
			rec_u64(r, "reps_cap", kf->reps_cap);
		rec_u64(r, "dropped", kf->dropped);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_obj_end(r);
}

static void emit_records(const struct plan *p, uint32_t workloads, bool plan_only, const char *samples, uint32_t slow,
			 double spread)
{
	struct rec *r = console_rec_open("plan");
	if (p->budget_s > 0)
		rec_f64(r, "budget_s", p->budget_s, 0);
	else
		rec_null(r, "budget_s");
	rec_f64(r, "estimated_s", p->estimated_s, 1);
	double calibration = 0; /* the workloads' calibration alone; what went before it is the boot's */
	for (unsigned w = 0; w < PLAN_MAX_WORKLOADS; w++)
		calibration += p->share[w].calibration_s;
	rec_f64(r, "calibration_s", calibration, 2);
	rec_f64(r, "before_plan_s", p->spent_s, 1);
	if (spread >= 0)
		rec_f64(r, "calibration_spread", spread, 3);
	else
		rec_null(r, "calibration_spread");
	rec_f64(r, "end_reserve_s", p->end_reserve_s, 1);
	if (p->serial_bytes_per_s > 0) /* what printing was measured to cost: the plan counts it */
		rec_f64(r, "print_bytes_per_s", p->serial_bytes_per_s, 0);
	else
		rec_null(r, "print_bytes_per_s");
	rec_str(r, "fit", p->how);
	rec_f64(r, "units_scale", p->scale, 4);
	if (p->reps_cap)
		rec_u64(r, "reps_cap", p->reps_cap);
	rec_u64(r, "configs", p->n);
	rec_u64(r, "skipped", p->n_skipped);
	rec_u64(r, "workloads_skipped", p->n_workloads_skipped);
	if (p->n_lost)
		rec_u64(r, "not_planned", p->n_lost);
	rec_bool(r, "plan_only", plan_only);
	rec_str(r, "samples", samples);
	if (slow > 1)
		rec_u64(r, "slow", slow);
	rec_str(r, "estimates", SEQ_ESTIMATES_NOTE);
	rec_str(r, "unforeseen", SEQ_UNFORESEEN_NOTE);
	rec_arr_begin(r, "workloads");
	for (unsigned w = 0; w < n_names; w++)
		if ((workloads >> w) & 1)
			emit_workload(r, p, w);
	rec_arr_end(r);
	console_rec_emit(r);

	/* Every configuration, a few hundred per record. */
	for (unsigned w = 0; w < n_names; w++) {
		uint32_t cursor = 0, listed = 0;
		const struct plan_item *it = plan_next((struct plan *)p, (uint16_t)w, &cursor);
		while (it) {
			r = console_rec_open("plan_configs");
			rec_str(r, "workload", names[w]);
			rec_u64(r, "first", listed);
			rec_arr_begin(r, "configs");
			for (uint32_t k = 0; it && k < PLAN_CONFIGS_PER_RECORD; k++, listed++) {
				rec_obj_begin(r, 0);
				rec_str(r, "name", it->name);
				rec_str(r, "kind", p->share[w].group[it->group].name);
				if (it->least)
					rec_bool(r, "least", true);
				if (it->skip) {
					rec_str(r, "skipped", it->why);
				} else {
					rec_u64(r, unit_name(it), it->units);
					rec_u64(r, "reps", it->reps);
					rec_f64(r, "planned_s", it->planned_s, 3);
				}
				rec_obj_end(r);
				it = plan_next((struct plan *)p, (uint16_t)w, &cursor);
			}
			rec_arr_end(r);
			console_rec_emit(r);
		}
	}
}

static void print_groups(const struct plan *p, unsigned w)
{
	const struct plan_share *s = &p->share[w];
	char d[DUR_LEN];
	for (unsigned k = 0; k < PLAN_MAX_GROUPS; k++) {
		const struct plan_group_fit *kf = &s->group[k];
		if (!kf->n || !kf->name[0])
			continue;
		seq_dur(d, sizeof(d), kf->planned_s);
		kprintf("      %-10s %4u, about %s", kf->name, kf->n, d);
		if (kf->scale < 1) { /* a share that reads as what it is: never "0.0%" */
			double pct = 100 * kf->scale;
			if (pct >= 1)
				kprintf(", iterations at %.1f%%", pct);
			else if (pct >= 0.001)
				kprintf(", iterations at %.3f%%", pct);
			else
				kprintf(", iterations at their least (under 0.001%%)");
		}
		if (kf->reps_cap)
			kprintf(", at most %u repetitions", kf->reps_cap);
		if (kf->dropped)
			kprintf(", %u dropped", kf->dropped);
		kprintf("\n");
	}
}

static void print_configs(const struct plan *p, unsigned w)
{
	uint32_t cursor = 0;
	for (const struct plan_item *it = plan_next((struct plan *)p, (uint16_t)w, &cursor); it;
	     it = plan_next((struct plan *)p, (uint16_t)w, &cursor)) {
		if (it->skip)
			kprintf("    %-52s skipped: %s\n", it->name, it->why);
		else if (it->reps)
			kprintf("    %-52s %12llu %-6s x %3u reps %10.2f s%s\n", it->name, (unsigned long long)it->units,
				unit_name(it), it->reps, it->planned_s, it->least ? " *" : "");
		else
			kprintf("    %-52s %12llu %-6s once     %10.2f s%s\n", it->name, (unsigned long long)it->units,
				unit_name(it), it->planned_s, it->least ? " *" : "");
	}
}

static void print_text(const struct plan *p, uint32_t workloads, bool plan_only, uint32_t slow, double spread)
{
	char b[DUR_LEN], e[DUR_LEN], c[DUR_LEN], sh[DUR_LEN], l[DUR_LEN];
	seq_dur(e, sizeof(e), p->estimated_s);
	seq_dur(c, sizeof(c), p->spent_s);
	if (p->budget_s > 0) {
		seq_dur(b, sizeof(b), p->budget_s);
		kprintf("\nplan: about %s in all, budget %s (%s); %s so far (start-up and calibration)\n", e, b, p->how, c);
		kprintf("plan: every workload and each kind of experiment in it gets a fair share; the run ends %.0f s "
			"before the budget, for its last records\n", p->end_reserve_s);
	} else {
		kprintf("\nplan: about %s in all, no budget (the quick profile keeps its sizes); %s so far\n", e, c);
	}
	if (spread >= 0)
		kprintf("plan: the configurations timed twice disagreed by %.0f%% of what they are planned to take "
			"(the calibration's own noise; calibrated again at the next boot, it can move as much)\n",
			100 * spread);
	kprintf("plan: each configuration was timed just now on a short run of it (the plan record says how); the run "
		"keeps to its budget whatever the estimates miss\n");
	if (slow > 1)
		kprintf("plan: slow=%u (debug): every repetition from here on is made %u times as long\n", slow, slow);
	if (p->n_workloads_skipped)
		kprintf("plan: %u workload(s) skipped: even their least form does not fit\n", p->n_workloads_skipped);
	if (p->n_lost)
		console_error("plan", "%u configurations past the plan's limit of %u were not planned", p->n_lost,
			      PLAN_MAX_ITEMS);
	for (unsigned w = 0; w < n_names; w++) {
		if (!((workloads >> w) & 1))
			continue;
		const struct plan_share *s = &p->share[w];
		uint32_t n, sk;
		seq_dur(e, sizeof(e), plan_workload_seconds(p, (uint16_t)w, &n, &sk));
		seq_dur(sh, sizeof(sh), s->share_s);
		seq_dur(l, sizeof(l), s->least_s);
		if (s->skip)
			kprintf("  %-12s %4u configurations, skipped: %s\n", names[w], n, s->why);
		else if (p->budget_s > 0)
			kprintf("  %-12s %4u configurations, %u dropped, about %s (share %s, least form %s)\n", names[w],
				n, sk, e, sh, l);
		else
			kprintf("  %-12s %4u configurations, about %s\n", names[w], n, e);
		if (!s->skip)
			print_groups(p, w);
		if (plan_only)
			print_configs(p, w);
	}
	if (plan_only)
		kprintf("  (* the least form: kept whatever the budget)\n");
}

/* ---- Public Functions ----------------------------------------------------- */
void seq_dur(char *buf, size_t cap, double s)
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

void seq_report_names(const char *const *n, unsigned count)
{
	n_names = count < PLAN_MAX_WORKLOADS ? count : PLAN_MAX_WORKLOADS;
	for (unsigned w = 0; w < n_names; w++)
		names[w] = n[w];
}

void seq_report_plan(const struct plan *p, uint32_t workloads, bool plan_only, const char *samples, uint32_t slow,
		     double calibration_spread)
{
	print_text(p, workloads, plan_only, slow, calibration_spread);
	emit_records(p, workloads, plan_only, samples, slow, calibration_spread);
}

void seq_report_refit(const struct plan *p, double spent_s, double before_s, uint32_t skipped_before,
		      uint32_t first, const char *where)
{
	double drift = before_s - p->estimated_s;
	if (drift <= REFIT_NOTE_S && drift >= -REFIT_NOTE_S && p->n_skipped == skipped_before)
		return;
	kprintf("plan: %.0f s used of %.0f s, %s: the run goes at %.2fx the calibrated pace; the remaining %u "
		"configuration(s) refitted (%s): the run now ends at about %.0f s%s\n", spent_s, p->budget_s, where,
		p->pace, p->n - first, p->how, p->estimated_s,
		p->n_skipped > skipped_before ? ", some dropped to keep the budget" : "");
	struct rec *r = console_rec_open("plan_refit");
	rec_str(r, "where", where);
	rec_f64(r, "spent_s", spent_s, 1);
	rec_f64(r, "pace", p->pace, 3);
	rec_f64(r, "estimated_s", p->estimated_s, 1);
	rec_str(r, "fit", p->how);
	rec_u64(r, "configs", p->n - first);
	rec_u64(r, "skipped", p->n_skipped);
	rec_arr_begin(r, "workloads_skipped");
	for (unsigned w = 0; w < n_names && w < PLAN_MAX_WORKLOADS; w++) {
		bool ahead = false;
		for (uint32_t i = first; i < p->n && !ahead; i++)
			ahead = p->item[i].workload == w;
		if (!ahead || !p->share[w].skip)
			continue;
		kprintf("plan: %s skipped: %s\n", names[w], p->share[w].why);
		rec_obj_begin(r, 0);
		rec_str(r, "name", names[w]);
		rec_str(r, "reason", p->share[w].why);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	console_rec_emit(r);
}
