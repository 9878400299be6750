/* flushcheck.c - the run's flushes tried and judged at the start on every cache domain, the fallback, and what the records say of them; see flushcheck.h. */
#include "flushcheck.h"
#include "chase.h"
#include "cold.h"
#include "console.h"
#include "evict.h"
#include "flushprobe.h"
#include "flushset.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define MAX_ROWS 4
#define WHY_LEN 96
#define NAME_RUN_FLUSH_WBINVD "wbinvd"
#define NAME_RUN_FLUSH_EVICT "eviction-read"
#define NAME_RUN_FLUSH_FALLBACK "clflush+eviction-read"
#define NAME_FALLBACK_ROW "eviction-read-large"
#define NO_EFFECTIVE_FLUSH "no effective flush: results start warm"
#define ROUND_SLOTS FLUSHCHECK_ROUNDS_MAX
_Static_assert(ROUND_SLOTS <= COLD_ROUNDS_MAX, "cold_judge_rounds takes every round");

/* ---- Types ---------------------------------------------------------------- */
/* One flush on one domain: every timed round, disturbed or not. */
struct dom_rounds {
	uint64_t warm[ROUND_SLOTS], cold[ROUND_SLOTS], after[ROUND_SLOTS];
	uint8_t disturbed[ROUND_SLOTS];
	uint32_t rounds, n_disturbed;
	struct stats s_warm, s_cold, s_after;  /* over the undisturbed rounds (all of them: no scale, disturbed) */
	struct cold_judgement j;
	enum cold_verdict verdict;
};

/* One flush tried, and what it did to each domain's set. */
struct row {
	const char *method;              /* "wbinvd-all", "wbinvd-per-domain", "eviction-read", NAME_FALLBACK_ROW */
	const char *used_for;            /* "the run's flush", "flush's wbinvd-per-domain", "the fallback" */
	struct flushprobe_how how;
	const struct cpuset *set;        /* the CPUs that flush */
	uint64_t evict_bytes;            /* an eviction read's bytes per CPU (0: not one) */
	struct dom_rounds d[FLUSHPROBE_MAX_DOMAINS];
	uint64_t own[ROUND_SLOTS];       /* the slowest flushing CPU's own flush, every timed round */
	struct stats s_own;
	enum cold_verdict verdict;       /* the worst of its domains' */
	uint32_t worst;                  /* the domain whose verdict that is */
	bool twice;                      /* partial the first time: measured once more */
	const char *why;                 /* not checked: why (NULL when it was) */
	char text[WHY_LEN];              /* the verdict in words */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct row rows[MAX_ROWS];
static uint32_t n_rows;
static struct {
	bool ran;
	struct flushset_size size;
	uint32_t domains_total;          /* the LLC instances (where more than FLUSHPROBE_MAX_DOMAINS: some unprobed) */
	uint64_t took_ticks;             /* the check's own time, fallback included */
	const struct row *run_row;       /* the row of the flush the results get */
	const struct row *replaced;      /* after a fallback: the run's flush it replaced */
	const char *fallback_why;        /* no fallback although the run's flush was ineffective: why */
	bool no_effective;               /* neither the run's flush nor its fallback was effective */
	bool has_wbinvd;
	uint32_t n_domains;              /* the domains probed, and their CPUs (kept past the probe's teardown) */
	uint32_t domain_cpu[FLUSHPROBE_MAX_DOMAINS];
} fc;
static struct flushprobe probe;
static struct cpuset domains, probes;
static int probe_nodes[FLUSHPROBE_MAX_DOMAINS];
static struct flushprobe_out outs[FLUSHPROBE_MAX_DOMAINS];
static uint64_t scratch[ROUND_SLOTS];
static char fallback_text[WHY_LEN], verdict_text[WHY_LEN];

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t ms_to_ticks(uint64_t ms)
{
	return tsc_hz() ? ms * (tsc_hz() / 1000) : 0;
}

/* One round of a row: the method's column, then the warm and the cold
 * references, in one job on the probe (kernel/run/flushprobe.h). The
 * untimed round (timed false) warms the code and is not kept. False on a
 * failure that spoils every row (*why). */
static bool round_of(struct row *r, bool timed, const char **why)
{
	uint64_t own = 0;
	if (flushprobe_round(&probe, r->set, &r->how, run_default_timeout_ms, outs, &own) != RUN_OK) {
		r->why = "not checked: the flush's run failed";
		return true;
	}
	for (uint32_t d = 0; d < probe.n; d++) {
		if (outs[d].wrong) {
			*why = "not checked: the chase read wrong data";
			return false;
		}
	}
	if (!timed)
		return true;
	for (uint32_t d = 0; d < probe.n; d++) {
		struct dom_rounds *D = &r->d[d];
		D->warm[D->rounds] = outs[d].warm;
		D->cold[D->rounds] = outs[d].cold;
		D->after[D->rounds] = outs[d].after;
		D->disturbed[D->rounds] = outs[d].disturbed;
		D->n_disturbed += outs[d].disturbed;
		D->rounds++;
	}
	r->own[r->d[0].rounds - 1] = own;
	return true;
}

/* The rounds of v kept (clean: the undisturbed ones only) into out; how many. */
static uint32_t kept(const struct dom_rounds *D, const uint64_t *v, bool clean, uint64_t *out)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < D->rounds; k++)
		if (!clean || !D->disturbed[k])
			out[n++] = v[k];
	return n;
}

