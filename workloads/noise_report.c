/* noise_report.c - the noise workload's records: the `result` with its `gaps` object (the pooled ppm first, rtla's thresholds, the bookkeeping) and a `noise_cpu` record per CPU (docs/records.md); the lines are noise_text.c's; see noise_run.h. */
#include "noise_run.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "limits.h"
#include "report.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define NS_PER_S 1e9
#define PPM 1e6
#define OVER_KEY_LEN 16

/* What an attributed gap's counts mean (gaps.h: the counters are read after
 * every gap and on every calm stretch of GAPS_REBASE_NS). */
static const char attribution_window[] =
	"what moved between the counter read before the gap (right after the CPU's gap before it, or at most 1 ms of "
	"calm loop before it began) and the read right after it; what moved in another gap went to that gap";
static const char attribution_none[] = "nothing is counted here: every attributed gap is unexplained";

/* ---- Private Functions ---------------------------------------------------- */
/* A ppm, or null for none (negative: nothing observed). */
static void rec_ppm(struct rec *r, const char *key, double ppm)
{
	if (ppm < 0)
		rec_null(r, key);
	else
		rec_f64(r, key, ppm, 3);
}

/* "attributed": each counted cause's gaps, and the unexplained ones; a
 * cause that only some CPUs counted (partly) is null: their sum would be
 * an undercount. */
static void write_attributed(struct rec *r, const uint64_t *cause, uint64_t unexplained, uint32_t mask,
			     uint32_t partly)
{
	rec_obj_begin(r, "attributed");
	for (uint32_t k = 0; k < GAPS_CAUSES; k++)
		if ((mask >> k) & 1)
			rec_u64(r, gaps_cause_name((enum gaps_cause)k), cause[k]);
		else if ((partly >> k) & 1)
			rec_null(r, gaps_cause_name((enum gaps_cause)k));
	rec_u64(r, "unexplained", unexplained);
	rec_obj_end(r);
}

/* "longest_ns" and "longest_at_s" of one CPU, null without a gap. */
static void write_longest(struct rec *r, const struct gaps_cpu *g)
{
	if (g->count) {
		rec_f64(r, "longest_ns", noise_ns(g->longest), 1);
		rec_f64(r, "longest_at_s", noise_ns(g->longest_at - g->first) / NS_PER_S, 6);
	} else {
		rec_null(r, "longest_ns");
		rec_null(r, "longest_at_s");
	}
}

/* "over_1us" and "over_5us": iterations at or over rtla's thresholds, their
 * whole lengths over the observed time (ppm) and the longest; null, with
 * "over_note", where the TSC's rate is unknown. with_threshold: the run's
 * object, which names its threshold. */
static void write_over(struct rec *r, const struct gaps_cfg *cfg, const uint64_t *count, const double *ppm,
		       uint64_t longest, bool with_threshold)
{
	for (uint32_t k = 0; k < GAPS_OVER; k++) {
		char key[OVER_KEY_LEN];
		fmt_snprintf(key, sizeof(key), "over_%lluus", (unsigned long long)(gaps_over_ns[k] / 1000));
		if (!cfg->over[k]) {
			rec_null(r, key);
			continue;
		}
		rec_obj_begin(r, key);
		if (with_threshold)
			rec_u64(r, "threshold_ns", gaps_over_ns[k]);
		rec_u64(r, "count", count[k]);
		rec_ppm(r, "ppm", ppm[k]);
		if (longest >= cfg->over[k])
			rec_f64(r, "longest_ns", noise_ns(longest), 1);
		else
			rec_null(r, "longest_ns");
		rec_obj_end(r);
	}
	if (!cfg->over[0])
		rec_str(r, "over_note", "null: the TSC's frequency is unknown, so 1 us and 5 us have no length in ticks");
}

