/* flush.c - how cold is cold: ways to empty the caches before a timed pass, after shared/seeds/000 and 001.
 *
 * User code cannot run WBINVD, so the seeds evict by reading a 64 MiB buffer
 * from every processor. Ring 0 can do better, and this workload shows by how
 * much: before a timed pass over a working set (the flush check's,
 * kernel/run/flushset.h: larger than any cache below the LLC, well under
 * the LLC), it flushes with
 *   wbinvd-all         WBINVD on every CPU
 *   wbinvd-per-domain  WBINVD on one CPU per last-level cache (CPUID leaf 4 sharing)
 *   evict-64mib        the seeds' eviction read: 64 MiB from every CPU
 *   evict-llc          an eviction read sized to the real last-level cache
 *   clflush            CLFLUSHOPT (or CLFLUSH) over the working set
 *   none               nothing: the warm reference
 * and reports the flush's own cost and how cold the pass then was: 0% is as
 * warm as a pass right after another, 100% as cold as a pass after CLFLUSH
 * of the set (the cold reference on both platforms: the Linux twin cannot run
 * WBINVD, which is a method like the others here), and the verdict on each
 * method, as the run's flush check gives it (kernel/run/flushcheck.h):
 * effective from 70%, partial from 25%, ineffective under 25% where CLFLUSH
 * makes the set measurably colder. The
 * pass is the dependent chase of kernel/measure/chase.h and the scale that
 * of kernel/measure/cold.h, both shared with the flush check. Every method,
 * the references too, runs through the runner on its CPUs, each CPU timing
 * its own flush from its release to its end (flush_ticks: the slowest CPU's).
 * Each method is one configuration of the plan (kernel/bench/workload.h), its
 * repetition (warming pass, flush, timed pass) timed once at calibration. The
 * quick profile's eviction reads are smaller, and named for the bytes they
 * read. */
#include "workload.h"
#include "registry.h"
#include "chase.h"
#include "cold.h"
#include "console.h"
#include "finish.h"
#include "flushcheck.h"
#include "flushprobe.h"
#include "flushset.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED_EVICT_BYTES (64ull << 20)    /* the seeds' s_garbageSize */
#define QUICK_EVICT_BYTES (8ull << 20)    /* quick: the seeds' read, named evict-8mib */
#define QUICK_EVICT_LLC_MAX (32ull << 20) /* quick: evict-llc reads at most this, named by its size past it */
#define NAME_LEN 32
#define CPUID_7_EBX_CLFLUSHOPT_BIT (1u << 23) /* Intel SDM vol. 2A, CPUID.(EAX=07H,ECX=0):EBX[23] */

enum method { WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC, CLFLUSH, NONE, N_METHODS };
/* The plan's fair-share groups, one per family of methods; the least form
 * is the references (none, clflush), WBINVD on every CPU where it runs,
 * and the eviction read sized to the LLC. */
enum flush_group { FG_REFERENCES, FG_WBINVD, FG_EVICTION };
static const char *const flush_groups[] = { "references", "wbinvd", "eviction", 0 };

/* A configuration: one method (its variant is the method's name). */
struct flush_cfg {
	enum method m;
};
static const char *const method_names[N_METHODS] = {
	"wbinvd-all", "wbinvd-per-domain", "evict-64mib", "evict-llc", "clflush", "none",
};

/* ---- Private Variables ---------------------------------------------------- */
static struct cpuset one, domains;
static uint64_t flush_ticks[REPS_MAX], scratch[REPS_MAX];
/* The run's, from its set-up to its summary: the references' figures (n 0:
 * not measured), against which every later method is judged, and the
 * summary line's cold percentages. */
static struct stats warm, cold;
static char line[160];
static int used;