/* Statistics of the rounds of v kept. */
static void stats_of(const struct dom_rounds *D, const uint64_t *v, bool clean, struct stats *out)
{
	uint64_t keep[ROUND_SLOTS];
	stats_compute(keep, kept(D, v, clean, keep), scratch, out);
}

/* Whether the references over every round so far make a scale (warm or
 * not): caches are visible, and a disturbed round matters. */
static bool visible(const struct dom_rounds *D)
{
	struct stats w, c;
	struct cold_judgement j;
	stats_of(D, D->warm, false, &w);
	stats_of(D, D->cold, false, &c);
	cold_judge(&w, &c, 0, &j);
	return j.scale == COLD_SCALE_OK || j.scale == COLD_WARM_NOT_WARM;
}

/* A domain still short of FLUSHCHECK_ROUNDS undisturbed rounds, where caches are visible. */
static bool needs_more(const struct row *r)
{
	for (uint32_t d = 0; d < probe.n; d++)
		if (r->d[d].rounds - r->d[d].n_disturbed < FLUSHCHECK_ROUNDS && visible(&r->d[d]))
			return true;
	return false;
}

/* Whether any domain of rows [first, last) sees caches yet. */
static bool any_visible(uint32_t first, uint32_t last)
{
	for (uint32_t i = first; i < last; i++)
		for (uint32_t d = 0; !rows[i].why && d < probe.n; d++)
			if (visible(&rows[i].d[d]))
				return true;
	return false;
}

/* The verdict on one domain: no scale over every round first (an emulator
 * is never "disturbed"), then too few undisturbed rounds, then the scale and
 * the verdict over the undisturbed ones. */
static void judge_domain(struct dom_rounds *D)
{
	bool all = !visible(D) || D->rounds - D->n_disturbed < FLUSHCHECK_CLEAN_MIN;
	uint64_t w[ROUND_SLOTS], c[ROUND_SLOTS], a[ROUND_SLOTS];
	uint32_t n = kept(D, D->warm, !all, w);
	kept(D, D->cold, !all, c);
	kept(D, D->after, !all, a);
	stats_compute(w, n, scratch, &D->s_warm);
	stats_compute(c, n, scratch, &D->s_cold);
	stats_compute(a, n, scratch, &D->s_after);
	cold_judge_rounds(w, c, a, n, &D->j); /* each round against its own references */
	D->verdict = D->j.verdict;
	if (!D->rounds)
		D->verdict = COLD_NOT_CHECKED;
	else if (visible(D) && D->rounds - D->n_disturbed < FLUSHCHECK_CLEAN_MIN)
		D->verdict = COLD_DISTURBED;
}

/* A domain's verdict in words, with its rounds where they were too disturbed. */
static void verdict_words(const struct dom_rounds *D, char *buf, size_t cap)
{
	if (D->verdict == COLD_DISTURBED)
		fmt_snprintf(buf, cap, "%s (%u of %u rounds)", cold_verdict_name(D->verdict), D->n_disturbed,
			     D->rounds);
	else
		fmt_snprintf(buf, cap, "%s", cold_verdict_name(D->verdict));
}

static void judge(struct row *r)
{
	r->verdict = COLD_NOT_CHECKED;
	r->worst = 0;
	for (uint32_t d = 0; d < fc.n_domains; d++) {
		judge_domain(&r->d[d]);
		if (d == 0 || r->d[d].verdict > r->verdict) {
			r->verdict = r->d[d].verdict;
			r->worst = d;
		}
	}
	stats_compute(r->own, r->d[0].rounds, scratch, &r->s_own);
	if (r->why)
		fmt_snprintf(r->text, sizeof(r->text), "%s", r->why);
	else
		verdict_words(&r->d[r->worst], r->text, sizeof(r->text));
}

