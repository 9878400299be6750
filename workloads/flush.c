/* flush.c - how cold is cold: ways to empty the caches before a timed pass, after shared/seeds/000 and 001.
 *
 * User code cannot run WBINVD, so the seeds evict by reading a 64 MiB buffer
 * from every processor. Ring 0 can do better, and this workload shows by how
 * much: before a timed pass over a working set (an eighth of the LLC), it flushes with
 *   wbinvd-all         WBINVD on every CPU
 *   wbinvd-per-domain  WBINVD on one CPU per last-level cache (CPUID leaf 4 sharing)
 *   evict-64mib        the seeds' eviction read: 64 MiB from every CPU
 *   evict-llc          an eviction read sized to the real last-level cache
 *   clflush            CLFLUSHOPT (or CLFLUSH) over the working set
 *   none               nothing: the warm reference
 * and reports the flush's own cost and how cold the pass then was: 0% is as
 * warm as a pass right after another, 100% as cold as a pass after WBINVD on
 * every CPU (without WBINVD, after CLFLUSH of the set, which leaves its lines
 * as WBINVD would). The pass is a dependent chase through every line of the
 * set in one random cycle: each miss costs a whole memory latency that no
 * prefetcher hides, where a streaming sum runs from DRAM nearly as fast as
 * from the cache and hides how cold the set was. Each method is one
 * configuration of the plan (workloads/sequence.h), its repetition (warming
 * pass, flush, timed pass) timed once at calibration. The quick profile's
 * eviction reads are smaller, and named for the bytes they read. */
#include "workload.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED_EVICT_BYTES (64ull << 20)    /* the seeds' s_garbageSize */
#define QUICK_EVICT_BYTES (8ull << 20)    /* quick: the seeds' read, named evict-8mib */
#define QUICK_EVICT_LLC_MAX (32ull << 20) /* quick: evict-llc reads at most this, named by its size past it */
#define QUICK_SET_MAX (512ull << 10)
/* The set is an eighth of the LLC (still larger than an L2): a random chase
 * over more of it misses even when warm (measured in the Linux twin on a
 * shared 32 MiB-L3 EPYC guest, ticks per line warm/cold: 343/343 at a half,
 * 95-310/275 at a quarter, 20/120 at an eighth), since the LLC is shared with
 * other cores and tenants, its replacement is not LRU, and the pages
 * outnumber the TLB. */
#define SET_LLC_DIVISOR 8
#define FALLBACK_LLC (8ull << 20)
#define LINE 64ull
#define LINE_WORDS (LINE / sizeof(uint64_t))
#define CHASE_SEED 0x9e3779b97f4a7c15ull  /* the cycle's shuffle: a fixed seed, the same cycle every run */
#define LCG_MUL 6364136223846793005ull   /* Knuth, MMIX */
#define LCG_ADD 1442695040888963407ull
#define NAME_LEN 32
#define PAGE 4096ull
#define LARGE_PAGE (2ull << 20)
#define COLD_GAP_MIN 1.05                 /* cold must be 5% slower than warm to scale against */
#define CPUID_7_EBX_CLFLUSHOPT_BIT (1u << 23) /* Intel SDM vol. 2A, CPUID.(EAX=07H,ECX=0):EBX[23] */
#define REC_BYTES 1400                    /* one result record and its text line */

enum method { WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC, CLFLUSH, NONE, N_METHODS };
/* The plan's kinds of experiment, one per family of methods; the least form
 * is the references (none, clflush), WBINVD on every CPU where it runs,
 * and the eviction read sized to the LLC. */
enum plan_kind_id { PK_REFERENCES, PK_WBINVD, PK_EVICTION };
static const char *const method_names[N_METHODS] = {
	"wbinvd-all", "wbinvd-per-domain", "evict-64mib", "evict-llc", "clflush", "none",
};