/* The run's `gaps` object. */
static void write_gaps(struct rec *r, const struct noise_run *nr, const struct gaps_sum *s)
{
	const struct gaps_cfg *cfg = &nr->cfg;
	rec_obj_begin(r, "gaps");
	rec_f64(r, "seconds", nr->seconds, 3);
	rec_f64(r, "observed_cpu_s", noise_ns(s->observed) / NS_PER_S, 6); /* a deadline may cut the loops short */
	rec_f64(r, "lost_cpu_s", noise_ns(s->lost) / NS_PER_S, 9);
	rec_ppm(r, "ppm", gaps_sum_ppm(s));                               /* pooled: lost over observed */
	rec_ppm(r, "ppm_mean", gaps_sum_ppm_mean(s));
	rec_ppm(r, "ppm_max", s->observed_cpus ? s->ppm_max : -1);
	rec_u64(r, "loop_min_ticks", s->base_min);
	rec_u64(r, "loop_min_ticks_max", s->base_max);
	rec_u64(r, "threshold_ticks", GAPS_FACTOR * s->base_min);
	rec_f64(r, "threshold_ns", noise_ns(GAPS_FACTOR * s->base_min), 1);
	rec_f64(r, "threshold_ns_max", noise_ns(GAPS_FACTOR * s->base_max), 1);
	rec_f64(r, "attribute_ns", noise_ns(cfg->attr_threshold), 1);
	rec_u64(r, "count", s->count);
	double over_ppm[GAPS_OVER];
	for (uint32_t k = 0; k < GAPS_OVER; k++)
		over_ppm[k] = gaps_sum_over_ppm(s, k);
	write_over(r, cfg, s->over_count, over_ppm, s->over_longest, true);
	rec_obj_begin(r, "bookkeeping");
	rec_f64(r, "cost_ns_min", noise_ns(s->book_min), 1);
	rec_f64(r, "cost_ns_max", noise_ns(s->book_max), 1);
	rec_u64(r, "stalls", s->stalls);
	rec_f64(r, "stall_lost_s", noise_ns(s->stall_lost) / NS_PER_S, 9);
	rec_obj_end(r);
	const struct gaps_cpu *lg = &nr->cpu[s->longest_cpu];
	write_longest(r, lg);
	if (lg->count)
		rec_u64(r, "longest_cpu", nr->set->cpu[s->longest_cpu]);
	else
		rec_null(r, "longest_cpu");
	uint32_t every = noise_masks(nr, true), partly = noise_masks(nr, false) & ~every;
	rec_str(r, "attribution_window", every | partly ? attribution_window : attribution_none);
	write_attributed(r, s->cause, s->unexplained, every, partly);
	if (partly)
		rec_str(r, "attributed_note", "null: counted on some CPUs only (a thread's counters could not be opened: "
			"the open-file limit?); each noise_cpu record has its own");
	if (s->unread)
		rec_u64(r, "attributed_unread", s->unread); /* counters that could not be read after a gap */
	rec_obj_begin(r, "hist");
	rec_arr_begin(r, "edges_ns");
	for (uint32_t k = 0; k < cfg->hist_n; k++)
		rec_f64(r, 0, noise_ns(gaps_edge(cfg, k)), 1);
	rec_arr_end(r);
	rec_arr_begin(r, "counts");
	for (uint32_t k = 0; k < cfg->hist_n; k++)
		rec_u64(r, 0, nr->hist[k]);
	rec_arr_end(r);
	rec_obj_end(r);
	rec_obj_end(r);
}

