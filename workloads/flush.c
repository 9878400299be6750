/* flush.c - how cold is cold: ways to empty the caches before a timed pass, after shared/seeds/000 and 001.
 *
 * User code cannot run WBINVD, so the seeds evict by reading a 64 MiB buffer
 * from every processor. Ring 0 can do better, and this workload shows by how
 * much: before a timed pass over a working set, it flushes with
 *   wbinvd-all         WBINVD on every CPU
 *   wbinvd-per-domain  WBINVD on one CPU per last-level cache (CPUID leaf 4 sharing)
 *   evict-64mib        the seeds' eviction read: 64 MiB from every CPU
 *   evict-llc          an eviction read sized to the real last-level cache
 *   clflush            CLFLUSHOPT (or CLFLUSH) over the working set
 *   none               nothing: the warm reference
 * and reports the flush's own cost and how cold the pass then was: 0% is as
 * warm as a pass right after another, 100% as cold as a pass after WBINVD on
 * every CPU. Each method is one configuration of the plan (workloads/sequence.h),
 * its repetition (warming pass, flush, timed pass) timed once at calibration. */
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
#define QUICK_EVICT_BYTES (8ull << 20)
#define QUICK_SET_MAX (512ull << 10)
#define FALLBACK_LLC (8ull << 20)
#define LINE 64ull
#define PAGE 4096ull
#define COLD_GAP_MIN 1.05                 /* cold must be 5% slower than warm to scale against */
#define CPUID_7_EBX_CLFLUSHOPT_BIT (1u << 23) /* Intel SDM vol. 2A, CPUID.(EAX=07H,ECX=0):EBX[23] */
#define REC_BYTES 1400                    /* one result record and its text line */

enum method { WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC, CLFLUSH, NONE, N_METHODS };
static const char *const method_names[N_METHODS] = {
	"wbinvd-all", "wbinvd-per-domain", "evict-64mib", "evict-llc", "clflush", "none",
};

/* ---- Types ---------------------------------------------------------------- */
struct evict_job {
	const volatile uint64_t *buf;
	uint64_t bytes;
	uint64_t sink[QB_MAX_CPUS][8];
};

/* ---- Private Variables ---------------------------------------------------- */
static struct evict_job evict;
static struct cpuset one, domains;
static uint64_t flush_ticks[REPS_MAX], scratch[REPS_MAX];

/* What both plan and run use: the buffers and sizes. */
static struct flush_setup {
	uint64_t llc, seed_bytes, evict_llc, set_bytes, big;
	uint64_t set_phys, big_phys;
	volatile uint64_t *set;
	uint64_t words, want;
	bool clflushopt;
} fs;