/* ---- Types ---------------------------------------------------------------- */
struct evict_job {
	const volatile uint64_t *buf;
	uint64_t bytes;
	uint64_t sink[QB_MAX_CPUS][8];
	uint64_t ticks[QB_MAX_CPUS];              /* each CPU's own read: the release and wake-up left out */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct evict_job evict;
static struct cpuset one, domains;
static uint64_t flush_ticks[REPS_MAX], scratch[REPS_MAX];

/* What both plan and run use: the buffers and sizes. */
static struct flush_setup {
	uint64_t llc, seed_bytes, evict_llc, set_bytes, big;
	uint64_t set_phys, big_phys;
	uint64_t set_pages, big_pages;            /* 4 KiB pages held: whole 2 MiB pages where there were some */
	volatile uint64_t *set;
	uint64_t lines, want;
	bool clflushopt;
	char seed_name[NAME_LEN], llc_name[NAME_LEN]; /* evict-64mib (quick: evict-8mib), evict-llc */
} fs;

/* ---- Private Functions ---------------------------------------------------- */
static void evict_thread(const struct run_thread *t)
{
	/* Read every line, as the seeds' loop reads every long. */
	uint64_t s = 0, t0 = tsc_start();
	for (uint64_t i = 0; i < evict.bytes / sizeof(uint64_t); i += LINE / sizeof(uint64_t))
		s += evict.buf[i];
	evict.ticks[t->index] = tsc_end() - t0;
	evict.sink[t->index][0] = s;
}

static void clflush_range(const volatile uint8_t *p, uint64_t bytes, bool opt)
{
	__asm__ volatile("mfence" ::: "memory");
	for (uint64_t off = 0; off < bytes; off += LINE) {
		if (opt)
			__asm__ volatile("clflushopt %0" : "+m"(*(volatile uint8_t *)(p + off)));
		else
			__asm__ volatile("clflush %0" : "+m"(*(volatile uint8_t *)(p + off)));
	}
	__asm__ volatile("mfence" ::: "memory");
}

/* One timed pass: follow the cycle through every line of the set, each load
 * depending on the one before. *sum is the sum of the line numbers visited,
 * or ~0 if the chase did not end where it began. Raw ticks (the repetition
 * log removes the timer's overhead). */
static uint64_t pass(const volatile uint64_t *set, uint64_t lines, uint64_t *sum)
{
	uint64_t s = 0, at = 0, t0 = tsc_start();
	for (uint64_t i = 0; i < lines; i++) {
		at = set[at * LINE_WORDS];
		s += at;
	}
	uint64_t t1 = tsc_end();
	*sum = at == 0 ? s : ~0ull;
	return t1 - t0;
}

/* Word 0 of each line names the next line: one cycle through all of them
 * (Sattolo's algorithm), in an order no prefetcher can follow. */
static void make_cycle(volatile uint64_t *set, uint64_t lines)
{
	uint64_t x = CHASE_SEED;
	for (uint64_t i = 0; i < lines; i++)
		for (uint64_t w = 0; w < LINE_WORDS; w++)
			set[i * LINE_WORDS + w] = i; /* word 0 is overwritten by the shuffle */
	for (uint64_t i = lines - 1; i > 0; i--) {
		x = x * LCG_MUL + LCG_ADD;
		uint64_t j = (x >> 16) % i;
		uint64_t t = set[i * LINE_WORDS];
		set[i * LINE_WORDS] = set[j * LINE_WORDS];
		set[j * LINE_WORDS] = t;
	}
}

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

/* One CPU per last-level cache instance: the lowest-numbered sharer. */
static void pick_domains(const struct wl_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	uint8_t top = 0;
	for (uint32_t i = 0; i < t->ncaches; i++)
		top = MAX(top, t->cache[i].level);
	domains.n = 0;
	for (uint32_t i = 0; i < t->ncaches && domains.n < QB_MAX_CPUS; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->level != top || c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		for (uint32_t k = 0; k < t->ncpu; k++) {
			if (topo_cpuset_has(&c->shared_by, k)) {
				domains.cpu[domains.n++] = ctx->cpu_of_topo[k];
				break;
			}
		}
	}
	if (!domains.n) {
		domains.n = 1;
		domains.cpu[0] = ctx->online->cpu[0];
	}
}

/* Empty the caches one way; false if this platform cannot. An eviction read
 * times itself on each CPU: *own is the slowest CPU's read (0 for the other
 * methods, timed around the call). */
static bool do_flush(const struct wl_ctx *ctx, enum method m, const volatile uint8_t *set, uint64_t set_bytes,
		     uint64_t llc, uint64_t seed_bytes, bool clflushopt, uint64_t *own)
{
	*own = 0;
	switch (m) {
	case WBINVD_ALL:
		return run_flush(ctx->online) == RUN_OK;
	case WBINVD_DOMAIN:
		return run_flush(&domains) == RUN_OK;
	case EVICT_SEED:
	case EVICT_LLC:
		evict.bytes = m == EVICT_SEED ? seed_bytes : llc;
		if (run_on(ctx->online, evict_thread, &evict, 0, run_default_timeout_ms, 0) != RUN_OK)
			return false;
		for (uint32_t k = 0; k < ctx->online->n; k++)
			*own = MAX(*own, evict.ticks[k] > tsc_overhead() ? evict.ticks[k] - tsc_overhead() : 1);
		return true;
	case CLFLUSH:
		clflush_range(set, set_bytes, clflushopt);
		return true;
	default:
		return true;
	}
}

/* bytes in whole 2 MiB pages where there are some, on both platforms (the
 * kernel maps RAM so, and the twin then gets transparent huge pages: a 4 KiB
 * mapping would add page walks to the chase and the eviction reads), else in
 * 4 KiB pages; *pages says how many 4 KiB pages were taken. */
static uint64_t alloc_large(uint64_t bytes, int node, uint64_t *pages)
{
	*pages = ALIGN_UP(bytes, LARGE_PAGE) / PAGE;
	uint64_t phys = pmm_alloc(*pages, node, LARGE_PAGE, 0, PMM_WORKLOAD);
	if (!phys) {
		*pages = ALIGN_UP(bytes, PAGE) / PAGE;
		phys = pmm_alloc(*pages, node, PAGE, 0, PMM_WORKLOAD);
	}
	return phys;
}

/* Size and fill the working set and the eviction buffer; false without memory. */
static bool setup(const struct wl_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	uint64_t llc = 0;
	uint8_t top = 0;
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		if (c->level > top || (c->level == top && c->size > llc)) {
			top = c->level;
			llc = c->size;
		}
	}
	fs.llc = llc ? llc : FALLBACK_LLC;
	fs.seed_bytes = ctx->quick ? QUICK_EVICT_BYTES : SEED_EVICT_BYTES;
	fs.evict_llc = ctx->quick ? MIN(fs.llc, QUICK_EVICT_LLC_MAX) : fs.llc;
	size_name(fs.seed_name, NAME_LEN, "evict-", fs.seed_bytes);
	if (fs.evict_llc == fs.llc)
		fmt_snprintf(fs.llc_name, NAME_LEN, "evict-llc");
	else
		size_name(fs.llc_name, NAME_LEN, "evict-", fs.evict_llc);
	fs.set_bytes = ALIGN_DOWN(fs.llc / SET_LLC_DIVISOR, PAGE);
	if (ctx->quick)
		fs.set_bytes = MIN(fs.set_bytes, QUICK_SET_MAX);
	fs.big = MAX(fs.seed_bytes, fs.evict_llc);
	fs.set_phys = alloc_large(fs.set_bytes, (int)t->cpu[0].node, &fs.set_pages);
	fs.big_phys = alloc_large(fs.big, PMM_ANY_NODE, &fs.big_pages);
	if (!fs.set_phys || !fs.big_phys) {
		if (fs.set_phys)
			pmm_free(fs.set_phys, fs.set_pages, PMM_WORKLOAD);
		if (fs.big_phys)
			pmm_free(fs.big_phys, fs.big_pages, PMM_WORKLOAD);
		console_error("flush", "no memory for the %llu-byte eviction buffer", (unsigned long long)fs.big);
		return false;
	}
	fs.set = (volatile uint64_t *)(uintptr_t)fs.set_phys;
	fs.lines = fs.set_bytes / LINE;
	fs.want = fs.lines * (fs.lines - 1) / 2; /* every line number once */
	make_cycle(fs.set, fs.lines);
	evict.buf = (const volatile uint64_t *)(uintptr_t)fs.big_phys;
	for (uint64_t i = 0; i < fs.big / sizeof(uint64_t); i++)
		((volatile uint64_t *)(uintptr_t)fs.big_phys)[i] = i;
	one.n = 1;
	one.cpu[0] = ctx->online->cpu[0];
	pick_domains(ctx);
	fs.clflushopt = ctx->bsp_cpuid->have_leaf7 && (ctx->bsp_cpuid->leaf7.ebx & CPUID_7_EBX_CLFLUSHOPT_BIT);
	return true;
}