/* Rows [first, last) measured: an untimed round, then timed ones until each
 * domain has FLUSHCHECK_ROUNDS undisturbed (where caches are visible), at
 * most FLUSHCHECK_ROUNDS_MAX and, past FLUSHCHECK_ROUNDS, not after
 * FLUSHCHECK_RERUN_MS. */
static void measure(uint32_t first, uint32_t last)
{
	const char *why = probe.why;
	for (uint32_t i = first; i < last; i++) {
		struct row *r = &rows[i];
		memset(r->d, 0, sizeof(r->d));
		memset(r->own, 0, sizeof(r->own));
		r->why = 0;
	}
	uint64_t t0 = tsc_read(), bound = ms_to_ticks(FLUSHCHECK_RERUN_MS);
	for (uint32_t k = 0; !why && k <= FLUSHCHECK_ROUNDS_MAX; k++) {
		bool any = false;
		for (uint32_t i = first; i < last && !why; i++) {
			struct row *r = &rows[i];
			if (r->why || (k > FLUSHCHECK_ROUNDS && !needs_more(r)))
				continue;
			any = true;
			round_of(r, k > 0, &why);
		}
		if (!any || (k >= FLUSHCHECK_ROUNDS && bound && tsc_read() - t0 > bound))
			break;
		if (k == FLUSHCHECK_EARLY_ROUNDS && !any_visible(first, last))
			break; /* no caches to see (an emulator): "cannot tell" needs no more rounds */
	}
	for (uint32_t i = first; i < last; i++) {
		if (why)
			rows[i].why = why;
		judge(&rows[i]);
	}
}

/* Measured once more where partial: a partial verdict is never acted on
 * from one measurement. */
static void measure_checked(uint32_t first, uint32_t last)
{
	measure(first, last);
	for (uint32_t i = first; i < last; i++) {
		if (rows[i].verdict != COLD_PARTIAL)
			continue;
		measure(i, i + 1);
		rows[i].twice = true;
	}
}

static struct row *add_row(const char *method, const char *used_for, enum flushprobe_kind kind,
			   enum run_flush_way way, const struct cpuset *set)
{
	if (n_rows >= MAX_ROWS)
		return 0;
	struct row *r = &rows[n_rows++];
	memset(r, 0, sizeof(*r));
	r->method = method;
	r->used_for = used_for;
	r->how.kind = kind;
	r->how.way = way;
	r->set = set;
	r->verdict = COLD_NOT_CHECKED;
	fmt_snprintf(r->text, sizeof(r->text), "not checked");
	return r;
}

/* The verdict's words, with the reason where nothing was checked. */
static const char *verdict_of(const struct row *r)
{
	return r ? r->text : "not checked";
}

/* The verdict the results get: the run's flush's, or that there was none. */
static const char *run_verdict(void)
{
	return fc.no_effective ? NO_EFFECTIVE_FLUSH : verdict_of(fc.ran ? fc.run_row : 0);
}

static void say(const struct row *r)
{
	const struct dom_rounds *W = &r->d[r->worst];
	if (r->why || W->j.scale != COLD_SCALE_OK)
		kprintf("flush check: %-19s %s (%s)\n", r->method, verdict_of(r), r->used_for);
	else
		kprintf("flush check: %-19s %s: %.0f%% as cold as CLFLUSH of the set (%.0f / %.0f / %.0f ticks warm / "
			"clflush / after it%s; %u of %u rounds undisturbed%s; %s)\n", r->method, verdict_of(r), W->j.pct,
			W->s_warm.median, W->s_cold.median, W->s_after.median, fc.n_domains > 1 ? ", the worst domain's" : "",
			W->rounds - W->n_disturbed, W->rounds, r->twice ? ", measured twice" : "", r->used_for);
	for (uint32_t d = 0; fc.n_domains > 1 && !r->why && d < fc.n_domains; d++) {
		const struct dom_rounds *D = &r->d[d];
		if (D->j.scale == COLD_SCALE_OK)
			kprintf("  domain %u (cpu %u): %s, %.0f%% cold, %u of %u rounds undisturbed\n", d, fc.domain_cpu[d],
				cold_verdict_name(D->verdict), D->j.pct, D->rounds - D->n_disturbed, D->rounds);
		else {
			char words[WHY_LEN];
			verdict_words(D, words, sizeof(words));
			kprintf("  domain %u (cpu %u): %s\n", d, fc.domain_cpu[d], words);
		}
	}
}

static void rec_ticks(struct rec *r, const char *key, const struct stats *s, bool have)
{
	if (have && s->n)
		rec_f64(r, key, s->median, 1);
	else
		rec_null(r, key);
}

