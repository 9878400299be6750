/* noise_report.c - the noise workload's records and lines: the `result` with its `gaps` object, a `noise_cpu` record per CPU, the text and the run's last line (docs/records.md); see noise_run.h. */
#include "noise_run.h"
#include "console.h"
#include "disturb.h"
#include "fmt.h"
#include "lib.h"
#include "limits.h"
#include "report.h"
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define TEXT_CPUS 8                    /* CPUs with a text line of their own, at most */
#define LINE_LEN 320
#define NUM_LEN 32
#define NS_PER_S 1e9
#define PPM 1e6
#define THOUSAND 1000

/* ---- Private Variables ---------------------------------------------------- */
/* How the line names each cause (gaps_cause_name is the records' key). */
static const char *const cause_words[GAPS_CAUSES] = {
	[GAPS_SMI] = "SMIs",
	[GAPS_INTERRUPT] = "interrupts",
	[GAPS_SWITCH] = "context switches",
	[GAPS_MIGRATION] = "migrations",
	[GAPS_FAULT] = "faults",
};

/* ---- Private Functions ---------------------------------------------------- */
static double ns_of(uint64_t ticks)
{
	uint64_t hz = tsc_hz();
	return hz ? (double)ticks * NS_PER_S / (double)hz : 0;
}

/* "180 ns", "2.1 us", "3.4 ms", "1.2 s". */
static void dur_text(char *b, size_t cap, double ns)
{
	if (ns < THOUSAND - 0.5)
		fmt_snprintf(b, cap, "%.0f ns", ns);
	else if (ns < 1e6 - 50)
		fmt_snprintf(b, cap, "%.1f us", ns / 1e3);
	else if (ns < 1e9 - 5e4)
		fmt_snprintf(b, cap, "%.1f ms", ns / 1e6);
	else
		fmt_snprintf(b, cap, "%.2f s", ns / 1e9);
}

/* "2,412": a whole number with its thousands set apart. */
static void count_text(char *b, size_t cap, uint64_t v)
{
	char digits[NUM_LEN];
	int n = fmt_snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < n && o + 1 < cap; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < cap)
			b[o++] = ',';
		b[o++] = digits[i];
	}
	b[o] = 0;
}

/* ppm with about three significant digits: "0.412", "12.3", "1,800"; "-"
 * for none (negative: nothing observed). */
static void ppm_text(char *b, size_t cap, double ppm)
{
	if (ppm < 0)
		fmt_snprintf(b, cap, "-");
	else if (ppm >= THOUSAND)
		count_text(b, cap, (uint64_t)(ppm + 0.5));
	else
		fmt_snprintf(b, cap, "%.*f", ppm >= 100 ? 0 : ppm >= 10 ? 1 : ppm >= 1 ? 2 : 3, ppm);
}

/* The causes counted on every CPU (every: true) or on some (false). */
static uint32_t masks(const struct noise_run *nr, bool every)
{
	uint32_t m = every ? ~0u : 0;
	for (uint32_t t = 0; t < nr->set->n; t++)
		m = every ? m & nr->mask[t] : m | nr->mask[t];
	return nr->set->n ? m : 0;
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
		rec_f64(r, "longest_ns", ns_of(g->longest), 1);
		rec_f64(r, "longest_at_s", ns_of(g->longest_at - g->first) / NS_PER_S, 6);
	} else {
		rec_null(r, "longest_ns");
		rec_null(r, "longest_at_s");
	}
}

