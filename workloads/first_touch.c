/* first_touch.c - demand-zero page faults made visible, after shared/seeds/003 ("Data warm up when measuring performance").
 *
 * On a real OS the first touch of fresh memory pays for the kernel zeroing
 * the page, so an unwarmed first iteration looks slow. Here the kernel does
 * the same in a controlled way (kernel/mm/demand.c), and this workload shows:
 *   1. the seed's experiment: copy N ints src -> dst five times in a row, with
 *      nothing, src, or both warmed beforehand; every iteration timed, its
 *      faults counted;
 *   2. the cost of one first touch, split: fault entry and return, zeroing
 *      (rep stosb, non-temporal stores, CLZERO), the whole demand-zero path,
 *      and the first access to a mapped page (TLB miss) against a hot one;
 *   3. 4 KiB against 2 MiB pages;
 *   4. NUMA placement by first touch (first_touch_numa.c).
 * The per-page steps of parts 2 and 3 are in first_touch_pages.c, the
 * TLB-miss and hot-access steps in first_touch_tlb.c, and what each result
 * measures (ns per page, GB/s) in first_touch_measures.c.
 *
 * Each part is a configuration of the plan (workloads/sequence.h). Their
 * costs come from a model calibrated at planning time: the cost of one
 * demand-zero fault (4 KiB and 2 MiB) and of copying a byte. The page counts
 * of parts 2 and 3 can be lowered by the budget; the copies cannot, as their
 * size is the experiment. */
#include "registry.h"
#include "first_touch.h"
#include "console.h"
#include "demand.h"
#include "finish.h"
#include "first_touch_measures.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FULL_COPY_INTS (32ull << 20)     /* the seed's 32 Mi ints */
#define QUICK_COPY_INTS (512ull << 10)
#define ITERATIONS 5                     /* the seed's five runs in a row */
#define FULL_PAGES FT_MAX_SAMPLES         /* pages measured one by one */
#define QUICK_PAGES 256
#define FULL_LARGE_PAGES 64              /* 2 MiB pages */
#define QUICK_LARGE_PAGES 4
#define SRC_PATTERN 0x9e3779b9u          /* anything non-zero and varying */
#define FIT_DIVISOR 4                    /* each large buffer takes at most a quarter of free memory */
#define MIN_PAGES 64                     /* fewer pages give no usable median */
#define MIN_LARGE_PAGES 2
#define CALIB_PAGES 32                   /* 4 KiB faults timed at planning */
#define CALIB_COPY_BYTES (16ull << 20)   /* bytes copied at planning: past the TLB's reach of 4 KiB pages, as the copies are */
#define TLB_RESULTS 3                    /* tlb-miss, tlb-miss-cached, hot-access: one item */
#define NUMA_PASSES 4                    /* two placement cases, each written then read */
#define NUMA_CHASE_S_PER_STEP 2e-7       /* a dependent load to another node: under 200 ns */
#define REC_BYTES 1500                   /* a result's record and line, without samples */
#define SAMPLE_BYTES 11                  /* one number of a samples list (up to 10 digits and a comma) */
#define NUMA_CHASE_STEPS_FULL 2000000ull
#define NUMA_CHASE_STEPS_QUICK 20000ull
#define NUMA_MATRIX_BYTES_FULL (256ull << 20)
#define NUMA_MATRIX_BYTES_QUICK (2ull << 20)
#define NUMA_BYTES_FULL (1ull << 30)
#define NUMA_BYTES_QUICK (16ull << 20)
#define TEXT_LEN 96

enum copy_case { WARM_NONE, WARM_SRC, WARM_BOTH, N_CASES };
/* The plan's kinds of experiment; the least form is demand-zero at 4 KiB and 2 MiB and the unwarmed copy. */
enum plan_kind_id { PK_COPIES, PK_PAGES, PK_LARGE, PK_NUMA };
static const char *const case_names[N_CASES] = { "copy-none-warm", "copy-src-warm", "copy-both-warm" };