static void teardown(void)
{
	pmm_free(fs.big_phys, fs.big_pages, PMM_WORKLOAD);
	pmm_free(fs.set_phys, fs.set_pages, PMM_WORKLOAD);
}

/* The references first: warm (no flush), then cold: CLFLUSH over the set on
 * both platforms (SDM vol. 2A CLFLUSH: the line is invalidated from every
 * level of the cache hierarchy in the coherence domain, so the set is in
 * memory, and the TLB as warm), so that cold_pct means the same beside the
 * Linux twin, which cannot run WBINVD. */
static const enum method order[N_METHODS] = { NONE, CLFLUSH, WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC };

static enum method method_at(const struct wl_ctx *ctx, unsigned i)
{
	(void)ctx;
	return order[i];
}

static enum method cold_reference(const struct wl_ctx *ctx)
{
	(void)ctx;
	return CLFLUSH;
}

static bool runs_here(const struct wl_ctx *ctx, enum method m)
{
	return ctx->has_wbinvd || (m != WBINVD_ALL && m != WBINVD_DOMAIN);
}

/* One repetition: warm the set, flush, time a pass. False if something failed. */
static bool one_rep(const struct wl_ctx *ctx, enum method m, uint64_t *flush, uint64_t *p, struct instr_thread *seen,
		    const char **fail)
{
	uint64_t sum;
	pass(fs.set, fs.lines, &sum); /* warm the set: every method starts from a warm cache */
	uint64_t own, f0 = tsc_start();
	bool done = do_flush(ctx, m, (const volatile uint8_t *)fs.set, fs.set_bytes, fs.evict_llc, fs.seed_bytes,
			     fs.clflushopt, &own);
	uint64_t f1 = tsc_end();
	struct instr_mark mark;
	instr_begin(&mark);
	*p = pass(fs.set, fs.lines, &sum);
	instr_end(&mark, seen);
	*flush = own ? own : f1 - f0;
	if (!done || sum != fs.want) {
		*fail = done ? "the pass read wrong data" : "the flush run failed";
		return false;
	}
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void flush_plan(const struct wl_ctx *ctx)
{
	uint64_t set_up = tsc_read();
	if (!setup(ctx))
		return;
	plan_set_setup(ctx->plan, ctx->index, seq_seconds(tsc_read() - set_up)); /* the run sets up the same again */
	plan_kind(ctx->plan, ctx->index, PK_REFERENCES, "references");
	plan_kind(ctx->plan, ctx->index, PK_WBINVD, "wbinvd");
	plan_kind(ctx->plan, ctx->index, PK_EVICTION, "eviction");
	for (unsigned i = 0; i < N_METHODS; i++) {
		enum method m = method_at(ctx, i);
		if (!runs_here(ctx, m))
			continue;
		struct plan_item *it = plan_add(ctx->plan, ctx->index, method_name(m));
		if (!it)
			continue;
		it->unit = PLAN_UNIT_PASSES;
		it->kind = m == NONE || m == CLFLUSH ? PK_REFERENCES : m == WBINVD_ALL || m == WBINVD_DOMAIN ? PK_WBINVD
			 : PK_EVICTION;
		it->essential = m == NONE || m == CLFLUSH || m == WBINVD_ALL || m == EVICT_LLC;
		it->want_units = it->min_units = 1;
		it->want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX);
		it->out_bytes = REC_BYTES;
		it->param[0] = m;
		uint64_t fl = 0, p = 0;
		struct instr_thread seen;
		const char *fail = 0;
		/* Twice: the first warms the code and the TLB, the second is what a repetition costs. */
		for (int r = 0; r < 2; r++) {
			uint64_t t0 = tsc_read();
			if (!one_rep(ctx, m, &fl, &p, &seen, &fail))
				console_error("flush", "calibration of %s: %s", method_name(m), fail);
			it->unit_s = seq_seconds(tsc_read() - t0);
		}
	}
	teardown();
}