/* The run's `gaps` object; its totals into the caller's for the lines. */
static void write_gaps(struct rec *r, const struct noise_run *nr, uint64_t *cause, uint64_t *unexplained,
		       uint64_t *count, double *ppm_mean, uint32_t *longest)
{
	const struct gaps_cfg *cfg = &nr->cfg;
	uint32_t n = nr->set->n, observed = 0;
	uint64_t unread = 0, observed_ticks = 0;
	double ppm_sum = 0, ppm_max = 0;
	*count = *unexplained = 0;
	*longest = 0;
	for (uint32_t t = 0; t < n; t++) {
		const struct gaps_cpu *g = &nr->cpu[t];
		*count += g->count;
		*unexplained += g->unexplained;
		unread += g->unread;
		for (uint32_t k = 0; k < GAPS_CAUSES; k++)
			cause[k] += g->cause[k];
		if (g->longest > nr->cpu[*longest].longest)
			*longest = t;
		observed_ticks += gaps_observed(g);
		if (gaps_observed(g)) {
			observed++;
			ppm_sum += gaps_ppm(g);
			ppm_max = MAX(ppm_max, gaps_ppm(g));
		}
	}
	*ppm_mean = observed ? ppm_sum / observed : -1;
	rec_obj_begin(r, "gaps");
	rec_f64(r, "seconds", nr->seconds, 3);
	rec_f64(r, "observed_cpu_s", ns_of(observed_ticks) / NS_PER_S, 6); /* a deadline may cut the loops short */
	rec_u64(r, "loop_min_ticks", cfg->base);
	rec_u64(r, "threshold_ticks", cfg->threshold);
	rec_f64(r, "threshold_ns", ns_of(cfg->threshold), 1);
	rec_f64(r, "attribute_ns", ns_of(cfg->attr_threshold), 1);
	rec_u64(r, "count", *count);
	if (observed) {
		rec_f64(r, "ppm_mean", *ppm_mean, 3);
		rec_f64(r, "ppm_max", ppm_max, 3);
	} else {
		rec_null(r, "ppm_mean");
		rec_null(r, "ppm_max");
	}
	const struct gaps_cpu *lg = &nr->cpu[*longest];
	write_longest(r, lg);
	if (lg->count)
		rec_u64(r, "longest_cpu", nr->set->cpu[*longest]);
	else
		rec_null(r, "longest_cpu");
	uint32_t every = masks(nr, true), partly = masks(nr, false) & ~every;
	write_attributed(r, cause, *unexplained, every, partly);
	if (partly)
		rec_str(r, "attributed_note", "null: counted on some CPUs only (a thread's counters could not be opened: "
			"the open-file limit?); each noise_cpu record has its own");
	if (unread)
		rec_u64(r, "attributed_unread", unread); /* counters that could not be read after a gap */
	rec_obj_begin(r, "hist");
	rec_arr_begin(r, "edges_ns");
	for (uint32_t k = 0; k < cfg->hist_n; k++)
		rec_f64(r, 0, ns_of(gaps_edge(cfg, k)), 1);
	rec_arr_end(r);
	rec_arr_begin(r, "counts");
	for (uint32_t k = 0; k < cfg->hist_n; k++)
		rec_u64(r, 0, nr->hist[k]);
	rec_arr_end(r);
	rec_obj_end(r);
	rec_obj_end(r);
}

/* One `noise_cpu` record per CPU, and a text line for the first few. */
static void write_cpus(const struct noise_run *nr)
{
	for (uint32_t t = 0; t < nr->set->n; t++) {
		const struct gaps_cpu *g = &nr->cpu[t];
		struct rec *r = console_rec_open("noise_cpu");
		rec_u64(r, "cpu", nr->set->cpu[t]);
		rec_u64(r, "count", g->count);
		rec_f64(r, "observed_s", ns_of(gaps_observed(g)) / NS_PER_S, 6);
		if (gaps_observed(g))
			rec_f64(r, "ppm", gaps_ppm(g), 3);
		else
			rec_null(r, "ppm");
		write_longest(r, g);
		write_attributed(r, g->cause, g->unexplained, nr->mask[t], 0);
		console_rec_emit(r);
		if (t >= TEXT_CPUS)
			continue;
		char p[NUM_LEN], d[NUM_LEN];
		ppm_text(p, sizeof(p), gaps_ppm(g));
		dur_text(d, sizeof(d), ns_of(g->longest));
		kprintf("  cpu %u: %llu gaps, %s ppm%s, longest %s\n", nr->set->cpu[t], (unsigned long long)g->count, p,
			gaps_observed(g) ? "" : " (not observed)", g->count ? d : "none");
	}
}