/* ---- Private Functions ---------------------------------------------------- */
static void evict_thread(const struct run_thread *t)
{
	/* Read every line, as the seeds' loop reads every long. */
	uint64_t s = 0;
	for (uint64_t i = 0; i < evict.bytes / sizeof(uint64_t); i += LINE / sizeof(uint64_t))
		s += evict.buf[i];
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

/* One timed pass over the set; raw ticks (the repetition log removes the timer's overhead). */
static uint64_t pass(const volatile uint64_t *set, uint64_t words, uint64_t *sum)
{
	uint64_t s = 0, t0 = tsc_start();
	for (uint64_t i = 0; i < words; i++)
		s += set[i];
	uint64_t t1 = tsc_end();
	*sum = s;
	return t1 - t0;
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

/* Empty the caches one way; false if this platform cannot. */
static bool do_flush(const struct wl_ctx *ctx, enum method m, const volatile uint8_t *set, uint64_t set_bytes,
		     uint64_t llc, uint64_t seed_bytes, bool clflushopt)
{
	switch (m) {
	case WBINVD_ALL:
		return run_flush(ctx->online) == RUN_OK;
	case WBINVD_DOMAIN:
		return run_flush(&domains) == RUN_OK;
	case EVICT_SEED:
	case EVICT_LLC:
		evict.bytes = m == EVICT_SEED ? seed_bytes : llc;
		return run_on(ctx->online, evict_thread, &evict, 0, run_default_timeout_ms, 0) == RUN_OK;
	case CLFLUSH:
		clflush_range(set, set_bytes, clflushopt);
		return true;
	default:
		return true;
	}
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
	fs.evict_llc = ctx->quick ? MIN(fs.llc, QUICK_EVICT_BYTES) : fs.llc;
	fs.set_bytes = ALIGN_DOWN(fs.llc / 2, PAGE);
	if (ctx->quick)
		fs.set_bytes = MIN(fs.set_bytes, QUICK_SET_MAX);
	fs.big = MAX(fs.seed_bytes, fs.evict_llc);
	fs.set_phys = pmm_alloc(fs.set_bytes / PAGE, (int)t->cpu[0].node, PAGE, 0, PMM_WORKLOAD);
	fs.big_phys = pmm_alloc(ALIGN_UP(fs.big, PAGE) / PAGE, PMM_ANY_NODE, PAGE, 0, PMM_WORKLOAD);
	if (!fs.set_phys || !fs.big_phys) {
		if (fs.set_phys)
			pmm_free(fs.set_phys, fs.set_bytes / PAGE, PMM_WORKLOAD);
		if (fs.big_phys)
			pmm_free(fs.big_phys, ALIGN_UP(fs.big, PAGE) / PAGE, PMM_WORKLOAD);
		console_error("flush", "no memory for the %llu-byte eviction buffer", (unsigned long long)fs.big);
		return false;
	}
	fs.set = (volatile uint64_t *)(uintptr_t)fs.set_phys;
	fs.words = fs.set_bytes / sizeof(uint64_t);
	fs.want = 0;
	for (uint64_t i = 0; i < fs.words; i++) {
		fs.set[i] = i;
		fs.want += i;
	}
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
	pmm_free(fs.big_phys, ALIGN_UP(fs.big, PAGE) / PAGE, PMM_WORKLOAD);
	pmm_free(fs.set_phys, fs.set_bytes / PAGE, PMM_WORKLOAD);
}

/* The references first: warm (no flush) and cold (WBINVD everywhere, or
 * without WBINVD the coldest eviction read, measured last). */
static const enum method order[N_METHODS] = { NONE, WBINVD_ALL, WBINVD_DOMAIN, EVICT_SEED, EVICT_LLC, CLFLUSH };

static bool runs_here(const struct wl_ctx *ctx, enum method m)
{
	return ctx->has_wbinvd || (m != WBINVD_ALL && m != WBINVD_DOMAIN);
}

/* One repetition: warm the set, flush, time a pass. False if something failed. */
static bool one_rep(const struct wl_ctx *ctx, enum method m, uint64_t *flush, uint64_t *p, struct instr_thread *seen,
		    const char **fail)
{
	uint64_t sum;
	pass(fs.set, fs.words, &sum); /* warm the set: every method starts from a warm cache */
	uint64_t f0 = tsc_start();
	bool done = do_flush(ctx, m, (const volatile uint8_t *)fs.set, fs.set_bytes, fs.evict_llc, fs.seed_bytes,
			     fs.clflushopt);
	uint64_t f1 = tsc_end();
	struct instr_mark mark;
	instr_begin(&mark);
	*p = pass(fs.set, fs.words, &sum);
	instr_end(&mark, seen);
	*flush = f1 - f0;
	if (!done || sum != fs.want) {
		*fail = done ? "the pass read wrong data" : "the flush run failed";
		return false;
	}
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void flush_plan(const struct wl_ctx *ctx)
{
	if (!setup(ctx))
		return;
	for (unsigned i = 0; i < N_METHODS; i++) {
		enum method m = order[i];
		if (!runs_here(ctx, m))
			continue;
		struct plan_item *it = plan_add(ctx->plan, ctx->index, method_names[m]);
		if (!it)
			continue;
		it->unit = PLAN_UNIT_PASSES;
		it->want_units = it->min_units = 1;
		it->want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX);
		it->out_bytes = REC_BYTES;
		it->param[0] = m;
		uint64_t fl = 0, p = 0;
		struct instr_thread seen;
		const char *fail = 0;
		uint64_t t0 = tsc_read();
		if (!one_rep(ctx, m, &fl, &p, &seen, &fail))
			console_error("flush", "calibration of %s: %s", method_names[m], fail);
		it->unit_s = seq_seconds(tsc_read() - t0);
	}
	teardown();
}

void flush_run(const struct wl_ctx *ctx)
{
	if (!setup(ctx)) {
		finish_mark_failed("flush: out of memory");
		return;
	}
	kprintf("flush: working set %llu bytes, last-level cache %llu bytes, %u LLC domain(s), repetitions as planned\n",
		(unsigned long long)fs.set_bytes, (unsigned long long)fs.llc, domains.n);
	double warm = 0, cold = 0;
	char line[160];
	int used = fmt_snprintf(line, sizeof(line), "flush      cold %%:");
	kprintf("  %-18s %14s %14s %8s\n", "method", "flush ticks", "pass ticks", "cold %");
	uint32_t cursor = 0;
	for (unsigned i = 0; i < N_METHODS; i++) {
		enum method m = order[i];
		if (!runs_here(ctx, m)) {
			struct rec *r = report_result_open("flush", method_names[m], 0);
			report_result_close(r, "skipped", "WBINVD is privileged: user code cannot run it");
			kprintf("  %-18s skipped: WBINVD is privileged\n", method_names[m]);
			continue;
		}
		const struct plan_item *it = plan_next(ctx->plan, ctx->index, &cursor);
		if (!it || it->param[0] != (uint32_t)m) {
			console_error("flush", "%s is not in the plan", method_names[m]);
			continue;
		}
		seq_item_begin(ctx, it);
		if (it->skip) {
			struct rec *r = report_result_open("flush", method_names[m], 0);
			report_result_close(r, "skipped", seq_skip_reason(it));
			kprintf("  %-18s skipped: %s\n", method_names[m], seq_skip_reason(it));
			continue;
		}
		const char *fail = 0;
		struct reps *log = reps_begin(1);
		uint32_t got = 0;
		for (uint32_t rep = 0; rep <= it->reps; rep++) {
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
		struct stats fst, ps = *reps_stats(log);
		stats_compute(flush_ticks, got, scratch, &fst);
		if (m == NONE)
			warm = ps.median;
		if (m == WBINVD_ALL || (!ctx->has_wbinvd && (m == EVICT_SEED || m == EVICT_LLC)))
			cold = MAX(cold, ps.median);
		/* Without WBINVD the cold reference is only known at the end: no scale until then. */
		bool scale = ctx->has_wbinvd && !fail && cold > warm * COLD_GAP_MIN;
		double pct = scale ? 100.0 * (ps.median - warm) / (cold - warm) : 0;

		struct rec *r = report_result_open("flush", method_names[m], m == CLFLUSH || m == NONE ? &one
								: m == WBINVD_DOMAIN ? &domains : ctx->online);
		rec_obj_begin(r, "params");
		rec_u64(r, "set_bytes", fs.set_bytes);
		if (m == EVICT_SEED || m == EVICT_LLC)
			rec_u64(r, "evict_bytes", m == EVICT_SEED ? fs.seed_bytes : fs.evict_llc);
		if (m == CLFLUSH)
			rec_str(r, "instruction", fs.clflushopt ? "clflushopt" : "clflush");
		rec_str(r, "cold_reference", ctx->has_wbinvd ? "wbinvd-all" : "none: no WBINVD");
		rec_obj_end(r);
		reps_report(r, log);
		rec_f64(r, "flush_ticks", fst.median, 1);
		if (scale) {
			rec_f64(r, "cold_pct", pct, 1);
		} else {
			rec_null(r, "cold_pct");
			rec_str(r, "cold_pct_note", fail ? "the method failed"
					 : !ctx->has_wbinvd ? "no WBINVD: no truly cold reference"
					 : "cold and warm references within 5%: no scale (no caches modelled?)");
		}
		seq_item_report(r, it);
		report_result_close(r, fail ? "fail" : "ok", fail);
		if (used > 0 && (size_t)used < sizeof(line)) {
			if (scale)
				used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=%.0f",
						     method_names[m], pct);
			else
				used += fmt_snprintf(line + used, sizeof(line) - (size_t)used, " %s=-", method_names[m]);
		}
		if (scale)
			kprintf("  %-18s %14.0f %14.0f %8.0f\n", method_names[m], fst.median, ps.median, pct);
		else
			kprintf("  %-18s %14.0f %14.0f %8s\n", method_names[m], fst.median, ps.median, "-");
	}
	console_summary("%s", line);
	teardown();
}