/* Why a result has no cold_pct, in words that say what happened. */
static const char *no_scale_note(const struct wl_ctx *ctx, enum method m, const char *fail, bool have_cold, double warm, double cold,
				 char *buf, size_t cap)
{
	const char *ref = method_name(cold_reference(ctx));
	if (fail)
		return "the method failed";
	if (m == NONE)
		return "the warm reference: 0% by definition, measured before the cold reference";
	if (warm <= 0) {
		fmt_snprintf(buf, cap, "no warm reference (none) was measured");
	} else if (!have_cold) {
		fmt_snprintf(buf, cap, "no cold reference (%s) was measured", ref);
	} else if (cold < warm) {
		fmt_snprintf(buf, cap, "the cold reference pass (%s, %.0f ticks) was faster than the warm one (%.0f ticks): "
			     "no scale", ref, cold, warm);
	} else {
		fmt_snprintf(buf, cap, "the cold reference pass (%s, %.0f ticks) was only %.1f%% slower than the warm one "
			     "(%.0f ticks), under %.0f%%: no scale (no caches modelled?)", ref, cold,
			     100.0 * (cold - warm) / warm, warm, 100.0 * (COLD_GAP_MIN - 1));
	}
	return buf;
}

void flush_run(const struct wl_ctx *ctx)
{
	if (seq_workload_skipped(ctx)) { /* every method says so; nothing is set up */
		uint32_t cursor = 0;
		const struct plan_item *it;
		while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
			seq_item_begin(ctx, it);
			struct rec *r = report_result_open("flush", it->name, 0);
			report_result_close(r, "skipped", seq_skip_reason(it));
		}
		return;
	}
	if (!setup(ctx)) {
		finish_mark_failed("flush: out of memory");
		return;
	}
	kprintf("flush: working set %llu bytes (%llu lines chased), last-level cache %llu bytes, %u LLC domain(s), "
		"cold reference %s, repetitions as planned\n", (unsigned long long)fs.set_bytes,
		(unsigned long long)fs.lines, (unsigned long long)fs.llc, domains.n, method_name(cold_reference(ctx)));
	double warm = 0, cold = 0;
	bool have_cold = false;
	char line[160], note[200];
	int used = fmt_snprintf(line, sizeof(line), "flush      cold %%:");
	kprintf("  %-18s %14s %14s %8s\n", "method", tsc_hz() ? "flush us" : "flush ticks",
		tsc_hz() ? "ns/access" : "ticks/access", "cold %");
	kprintf("  (medians of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	uint32_t cursor = 0;
	for (unsigned i = 0; i < N_METHODS; i++) {
		enum method m = method_at(ctx, i);
		if (!runs_here(ctx, m)) {
			struct rec *r = report_result_open("flush", method_name(m), 0);
			report_result_close(r, "skipped", "WBINVD is privileged: user code cannot run it");
			kprintf("  %-18s skipped: WBINVD is privileged\n", method_name(m));
			continue;
		}
		const struct plan_item *it = plan_next(ctx->plan, ctx->index, &cursor);
		if (!it || it->param[0] != (uint32_t)m) {
			console_error("flush", "%s is not in the plan", method_name(m));
			continue;
		}
		seq_item_begin(ctx, it);
		if (it->skip) {
			struct rec *r = report_result_open("flush", method_name(m), 0);
			report_result_close(r, "skipped", seq_skip_reason(it));
			kprintf("  %-18s skipped: %s\n", method_name(m), seq_skip_reason(it));
			continue;
		}
		const char *fail = 0;
		struct reps *log = reps_begin(1);
		uint32_t got = 0;
		for (uint32_t rep = 0; rep <= it->reps && seq_rep_fits(); rep++) {
			uint64_t fl, p;
			struct instr_thread seen;
			if (!one_rep(ctx, m, &fl, &p, &seen, &fail))
				break;
			seq_tick();
			if (rep == 0)
				continue; /* untimed warm-up */
			flush_ticks[got++] = fl;
			reps_add(log, &p, &seen);
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
			warm = ps.median;
		if (m == cold_reference(ctx) && !fail && ps.n) {
			cold = ps.median;
			have_cold = true;
		}
		bool scale = !fail && warm > 0 && have_cold && cold > warm * COLD_GAP_MIN;
		double pct = scale ? 100.0 * (ps.median - warm) / (cold - warm) : 0;

		struct rec *r = report_result_open("flush", method_name(m), m == CLFLUSH || m == NONE ? &one
								: m == WBINVD_DOMAIN ? &domains : ctx->online);
		rec_obj_begin(r, "params");
		rec_u64(r, "set_bytes", fs.set_bytes);
		if (m == EVICT_SEED || m == EVICT_LLC)
			rec_u64(r, "evict_bytes", m == EVICT_SEED ? fs.seed_bytes : fs.evict_llc);
		if (m == CLFLUSH)
			rec_str(r, "instruction", fs.clflushopt ? "clflushopt" : "clflush");
		rec_str(r, "cold_reference", method_name(cold_reference(ctx)));
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
		if (scale) {
			rec_f64(r, "cold_pct", pct, 1);
			if (pct < 0)
				rec_str(r, "cold_pct_note", "this pass was faster than the warm reference's median");
		} else {
			rec_null(r, "cold_pct");
			rec_str(r, "cold_pct_note", no_scale_note(ctx, m, fail, have_cold, warm, cold, note, sizeof(note)));
		}
		seq_item_report(r, it);
		report_result_close(r, fail ? "fail" : "ok", fail);
		if (used > 0 && (size_t)used < sizeof(line)) {
			if (scale)
				used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=%.0f",
						     method_name(m), pct > -0.5 && pct < 0.5 ? 0.0 : pct); /* never "-0" */
			else
				used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=-", method_name(m));
		}
		double fl = tsc_hz() ? stats_ticks_to_ns(fst.median, tsc_hz()) / 1000 : fst.median;
		double acc = report_measure_value(&meas, ps.median);
		if (acc < 0)
			acc = fs.lines ? ps.median / (double)fs.lines : 0;
		char pcts[16];
		if (scale)
			fmt_snprintf(pcts, sizeof(pcts), "%8.0f", pct);
		else
			fmt_snprintf(pcts, sizeof(pcts), "%8s", "-");
		kprintf("  %-18s %14.1f %14.2f %s%s\n", method_name(m), fl, acc, pcts, log->noisy ? "  noisy" : "");
	}
	console_summary("%s", line);
	teardown();
}