/* What both plan and run use: the buffers and sizes. */
static struct flush_setup {
	uint64_t llc, seed_bytes, evict_llc, set_bytes, big;
	uint64_t set_phys, big_phys;
	uint64_t set_pages, big_pages;            /* 4 KiB pages held: whole 2 MiB pages where there were some */
	volatile uint64_t *set;
	const volatile uint64_t *big_buf;
	uint64_t lines, want;
	bool clflushopt;
	char seed_name[NAME_LEN], llc_name[NAME_LEN]; /* evict-64mib (quick: evict-8mib), evict-llc */
} fs;

/* ---- Private Functions ---------------------------------------------------- */
/* "64mib", "8mib", "512kib": a size as variant names spell it. */
static void size_name(char *out, size_t cap, const char *prefix, uint64_t bytes)
{
	if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
		fmt_snprintf(out, cap, "%s%llumib", prefix, (unsigned long long)(bytes >> 20));
	else
		fmt_snprintf(out, cap, "%s%llukib", prefix, (unsigned long long)(bytes >> 10));
}

/* The variant name of a method: the eviction reads are named for what they read. */
static const char *method_name(enum method m)
{
	return m == EVICT_SEED ? fs.seed_name : m == EVICT_LLC ? fs.llc_name : method_names[m];
}

/* The CPUs a method's flush runs on. */
static const struct cpuset *method_cpus(const struct wl_ctx *ctx, enum method m)
{
	return m == CLFLUSH || m == NONE ? &one : m == WBINVD_DOMAIN ? &domains : ctx->online;
}

/* Empty the caches one way, through the runner on the method's CPUs, each
 * timing its own flush from its release to its end: *own is the slowest
 * CPU's (flushprobe_flush), the same span for every method. False if the
 * run failed. WBINVD is the platform's own flush whatever the run's check
 * said of it (flush_noop=on makes it nothing): this workload measures it. */
static bool do_flush(const struct wl_ctx *ctx, enum method m, uint64_t *own)
{
	struct flushprobe_how how = { FLUSHPROBE_NOTHING, RUN_FLUSH_PLATFORM, 0, 0, fs.clflushopt };
	switch (m) {
	case WBINVD_ALL:
	case WBINVD_DOMAIN:
		how.kind = FLUSHPROBE_WAY;
		break;
	case EVICT_SEED:
	case EVICT_LLC:
		how.kind = FLUSHPROBE_READ;
		how.buf = fs.big_buf;
		how.bytes = m == EVICT_SEED ? fs.seed_bytes : fs.evict_llc;
		break;
	case CLFLUSH:
		how.kind = FLUSHPROBE_CLFLUSH;
		how.buf = fs.set;
		how.bytes = fs.set_bytes;
		break;
	default:
		break;
	}
	return flushprobe_flush(method_cpus(ctx, m), &how, own) == RUN_OK;
}