/* "noise: 0.4 ppm, longest gap 2.1 us; gaps of 1.0 us or more: 3 SMIs, 1 unexplained". */
static void final_line(const struct noise_run *nr, double ppm, const struct gaps_cpu *lg, const uint64_t *cause,
		       uint64_t unexplained)
{
	char line[LINE_LEN], p[NUM_LEN], d[NUM_LEN], a[NUM_LEN], c[NUM_LEN];
	uint32_t mask = masks(nr, true), partly = masks(nr, false) & ~mask;
	ppm_text(p, sizeof(p), ppm);
	dur_text(d, sizeof(d), ns_of(lg->longest));
	dur_text(a, sizeof(a), ns_of(nr->cfg.attr_threshold));
	size_t len = (size_t)fmt_snprintf(line, sizeof(line), "noise: %s ppm%s, longest gap %s; gaps of %s or more:", p,
					  ppm < 0 ? " (not observed)" : "", lg->count ? d : "none", a);
	for (uint32_t k = 0; k < GAPS_CAUSES && len < sizeof(line); k++)
		if ((mask >> k) & 1) {
			count_text(c, sizeof(c), cause[k]);
			len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s %s,", c, cause_words[k]);
		} else if ((partly >> k) & 1) {
			len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s not counted on every CPU,",
						    cause_words[k]);
		}
	count_text(c, sizeof(c), unexplained);
	if (len < sizeof(line))
		len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s unexplained%s", c,
					    (mask >> GAPS_SMI) & 1 ? "" : " (SMIs not counted here)");
	uint64_t irqs;
	const char *how;
	if (!((mask >> GAPS_INTERRUPT) & 1) && disturb_config_interrupts(&irqs, &how) && len < sizeof(line)) {
		count_text(c, sizeof(c), irqs);
		fmt_snprintf(line + len, sizeof(line) - len, "; %s interrupts on its CPUs (/proc/interrupts)", c);
	}
	seq_final_line(line);
}

/* ---- Public Functions ----------------------------------------------------- */
void noise_report_skipped(const struct wl_ctx *ctx, const char *why)
{
	struct rec *r = report_result_open("noise", "tsc-gaps", ctx->online);
	report_result_close(r, "skipped", why);
	kprintf("noise: skipped: %s\n", why);
	char line[LINE_LEN];
	fmt_snprintf(line, sizeof(line), "noise: not measured (%s)", why);
	seq_final_line(line);
}

void noise_report(const struct wl_ctx *ctx, const struct plan_item *it, struct noise_run *nr, struct reps *log,
		  bool ok, const char *why)
{
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
	struct rec *r = report_result_open("noise", "tsc-gaps", nr->set);
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
	uint64_t cause[GAPS_CAUSES] = { 0 }, unexplained = 0, count = 0;
	double ppm = -1;
	uint32_t longest = 0;
	if (ok)
		write_gaps(r, nr, cause, &unexplained, &count, &ppm, &longest);
	seq_item_report(r, it);
	char limit[160];
	const char *bad = ok ? limits_check(LIMIT_TSC_READ_NS, ns_of(nr->cfg.base), 1, limit, sizeof(limit)) : 0;
	if (ok && !bad && !ctx->quick && nr->seconds < NOISE_FULL_LEAST_S) {
		char reason[160];
		fmt_snprintf(reason, sizeof(reason), "the budget gave the loop %.1f s; a full measurement spins at least %.0f s",
			     nr->seconds, NOISE_FULL_LEAST_S);
		report_result_demote("short", reason);
	}
	report_result_close(r, !ok || bad ? "fail" : "ok", !ok ? why : bad);
	if (!ok) {
		char line[LINE_LEN];
		fmt_snprintf(line, sizeof(line), "noise: not measured (the run failed: %s)", why);
		seq_final_line(line);
		return;
	}
	write_cpus(nr);
	char p[NUM_LEN], d[NUM_LEN];
	ppm_text(p, sizeof(p), ppm);
	dur_text(d, sizeof(d), ns_of(nr->cpu[longest].longest));
	console_summary("noise       %u CPUs, %s ppm, longest gap %s, %llu gaps", n, p, count ? d : "none",
			(unsigned long long)count);
	final_line(nr, ppm, &nr->cpu[longest], cause, unexplained);
}