/* One `noise_cpu` record per CPU. */
static void write_cpus(const struct noise_run *nr)
{
	for (uint32_t t = 0; t < nr->set->n; t++) {
		const struct gaps_cpu *g = &nr->cpu[t];
		struct rec *r = console_rec_open("noise_cpu");
		rec_u64(r, "cpu", nr->set->cpu[t]);
		rec_u64(r, "count", g->count);
		rec_f64(r, "observed_s", noise_ns(gaps_observed(g)) / NS_PER_S, 6);
		rec_ppm(r, "ppm", gaps_ppm(g));
		write_longest(r, g);
		rec_u64(r, "loop_min_ticks", g->base);
		rec_u64(r, "threshold_ticks", g->threshold);
		rec_f64(r, "bookkeeping_ns", noise_ns(g->book), 1);
		rec_u64(r, "stalls", g->stalls);
		double over_ppm[GAPS_OVER];
		for (uint32_t k = 0; k < GAPS_OVER; k++)
			over_ppm[k] = gaps_over_ppm(g, k);
		write_over(r, &nr->cfg, g->over_count, over_ppm, g->over_longest, false);
		write_attributed(r, g->cause, g->unexplained, nr->mask[t], 0);
		console_rec_emit(r);
		noise_cpu_line(nr, t);
	}
}

/* ---- Public Functions ----------------------------------------------------- */
uint32_t noise_masks(const struct noise_run *nr, bool every)
{
	uint32_t m = every ? ~0u : 0;
	for (uint32_t t = 0; t < nr->set->n; t++)
		m = every ? m & nr->mask[t] : m | nr->mask[t];
	return nr->set->n ? m : 0;
}

double noise_ns(uint64_t ticks)
{
	uint64_t hz = tsc_hz();
	return hz ? (double)ticks * NS_PER_S / (double)hz : 0;
}

void noise_report(struct wl_item *c, struct noise_run *nr, struct reps *log, bool ok, const char *why)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	uint32_t n = nr->set->n, k = 0;
	uint64_t *lost = nr->scratch;
	/* The statistics: each CPU's ticks lost, per `seconds` of its observed loop. */
	for (uint32_t t = 0; ok && t < n; t++) {
		uint64_t obs = gaps_observed(&nr->cpu[t]);
		if (obs)
			lost[k++] = (uint64_t)((double)nr->cpu[t].lost * (double)nr->ticks / (double)obs + 0.5);
	}
	struct stats st;
	stats_compute(lost, k, nr->scratch + n, &st);
	struct rec *r = wl_result_open(c, "tsc-gaps", nr->set);
	rec_obj_begin(r, "params");
	rec_f64(r, "seconds", nr->seconds, 3);
	rec_u64(r, "attribute_ns", nr->attr_ns);
	rec_str(r, "flush", "none");
	rec_obj_end(r);
	report_stats(r, "ticks", &st);
	rec_str(r, "statistics_of", "each CPU's ticks lost in gaps, per the loop's seconds");
	reps_span_figure(r, &st, 0);
	reps_span_samples(r, lost, k);
	reps_report_noise(r, log);
	struct report_measure m = { "ppm", "ppm", nr->ticks ? PPM / (double)nr->ticks : 0, false, LIMIT_NONE, 1 };
	report_measures(r, &m, 1);
	struct gaps_sum s;
	memset(&s, 0, sizeof(s));
	for (uint32_t t = 0; ok && t < n; t++)
		gaps_sum_add(&s, &nr->cpu[t]);
	if (ok)
		write_gaps(r, nr, &s);
	char limit[160];
	const char *bad = ok ? limits_check(LIMIT_TSC_READ_NS, noise_ns(s.base_min), 1, limit, sizeof(limit)) : 0;
	if (ok && !bad && !ctx->quick && nr->seconds < NOISE_FULL_LEAST_S) {
		char reason[160];
		fmt_snprintf(reason, sizeof(reason), "the budget gave the loop %.1f s; a full measurement spins at least %.0f s",
			     nr->seconds, NOISE_FULL_LEAST_S);
		wl_result_short(c, r, reason);
	} else {
		wl_result_close(c, r, !ok || bad ? WL_ERR_FAIL : WL_OK, !ok ? why : bad);
	}
	if (!ok) {
		char line[NOISE_LINE_LEN];
		fmt_snprintf(line, sizeof(line), "the run failed: %s", why);
		noise_not_measured(line);
		return;
	}
	write_cpus(nr);
	noise_lines(ctx, nr, &s);
}