/* Size and fill the working set and the eviction buffer; false without memory. */
static bool buffers_get(const struct wl_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	fs.llc = flushset_llc_bytes(t);
	fs.seed_bytes = ctx->quick ? QUICK_EVICT_BYTES : SEED_EVICT_BYTES;
	fs.evict_llc = ctx->quick ? MIN(fs.llc, QUICK_EVICT_LLC_MAX) : fs.llc;
	size_name(fs.seed_name, NAME_LEN, "evict-", fs.seed_bytes);
	if (fs.evict_llc == fs.llc)
		fmt_snprintf(fs.llc_name, NAME_LEN, "evict-llc");
	else
		size_name(fs.llc_name, NAME_LEN, "evict-", fs.evict_llc);
	struct flushset_size size;
	flushset_size(t, ctx->quick, &size);
	fs.set_bytes = size.set;
	fs.big = MAX(fs.seed_bytes, fs.evict_llc);
	fs.set_phys = flushprobe_alloc(fs.set_bytes, (int)t->cpu[0].node, &fs.set_pages);
	fs.big_phys = flushprobe_alloc(fs.big, PMM_ANY_NODE, &fs.big_pages);
	if (!fs.set_phys || !fs.big_phys) {
		if (fs.set_phys)
			pmm_free(fs.set_phys, fs.set_pages, PMM_WORKLOAD);
		if (fs.big_phys)
			pmm_free(fs.big_phys, fs.big_pages, PMM_WORKLOAD);
		console_error("flush", "no memory for the %llu-byte eviction buffer", (unsigned long long)fs.big);
		return false;
	}
	fs.set = (volatile uint64_t *)(uintptr_t)fs.set_phys;
	fs.lines = fs.set_bytes / CHASE_LINE;
	fs.want = chase_want(fs.lines);
	chase_make(fs.set, fs.lines);
	run_flush_partial_target(fs.set, fs.set_bytes); /* flush_partial= (debug): its wbinvd-* evict part of it */
	fs.big_buf = (const volatile uint64_t *)(uintptr_t)fs.big_phys;
	for (uint64_t i = 0; i < fs.big / sizeof(uint64_t); i++)
		((volatile uint64_t *)(uintptr_t)fs.big_phys)[i] = i;
	one.n = 1;
	one.cpu[0] = ctx->online->cpu[0];
	flushset_domains(t, ctx->cpu_of_topo, ctx->online, &domains);
	fs.clflushopt = ctx->bsp_cpuid->have_leaf7 && (ctx->bsp_cpuid->leaf7.ebx & CPUID_7_EBX_CLFLUSHOPT_BIT);
	return true;
}

static void buffers_put(void)
{
	run_flush_partial_clear();
	pmm_free(fs.big_phys, fs.big_pages, PMM_WORKLOAD);
	pmm_free(fs.set_phys, fs.set_pages, PMM_WORKLOAD);
}

/* The references first: warm (no flush), then cold: CLFLUSH over the set on
 * both platforms (SDM vol. 2A CLFLUSH: the line is invalidated from every
 * level of the cache hierarchy in the coherence domain, so the set is in
 * memory, and the TLB as warm), so that cold_pct means the same beside the
 * Linux twin, which cannot run WBINVD. */
static const enum method order[N_METHODS] = { NONE, CLFLUSH, WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC };

static bool runs_here(const struct wl_ctx *ctx, enum method m)
{
	return ctx->has_wbinvd || (m != WBINVD_ALL && m != WBINVD_DOMAIN);
}

/* One repetition: warm the set, flush, time a pass. False if something failed. */
static bool one_rep(const struct wl_ctx *ctx, enum method m, uint64_t *flush, uint64_t *p, struct instr_thread *seen,
		    const char **fail)
{
	uint64_t sum;
	chase_pass(fs.set, fs.lines, &sum); /* warm the set: every method starts from a warm cache */
	bool done = do_flush(ctx, m, flush);
	struct instr_mark mark;
	instr_begin(&mark);
	*p = chase_pass(fs.set, fs.lines, &sum);
	instr_end(&mark, seen);
	if (!done || sum != fs.want) {
		*fail = done ? "the pass read wrong data" : "the flush run failed";
		return false;
	}
	return true;
}

/* The result's coldness on the scale: cold_pct and, for a method (not a
 * reference), its verdict as the run's flush check gives it; the note when
 * there is no scale. */
static void report_coldness(struct rec *r, enum method m, const char *fail, const struct stats *w,
			    const struct stats *c, const struct cold_judgement *j)
{
	char note[200];
	bool scale = !fail && j->scale == COLD_SCALE_OK;
	if (m == NONE) {
		rec_null(r, "cold_pct");
		rec_str(r, "cold_pct_note", "the warm reference: 0% by definition, measured before the cold reference");
	} else if (scale) {
		rec_f64(r, "cold_pct", j->pct, 1);
		if (j->pct < 0)
			rec_str(r, "cold_pct_note", "this pass was faster than the warm reference's median");
	} else {
		rec_null(r, "cold_pct");
		if (fail)
			fmt_snprintf(note, sizeof(note), "the method failed");
		else
			cold_scale_note(j, w, c, method_name(CLFLUSH), note, sizeof(note));
		rec_str(r, "cold_pct_note", note);
	}
	if (m != NONE && m != CLFLUSH)
		rec_str(r, "verdict", fail ? "not checked: the method failed" : cold_verdict_name(j->verdict));
}