static void rec_domain(struct rec *r, const struct row *w, uint32_t d)
{
	const struct dom_rounds *D = &w->d[d];
	bool have = !w->why;
	rec_obj_begin(r, 0);
	rec_u64(r, "cpu", fc.domain_cpu[d]);
	rec_ticks(r, "warm_ticks", &D->s_warm, have);
	rec_ticks(r, "clflush_ticks", &D->s_cold, have);
	rec_ticks(r, "after_ticks", &D->s_after, have);
	if (have && D->j.scale == COLD_SCALE_OK)
		rec_f64(r, "cold_pct", D->j.pct, 1);
	else
		rec_null(r, "cold_pct");
	rec_u64(r, "rounds", D->rounds);
	rec_u64(r, "disturbed", D->n_disturbed);
	char words[WHY_LEN];
	verdict_words(D, words, sizeof(words));
	rec_str(r, "verdict", w->why ? w->why : words);
	rec_obj_end(r);
}

static void rec_row(struct rec *r, const struct row *w)
{
	const struct dom_rounds *W = &w->d[w->worst];
	bool have = !w->why;
	rec_obj_begin(r, 0);
	rec_str(r, "method", w->method);
	rec_str(r, "used_for", w->used_for);
	rec_u64(r, "cpus", w->set ? w->set->n : 0);
	if (w->evict_bytes)
		rec_u64(r, "evict_bytes", w->evict_bytes);
	rec_ticks(r, "warm_ticks", &W->s_warm, have);
	rec_ticks(r, "clflush_ticks", &W->s_cold, have);
	rec_ticks(r, "after_ticks", &W->s_after, have);
	rec_ticks(r, "flush_ticks", &w->s_own, have);
	if (have && W->j.scale == COLD_SCALE_OK)
		rec_f64(r, "cold_pct", W->j.pct, 1);
	else
		rec_null(r, "cold_pct");
	rec_u64(r, "rounds", W->rounds);
	rec_u64(r, "disturbed", W->n_disturbed);
	rec_bool(r, "measured_twice", w->twice);
	rec_str(r, "verdict", verdict_of(w));
	rec_arr_begin(r, "domains");
	for (uint32_t d = 0; d < fc.n_domains; d++)
		rec_domain(r, w, d);
	rec_arr_end(r);
	rec_obj_end(r);
}

/* The fallback: the fallback's eviction read wherever the run flushes,
 * measured and judged in turn. */
static void fall_back(const struct flushcheck_cfg *cfg, const struct row *run_row)
{
	if (!evict_fallback_setup(cfg->topo)) {
		fc.fallback_why = "none possible: no memory for the eviction buffer";
		fc.no_effective = true;
		kprintf("flush check: %s was %s, and there is no memory for the eviction buffer: the results say so\n",
			run_row->method, verdict_of(run_row));
		return;
	}
	uint32_t first = n_rows;
	struct row *fb = add_row(NAME_FALLBACK_ROW, "the fallback", FLUSHPROBE_WAY, RUN_FLUSH_EVICTION, cfg->online);
	if (!fb)
		return;
	fb->evict_bytes = evict_fallback_bytes();
	run_flush_fallback(true);
	fc.replaced = run_row;
	fc.run_row = fb;
	measure_checked(first, n_rows);
	say(fb);
	fc.no_effective = fb->verdict == COLD_PARTIAL || fb->verdict == COLD_INEFFECTIVE;
	kprintf("flush check: %s was %s: the run's flush is now an eviction read of %llu MiB from every participating "
		"CPU, each workload's own data CLFLUSHed%s\n", run_row->method, verdict_of(run_row),
		(unsigned long long)(evict_fallback_bytes() >> 20), fc.no_effective ? "; " NO_EFFECTIVE_FLUSH : "");
}