/* ---- Private Variables ---------------------------------------------------- */
static double first_vs_later;    /* copy-none-warm: iteration 1 over the figure's median (0: not measured) */
static double fault_4k;          /* demand-zero-4k: the figure's ns per page (negative: not measured) */

/* The sizes, decided at planning and kept for the run. */
static struct ft_sizes {
	uint64_t ints, pages, large;
} sz;

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t sum32(const volatile uint32_t *a, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* An iteration's time as the copy lines print it: microseconds, or ticks
 * without a TSC frequency (the header says which). */
static double shown(uint64_t ticks)
{
	return tsc_hz() ? (double)ticks * 1e6 / (double)tsc_hz() : (double)ticks;
}

/* One case of the seed's experiment; true if every check held. The source
 * is read before it is ever written when nothing is warmed: its region
 * zeroes a page on a first read too (DEMAND_ZERO_ON_READ), as the seed's
 * Windows does, on both platforms. */
static bool copy_case(const struct wl_ctx *ctx, enum copy_case c, uint64_t ints)
{
	const char *why = 0;
	uint64_t bytes = ints * sizeof(uint32_t);
	struct demand_region *src = demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_ON_READ, 0, &why);
	struct demand_region *dst = src ? demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) : 0;
	if (!src || !dst) {
		demand_destroy(src);
		ft_skip(case_names[c], why);
		return false;
	}
	volatile uint32_t *s = demand_base(src);
	uint32_t *d = demand_base(dst);
	uint64_t pages = src->size / FT_PAGE;
	bool ok = true;
	const char *fail = 0;

	/* "Warmed" is the seed's memset: every page written once before timing. */
	if (c >= WARM_SRC)
		for (uint64_t i = 0; i < ints; i++)
			s[i] = (uint32_t)i * SRC_PATTERN;
	if (c == WARM_BOTH)
		memset(d, 0, bytes);
	uint64_t expect = sum32(s, ints); /* for WARM_NONE this reads fresh pages: they must be zero */
	if (c == WARM_NONE && expect != 0) {
		ok = false;
		fail = "a freshly faulted page did not read as zero";
	}
	if (c == WARM_NONE) {
		/* The read above faulted src in; start the timed copy with src fresh again. */
		demand_reset(src);
	}
	uint64_t want_faults[ITERATIONS] = { 0 };
	want_faults[0] = (c == WARM_NONE ? pages : 0) + (c != WARM_BOTH ? pages : 0);

	uint64_t ticks[ITERATIONS], faults[ITERATIONS];
	struct reps *log = reps_begin(1);
	for (int it = 0; it < ITERATIONS; it++) {
		/* Its own data starts in memory, whatever the flush does: CLFLUSH of
		 * what is mapped (iteration 1: only what was warmed; a CLFLUSH of a
		 * fresh page would fault it in), then the run's flush. */
		if (it > 0 || c >= WARM_SRC)
			run_evict_lines(s, bytes);
		if (it > 0 || c == WARM_BOTH)
			run_evict_lines(d, bytes);
		run_flush(ft_bsp(ctx));
		uint64_t f0 = demand_faults(src) + demand_faults(dst);
		struct instr_mark mark;
		struct instr_thread seen;
		instr_begin(&mark);
		uint64_t t0 = tsc_start();
		const uint32_t *sp = (const uint32_t *)(uintptr_t)s; /* a plain copy loop, as the seed's */
		for (uint64_t i = 0; i < ints; i++)
			d[i] = sp[i];
		uint64_t t1 = tsc_end();
		instr_end(&mark, &seen);
		uint64_t raw = t1 - t0;
		reps_add(log, &raw, &seen);
		ticks[it] = log->slowest[it];
		faults[it] = demand_faults(src) + demand_faults(dst) - f0;
		if (sum32(d, ints) != expect) {
			ok = false;
			fail = "the copy's checksum differs from the source's";
		}
		if (faults[it] != want_faults[it]) {
			ok = false;
			fail = "the fault count is not the number of fresh pages touched";
		}
	}
	struct rec *r = ft_result_open(ctx, case_names[c], ft_bsp(ctx), bytes, true, "-each-iteration");
	reps_report(r, log);
	struct ft_measures fm;
	char text[TEXT_LEN];
	ft_measures_of(FT_KIND_COPY, FT_PAGE, bytes, 1, &fm);
	ft_write_measures(r, &fm, text, sizeof(text));
	/* Iteration 1 against the figure (the clean iterations' median unless noisy). */
	const struct stats *fig = report_figure();
	double first = fig && fig->median > 0 ? (double)ticks[0] / fig->median : 0;
	if (first > 0)
		rec_f64(r, "first_vs_later", first, 2);
	else
		rec_null(r, "first_vs_later");
	rec_arr_begin(r, "iteration_ticks");
	for (int it = 0; it < ITERATIONS; it++)
		rec_u64(r, 0, ticks[it]);
	rec_arr_end(r);
	rec_arr_begin(r, "iteration_faults");
	for (int it = 0; it < ITERATIONS; it++)
		rec_u64(r, 0, faults[it]);
	rec_arr_end(r);
	if (ctx->has_fault_internals)
		rec_u64(r, "handler_ticks", demand_handler_ticks(src) + demand_handler_ticks(dst));
	else
		rec_null(r, "handler_ticks"); /* the OS's handler is not ours to clock */
	seq_item_report(r, 0);
	report_result_close(r, ok ? "ok" : "fail", fail);
	if (c == WARM_NONE)
		first_vs_later = first;
	kprintf("  %-16s", case_names[c]);
	for (int it = 0; it < ITERATIONS; it++)
		kprintf(" %10.1f (%5llu f)", shown(ticks[it]), (unsigned long long)faults[it]);
	kprintf("%s\n  %-16s %s\n", ok ? "" : "  CHECK FAILED", "", text);
	demand_destroy(dst);
	demand_destroy(src);
	return ok;
}