/* ---- The workload's table --------------------------------------------------- */
/* Every method this platform can run, in order, each timed twice at
 * calibration (the first warms the code and the TLB, the second is what a
 * repetition costs); WBINVD where user code cannot run it is absent. */
static void flush_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	uint64_t set_up = tsc_read();
	if (!buffers_get(ctx))
		return;
	wl_set_setup(p, tsc_seconds(tsc_read() - set_up)); /* the run sets up the same again */
	for (unsigned i = 0; i < N_METHODS; i++) {
		enum method m = order[i];
		struct wl_cfg cfg = { .variant = method_name(m) };
		fmt_snprintf(cfg.name, sizeof(cfg.name), "%s", method_name(m));
		WL_OWN(&cfg, struct flush_cfg)->m = m;
		if (!runs_here(ctx, m)) {
			wl_absent(p, 0, &cfg, "WBINVD is privileged: user code cannot run it");
			continue;
		}
		struct wl_cost cost = {
			.group = m == NONE || m == CLFLUSH ? FG_REFERENCES : m == WBINVD_ALL || m == WBINVD_DOMAIN ? FG_WBINVD
			       : FG_EVICTION,
			.essential = m == NONE || m == CLFLUSH || m == WBINVD_ALL || m == EVICT_LLC,
			.want_units = 1, .min_units = 1,
			.want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX),
		};
		uint64_t fl = 0, ps = 0;
		struct instr_thread seen;
		const char *fail = 0;
		for (int r = 0; r < 2; r++) {
			uint64_t t0 = tsc_read();
			if (!one_rep(ctx, m, &fl, &ps, &seen, &fail))
				console_error("flush", "calibration of %s: %s", method_name(m), fail);
			cost.unit_s = tsc_seconds(tsc_read() - t0);
		}
		wl_add(p, 0, &cfg, &cost);
	}
	buffers_put();
}