/* The check itself; flushcheck_run times it. */
static void check(const struct flushcheck_cfg *cfg)
{
	memset(&fc, 0, sizeof(fc));
	n_rows = 0;
	fc.ran = true;
	fc.has_wbinvd = cfg->has_wbinvd;
	flushset_size(cfg->topo, cfg->quick, &fc.size);
	run_flush_fallback(false);
	flushset_domains(cfg->topo, cfg->cpu_of_topo, cfg->online, &domains);
	flushset_probes(cfg->topo, cfg->cpu_of_topo, cfg->online, &probes, probe_nodes, &fc.domains_total);
	struct row *run_row;
	if (cfg->has_wbinvd) {
		run_row = add_row("wbinvd-all", "the run's flush", FLUSHPROBE_WAY, RUN_FLUSH_PLATFORM, cfg->online);
		add_row("wbinvd-per-domain", "flush's wbinvd-per-domain", FLUSHPROBE_WAY, RUN_FLUSH_PLATFORM, &domains);
	} else {
		run_row = add_row("eviction-read", "the run's flush", FLUSHPROBE_WAY, RUN_FLUSH_PLATFORM, cfg->online);
		run_row->evict_bytes = evict_bytes();
	}
	fc.run_row = run_row;
	kprintf("flush check: a chase over %llu bytes (%s) on %u domain(s)%s, after each flush, against the warm chase "
		"and CLFLUSH of the set, %u undisturbed rounds\n", (unsigned long long)fc.size.set, fc.size.why,
		probes.n, fc.domains_total > probes.n ? " (the first of more)" : "", FLUSHCHECK_ROUNDS);
	if (!flushprobe_setup(&probe, &probes, probe_nodes, fc.size.set)) {
		for (uint32_t i = 0; i < n_rows; i++) {
			rows[i].why = probe.why;
			judge(&rows[i]);
		}
		kprintf("flush check: %s\n", probe.why);
		return;
	}
	fc.n_domains = probe.n;
	for (uint32_t d = 0; d < probe.n; d++)
		fc.domain_cpu[d] = probe.dom[d].cpu;
	measure_checked(0, n_rows);
	for (uint32_t i = 0; i < n_rows; i++)
		say(&rows[i]);
	if (run_row->verdict == COLD_INEFFECTIVE || run_row->verdict == COLD_PARTIAL)
		fall_back(cfg, run_row);
	flushprobe_teardown(&probe);
}

/* ---- Public Functions ----------------------------------------------------- */
void flushcheck_run(const struct flushcheck_cfg *cfg)
{
	uint64_t t0 = tsc_read();
	check(cfg);
	fc.took_ticks = tsc_read() - t0;
	kprintf("flush check: %llu ms\n", (unsigned long long)tsc_to_us(fc.took_ticks) / 1000);
}

void flushcheck_rec(struct rec *r)
{
	rec_obj_begin(r, "flush_check");
	if (!fc.ran) {
		rec_str(r, "verdict", "not checked");
		rec_obj_end(r);
		return;
	}
	rec_u64(r, "set_bytes", fc.size.set);
	rec_str(r, "set_why", fc.size.why);
	rec_u64(r, "domains", fc.n_domains);
	rec_u64(r, "domains_total", fc.domains_total);
	rec_u64(r, "rounds", FLUSHCHECK_ROUNDS);
	if (tsc_hz())
		rec_f64(r, "took_s", (double)fc.took_ticks / (double)tsc_hz(), 3);
	else
		rec_null(r, "took_s");
	rec_arr_begin(r, "methods");
	for (uint32_t i = 0; i < n_rows; i++)
		rec_row(r, &rows[i]);
	rec_arr_end(r);
	rec_str(r, "run_flush", flushcheck_run_flush());
	rec_str(r, "verdict", run_verdict());
	if (fc.replaced) {
		fmt_snprintf(fallback_text, sizeof(fallback_text), "%s: %s was %s", NAME_RUN_FLUSH_FALLBACK,
			     fc.replaced->method, cold_verdict_name(fc.replaced->verdict));
		rec_str(r, "fallback", fallback_text);
	} else if (fc.fallback_why) {
		rec_str(r, "fallback", fc.fallback_why);
	} else {
		rec_null(r, "fallback");
	}
	if (fc.replaced)
		rec_u64(r, "evict_bytes", evict_fallback_bytes());
	rec_obj_end(r);
}

const char *flushcheck_run_flush(void)
{
	if (!fc.ran)
		return "unknown: not checked";
	if (run_flush_fell_back())
		return NAME_RUN_FLUSH_FALLBACK;
	return fc.has_wbinvd ? NAME_RUN_FLUSH_WBINVD : NAME_RUN_FLUSH_EVICT;
}

void flushcheck_params(struct rec *r, bool flushed, const char *suffix)
{
	if (!flushed) {
		rec_str(r, "flush", "none");
		return;
	}
	char name[WHY_LEN];
	fmt_snprintf(name, sizeof(name), "%s%s", flushcheck_run_flush(), suffix ? suffix : "");
	rec_str(r, "flush", name);
	rec_str(r, "flush_verdict", run_verdict());
	if (fc.replaced) {
		fmt_snprintf(verdict_text, sizeof(verdict_text), "%s was %s", fc.replaced->method,
			     cold_verdict_name(fc.replaced->verdict));
		rec_str(r, "flush_fallback", verdict_text);
	}
}