/* Sizes: the profile's, shrunk to fit: src and dst (and the 2 MiB pages)
 * within a quarter of free memory each, recorded in params.bytes. */
static void decide_sizes(const struct wl_ctx *ctx)
{
	sz.ints = ctx->quick ? QUICK_COPY_INTS : FULL_COPY_INTS;
	sz.pages = ctx->quick ? QUICK_PAGES : FULL_PAGES;
	sz.large = ctx->quick ? QUICK_LARGE_PAGES : FULL_LARGE_PAGES;
	uint64_t budget = pmm_free_bytes(PMM_ANY_NODE) / FIT_DIVISOR;
	if (sz.ints * sizeof(uint32_t) > budget) {
		uint64_t fit = ALIGN_DOWN(budget, FT_PAGE) / sizeof(uint32_t);
		kprintf("first-touch: %llu MiB free: copies shrunk from %llu to %llu ints\n",
			(unsigned long long)(pmm_free_bytes(PMM_ANY_NODE) >> 20), (unsigned long long)sz.ints,
			(unsigned long long)fit);
		sz.ints = fit;
	}
	while (sz.large > 1 && sz.large * DEMAND_PAGE_2M > budget)
		sz.large /= 2;
}

/* Seconds per demand-zero fault of this page size (0 if it cannot be timed). */
static double time_faults(uint64_t page, uint64_t n)
{
	const char *why = 0;
	struct demand_region *r = demand_create(n * page, page, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	if (!r)
		return 0;
	volatile uint8_t *base = demand_base(r);
	uint64_t t0 = tsc_read();
	for (uint64_t i = 0; i < n; i++)
		base[i * page] = 1;
	uint64_t t1 = tsc_read();
	demand_destroy(r);
	return seq_seconds(t1 - t0) / (double)n;
}

/* What the copies' steps cost, timed on a small copy of the same loops. */
struct ft_costs {
	double copy_b;    /* seconds per byte of a cache-cold copy (copy_case's loop) */
	double sum_b;     /* seconds per byte of the checksum read after it (sum32) */
	double clflush_b; /* seconds per byte of CLFLUSH over a workload's own data (run_evict_lines) */
	double flush_s;   /* one flush of the BSP's caches (the run's: WBINVD, or the fallback's eviction read) */
	double fault_s;   /* one 4 KiB demand-zero fault */
	double large_s;   /* one 2 MiB demand-zero fault */
};

/* On demand regions of 4 KiB pages, as copy_case's: both faulted in by a
 * first copy, then one iteration timed (its flush, copy and checksum). */
static void time_copy(const struct wl_ctx *ctx, struct ft_costs *c)
{
	const char *why = 0;
	struct demand_region *s = demand_create(CALIB_COPY_BYTES, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0,
						&why);
	struct demand_region *d = s ? demand_create(CALIB_COPY_BYTES, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH,
						    DEMAND_ZERO_STOSB, 0, &why) : 0;
	if (!s || !d) {
		demand_destroy(s);
		return;
	}
	uint32_t *src = demand_base(s), *dst = demand_base(d);
	uint64_t n = CALIB_COPY_BYTES / sizeof(uint32_t);
	const uint32_t *sp = src; /* the copy loop as copy_case writes it */
	for (uint64_t i = 0; i < n; i++)
		src[i] = (uint32_t)i * SRC_PATTERN;
	for (uint64_t i = 0; i < n; i++)
		dst[i] = sp[i];
	uint64_t tc = tsc_read();
	run_evict_lines(src, CALIB_COPY_BYTES);
	run_evict_lines(dst, CALIB_COPY_BYTES);
	uint64_t t0 = tsc_read();
	run_flush(ft_bsp(ctx));
	uint64_t t1 = tsc_read();
	for (uint64_t i = 0; i < n; i++)
		dst[i] = sp[i];
	uint64_t t2 = tsc_read();
	volatile uint64_t sink = sum32(dst, n);
	(void)sink;
	uint64_t t3 = tsc_read();
	demand_destroy(d);
	demand_destroy(s);
	c->clflush_b = seq_seconds(t0 - tc) / (double)(2 * CALIB_COPY_BYTES);
	c->flush_s = seq_seconds(t1 - t0);
	c->copy_b = seq_seconds(t2 - t1) / (double)CALIB_COPY_BYTES;
	c->sum_b = seq_seconds(t3 - t2) / (double)CALIB_COPY_BYTES;
}

/* One copy case: ITERATIONS of (CLFLUSH of both buffers, flush, copy,
 * checksum), the checksum of the source before, the warming writes, and a
 * fault for every fresh page touched (copy_case: unwarmed, the source is
 * read fresh, reset, then both fault in iteration 1). */
static double copy_case_s(const struct ft_costs *c, enum copy_case k, uint64_t bytes)
{
	double b = (double)bytes, pages = b / FT_PAGE;
	double faults = (k == WARM_NONE ? 3 : 2) * pages;
	return ITERATIONS * (c->flush_s + b * (2 * c->clflush_b + c->copy_b + c->sum_b)) + b * c->sum_b +
	       (double)k * b * c->copy_b + faults * c->fault_s;
}

static struct plan_item *add(const struct wl_ctx *ctx, const char *name, uint8_t kind, bool essential, uint8_t unit,
			     uint64_t want, uint64_t min, double unit_s)
{
	struct plan_item *it = plan_add(ctx->plan, ctx->index, name);
	if (!it)
		return 0;
	it->kind = kind;
	it->essential = essential;
	it->unit = unit;
	it->want_units = want;
	it->min_units = MIN(want, min);
	it->want_reps = 0; /* each part is one measurement with its own samples */
	/* A per-page result keeps up to REPS_MAX of its page timings as samples. */
	it->out_bytes = REC_BYTES + (reps_samples_on() && unit == PLAN_UNIT_ITERS ? REPS_MAX * SAMPLE_BYTES : 0);
	it->unit_s = unit_s;
	return it;
}

/* The text of the run's summary line: what was measured, or why not. */
static void summary(void)
{
	char first[32] = "not measured", fault[32] = "not measured";
	if (first_vs_later > 0)
		fmt_snprintf(first, sizeof(first), "%.1fx", first_vs_later);
	if (fault_4k >= 0)
		fmt_snprintf(fault, sizeof(fault), "%.0f ns", fault_4k);
	console_summary("first-touch unwarmed copy: iteration 1 took %s the typical iteration; a 4 KiB demand-zero fault %s",
			first, fault);
}

/* ---- Public Functions ----------------------------------------------------- */
const struct plan_item *ft_take(const struct wl_ctx *ctx, uint32_t *cursor, const char **why)
{
	const struct plan_item *it = plan_next(ctx->plan, ctx->index, cursor);
	*why = "not in the plan";
	if (!it)
		return 0;
	seq_item_begin(ctx, it);
	*why = it->skip ? seq_skip_reason(it) : !seq_once_fits() ? seq_stop_reason() : 0;
	return it;
}

static void first_touch_plan(const struct wl_ctx *ctx)
{
	decide_sizes(ctx);
	plan_kind(ctx->plan, ctx->index, PK_COPIES, "copies");
	plan_kind(ctx->plan, ctx->index, PK_PAGES, "4k-pages");
	plan_kind(ctx->plan, ctx->index, PK_LARGE, "2m-pages");
	plan_kind(ctx->plan, ctx->index, PK_NUMA, "numa");
	/* Each twice: the first run warms the code paths (and an emulator's translations). */
	struct ft_costs c = { 0 };
	(void)time_faults(FT_PAGE, CALIB_PAGES);
	c.fault_s = time_faults(FT_PAGE, CALIB_PAGES);
	(void)time_faults(DEMAND_PAGE_2M, 1);
	c.large_s = time_faults(DEMAND_PAGE_2M, 1);
	struct ft_costs c1 = c;
	time_copy(ctx, &c1);
	time_copy(ctx, &c);
	double fault = c.fault_s, large = c.large_s, copy = c.copy_b;
	uint64_t bytes = sz.ints * sizeof(uint32_t);
	struct plan_item *it;
	for (int k = 0; k < N_CASES; k++) {
		double s = copy_case_s(&c, (enum copy_case)k, bytes), s1 = copy_case_s(&c1, (enum copy_case)k, bytes);
		if ((it = add(ctx, case_names[k], PK_COPIES, k == WARM_NONE, PLAN_UNIT_PASSES, 1, 1, s)))
			it->unit_spread_s = s > s1 ? s - s1 : s1 - s; /* the copy timed twice */
	}
	/* Per page: the step, and the read that checks the page (the zeroing
	 * steps fill each page first); a flush before each. */
	double check = FT_PAGE * c.sum_b;
	if (ctx->has_fault_internals && (it = add(ctx, "page-fault-entry", PK_PAGES, false, PLAN_UNIT_ITERS, sz.pages,
						  MIN_PAGES, fault + check)))
		it->once_s = c.flush_s;
	if ((it = add(ctx, "demand-zero-4k", PK_PAGES, true, PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault + check)))
		it->once_s = c.flush_s;
	if ((it = add(ctx, "demand-zero-2m", PK_LARGE, true, PLAN_UNIT_ITERS, sz.large, MIN_LARGE_PAGES,
		      large + DEMAND_PAGE_2M * c.sum_b)))
		it->once_s = c.flush_s;
	double zero = FT_PAGE * (2 * c.copy_b + c.sum_b + c.clflush_b); /* fill, CLFLUSH, zero, check */
	if ((it = add(ctx, "zero-rep-stosb", PK_PAGES, false, PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, zero)))
		it->once_s = c.flush_s;
	if ((it = add(ctx, "zero-nt", PK_PAGES, false, PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, zero)))
		it->once_s = c.flush_s;
	if (ft_has_clzero(ctx) && (it = add(ctx, "zero-clzero", PK_PAGES, false, PLAN_UNIT_ITERS, sz.pages, MIN_PAGES,
					    zero)))
		it->once_s = c.flush_s;
	/* Populated (a fault's work per page), then read twice; three results. */
	if (ctx->has_fault_internals && (it = add(ctx, "tlb-miss, tlb-miss-cached, hot-access", PK_PAGES, false,
						  PLAN_UNIT_ITERS, sz.pages, MIN_PAGES,
						  fault + 2 * (check + FT_PAGE * c.clflush_b)))) {
		it->once_s = 2 * c.flush_s;
		it->out_bytes *= TLB_RESULTS;
	}
	if (ctx->nodes >= 2) {
		uint64_t nb = ctx->quick ? NUMA_BYTES_QUICK : NUMA_BYTES_FULL;
		uint64_t mb = ctx->quick ? NUMA_MATRIX_BYTES_QUICK : NUMA_MATRIX_BYTES_FULL;
		uint64_t steps = ctx->quick ? NUMA_CHASE_STEPS_QUICK : NUMA_CHASE_STEPS_FULL;
		double nn = (double)ctx->nodes * ctx->nodes;
		/* Each summing repetition of the two cases (with flush=) and each
		 * matrix cell starts with its data CLFLUSHed and a flush. */
		double sums = ctx->flush ? 2.0 * (MIN(ctx->reps, (uint32_t)REPS_MAX) + 1) : 0;
		double s = NUMA_PASSES * (double)nb * copy + 2.0 * (double)(nb / FT_PAGE) * fault +
			   nn * (3.0 * (double)mb * copy + (double)steps * NUMA_CHASE_S_PER_STEP) +
			   sums * ((double)nb * c.clflush_b + c.flush_s) + nn * ((double)mb * c.clflush_b + c.flush_s);
		add(ctx, "numa placement and node matrices", PK_NUMA, false, PLAN_UNIT_PASSES, 1, 1, s);
	}
}

static void first_touch_run(const struct wl_ctx *ctx)
{
	uint32_t cursor = 0;
	const struct plan_item *it;
	first_vs_later = 0;
	fault_4k = -1;

	kprintf("first-touch: copy %llu ints (%llu KiB) src -> dst, %d times in a row (%s per iteration, faults),\n"
		"  then the figure per page copied:\n",
		(unsigned long long)sz.ints, (unsigned long long)(sz.ints * sizeof(uint32_t) >> 10), ITERATIONS,
		tsc_hz() ? "us" : "ticks");
	const char *why;
	for (int c = 0; c < N_CASES; c++) {
		ft_take(ctx, &cursor, &why);
		if (why)
			ft_skip(case_names[c], why);
		else
			copy_case(ctx, (enum copy_case)c, sz.ints);
	}
	kprintf("\n  one first touch, split (up to %llu pages of 4 KiB, %llu of 2 MiB; a first write each):\n",
		(unsigned long long)sz.pages, (unsigned long long)sz.large);
	fault_4k = ft_fault_costs(ctx, &cursor);
	ft_zeroing_costs(ctx, &cursor, sz.pages);
	if (ctx->has_fault_internals) {
		it = ft_take(ctx, &cursor, &why);
		if (why) {
			ft_skip("tlb-miss", why);
			ft_skip("tlb-miss-cached", why);
			ft_skip("hot-access", why);
		} else {
			ft_tlb_costs(ctx, ft_bsp(ctx), it->units);
		}
	} else {
		ft_skip("tlb-miss", "needs TLB flushes on demand (ring 0)");
		ft_skip("tlb-miss-cached", "needs TLB flushes on demand (ring 0)");
		ft_skip("hot-access", "measured with the TLB-miss pages (ring 0)");
	}
	if (ctx->nodes >= 2 && (ft_take(ctx, &cursor, &why), why)) {
		ft_skip("numa-one-cpu-warms", why);
		ft_skip("numa-each-cpu-touches", why);
		ft_skip("numa-latency", why);
		ft_skip("numa-bandwidth", why);
	} else {
		first_touch_numa(ctx);
	}
	summary();
}

const struct workload wl_first_touch = {
	.name = "first-touch",
	.summary = "demand-zero page faults: unwarmed and warmed copies, the cost of one fault, page sizes, NUMA",
	.counters = PMU_GOAL_TLB,
	.measures_faults = true,
	.legacy_plan = first_touch_plan,
	.legacy_run = first_touch_run,
};