static bool flush_setup(const struct wl_ctx *ctx, const char **why)
{
	if (!buffers_get(ctx)) {
		finish_mark_failed("flush: out of memory");
		*why = "no memory for the working set and the eviction buffer";
		return false;
	}
	warm = cold = (struct stats){ 0 };
	used = fmt_snprintf(line, sizeof(line), "flush      cold %%:");
	kprintf("flush: working set %llu bytes (%llu lines chased), last-level cache %llu bytes, %u LLC domain(s), "
		"cold reference %s, repetitions as planned\n", (unsigned long long)fs.set_bytes,
		(unsigned long long)fs.lines, (unsigned long long)fs.llc, domains.n, method_name(CLFLUSH));
	kprintf("  %-18s %14s %14s %8s  %s\n", "method", tsc_hz() ? "flush us" : "flush ticks",
		tsc_hz() ? "ns/access" : "ticks/access", "cold %", "verdict");
	kprintf("  (medians of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	return true;
}

static void flush_teardown(const struct wl_ctx *ctx)
{
	(void)ctx;
	console_summary("%s", line);
	buffers_put();
}

/* One method: its repetitions (warm the set, flush, time a pass), its result against the references. */
static void method_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	enum method m = WL_OWN_CONST(wl_cfg(c), struct flush_cfg)->m;
	const char *fail = 0;
	struct reps *log = reps_begin(1);
	uint32_t got = 0;
	while (!fail && wl_rep(c)) {
		uint64_t fl, ps;
		struct instr_thread seen;
		if (!one_rep(ctx, m, &fl, &ps, &seen, &fail))
			break;
		if (!wl_timed(c))
			continue; /* untimed warm-up */
		flush_ticks[got++] = fl;
		reps_add(log, &ps, &seen);
	}
	/* The figure: the clean repetitions unless fewer than half were clean;
	 * the flush's own cost over the same repetitions. */
	struct stats fst, ps = *reps_figure(log);
	uint32_t kept = 0;
	for (uint32_t k = 0; k < got; k++)
		if (log->noisy || !log->flagged[k])
			flush_ticks[kept++] = flush_ticks[k];
	stats_compute(flush_ticks, kept, scratch, &fst);
	if (m == NONE && !fail && ps.n)
		warm = ps;
	if (m == CLFLUSH && !fail && ps.n)
		cold = ps;
	struct cold_judgement j;
	struct stats none = { 0 };
	cold_judge(&warm, &cold, !fail && ps.n ? &ps : &none, &j);
	bool scale = !fail && j.scale == COLD_SCALE_OK && m != NONE;

	struct rec *r = wl_result_open(c, method_name(m), method_cpus(ctx, m));
	rec_obj_begin(r, "params");
	rec_u64(r, "set_bytes", fs.set_bytes);
	if (m == EVICT_SEED || m == EVICT_LLC)
		rec_u64(r, "evict_bytes", m == EVICT_SEED ? fs.seed_bytes : fs.evict_llc);
	if (m == CLFLUSH)
		rec_str(r, "instruction", fs.clflushopt ? "clflushopt" : "clflush");
	rec_str(r, "cold_reference", method_name(CLFLUSH));
	rec_obj_end(r);
	reps_report(r, log);
	struct report_measure meas = { "ns_per_access", "ns/access", report_ns_scale((double)fs.lines), false,
				       LIMIT_LOAD_NS, 1 };
	report_measures(r, &meas, 1);
	if (fst.n)
		rec_f64(r, "flush_ticks", fst.median, 1);
	else
		rec_null(r, "flush_ticks");
	if (fst.n && tsc_hz())
		rec_f64(r, "flush_ns", stats_ticks_to_ns(fst.median, tsc_hz()), 1);
	else
		rec_null(r, "flush_ns");
	report_coldness(r, m, fail, &warm, &cold, &j);
	wl_result_close(c, r, fail ? WL_ERR_FAIL : WL_OK, fail);
	if (used > 0 && (size_t)used < sizeof(line)) {
		if (scale)
			used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=%.0f",
					     method_name(m), j.pct > -0.5 && j.pct < 0.5 ? 0.0 : j.pct); /* never "-0" */
		else
			used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=-", method_name(m));
	}
	double fl = tsc_hz() ? stats_ticks_to_ns(fst.median, tsc_hz()) / 1000 : fst.median;
	double acc = report_measure_value(&meas, ps.median);
	if (acc < 0)
		acc = fs.lines ? ps.median / (double)fs.lines : 0;
	char pcts[16];
	if (scale)
		fmt_snprintf(pcts, sizeof(pcts), "%8.0f", j.pct);
	else
		fmt_snprintf(pcts, sizeof(pcts), "%8s", "-");
	kprintf("  %-18s %14.1f %14.2f %s  %s%s\n", method_name(m), fl, acc, pcts,
		m == NONE || m == CLFLUSH ? "reference" : fail ? "not checked" : cold_verdict_name(j.verdict),
		log->noisy ? "  noisy" : "");
}

static const struct wl_kind flush_kinds[] = {
	{ .name = "method",
	  .measures = "warm the working set, flush one way, time a dependent chase over it: how cold the flush left it",
	  .unit = PLAN_UNIT_PASSES, .stop = WL_STOP_REPS, .run = method_run },
};
const struct workload wl_flush = {
	.name = "flush",
	.summary = "how cold is cold: WBINVD, per-domain WBINVD, eviction reads of 64 MiB and of the LLC, CLFLUSH, none",
	.counters = PMU_GOAL_LLC,
	.groups = flush_groups,
	.kinds = flush_kinds,
	.n_kinds = ARRAY_SIZE(flush_kinds),
	.plan = flush_plan,
	.setup = flush_setup,
	.teardown = flush_teardown,
};
