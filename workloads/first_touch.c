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
 * Each part is a configuration of the plan (kernel/bench/workload.h). Their
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
#define CALIB_COPY_BYTES (16ull << 20)   /* bytes copied at planning at most: past the TLB's reach of 4 KiB pages, as the
					    full profile's copies are; the copies' own size when smaller (quick: 2 MiB),
					    so that the timing is of what the run does and costs no more */
#define NUMA_PASSES 4                    /* two placement cases, each written then read */
#define NUMA_CHASE_S_PER_STEP 2e-7       /* a dependent load to another node: under 200 ns */
#define CPUID_E8_EBX_CLZERO (1u << 0)    /* AMD APM vol. 3, CPUID Fn8000_0008 EBX[0] */
#define NUMA_CHASE_STEPS_FULL 2000000ull
#define NUMA_CHASE_STEPS_QUICK 20000ull
#define NUMA_MATRIX_BYTES_FULL (256ull << 20)
#define NUMA_MATRIX_BYTES_QUICK (2ull << 20)
#define NUMA_BYTES_FULL (1ull << 30)
#define NUMA_BYTES_QUICK (16ull << 20)
#define TEXT_LEN 96

enum copy_case { WARM_NONE, WARM_SRC, WARM_BOTH, N_CASES };
/* The plan's fair-share groups; the least form is demand-zero at 4 KiB and 2 MiB and the unwarmed copy. */
enum ft_group { FG_COPIES, FG_PAGES, FG_LARGE, FG_NUMA };
static const char *const ft_groups[] = { "copies", "4k-pages", "2m-pages", "numa", 0 };
static const char *const case_names[N_CASES] = { "copy-none-warm", "copy-src-warm", "copy-both-warm" };

/* ---- Private Variables ---------------------------------------------------- */
static double first_vs_later;    /* copy-none-warm: iteration 1 over the figure's median (0: not measured) */
static double fault_4k;          /* demand-zero-4k: the figure's ns per page (negative: not measured) */

/* The sizes: the profile's, shrunk to what memory allows (decide_sizes). */
struct ft_sizes {
	uint64_t ints, pages, large;
};
static struct cpuset bsp;

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
static bool copy_case(struct wl_item *w, enum copy_case c, uint64_t ints)
{
	const struct wl_ctx *ctx = wl_ctx(w);
	const char *why = 0;
	uint64_t bytes = ints * sizeof(uint32_t);
	struct demand_region *src = demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_ON_READ, 0, &why);
	struct demand_region *dst = src ? demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why) : 0;
	if (!src || !dst) {
		demand_destroy(src);
		wl_result_skip(w, case_names[c], why);
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
	struct rec *r = ft_result_open(w, case_names[c], ft_bsp(ctx), bytes, true, "-each-iteration");
	reps_report(r, log);
	struct ft_measures fm;
	char text[TEXT_LEN];
	ft_measures_of(FT_M_COPY, FT_PAGE, bytes, 1, &fm);
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
	wl_result_close(w, r, ok ? WL_OK : WL_ERR_FAIL, fail);
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
static void decide_sizes(const struct wl_ctx *ctx, struct ft_sizes *out)
{
	struct ft_sizes sz;
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
	*out = sz;
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
	return tsc_seconds(t1 - t0) / (double)n;
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
static void time_copy(const struct wl_ctx *ctx, uint64_t bytes, struct ft_costs *c)
{
	const char *why = 0;
	struct demand_region *s = demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0,
						&why);
	struct demand_region *d = s ? demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH,
						    DEMAND_ZERO_STOSB, 0, &why) : 0;
	if (!s || !d) {
		demand_destroy(s);
		return;
	}
	uint32_t *src = demand_base(s), *dst = demand_base(d);
	uint64_t n = bytes / sizeof(uint32_t);
	const uint32_t *sp = src; /* the copy loop as copy_case writes it */
	for (uint64_t i = 0; i < n; i++)
		src[i] = (uint32_t)i * SRC_PATTERN;
	for (uint64_t i = 0; i < n; i++)
		dst[i] = sp[i];
	uint64_t tc = tsc_read();
	run_evict_lines(src, bytes);
	run_evict_lines(dst, bytes);
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
	c->clflush_b = tsc_seconds(t0 - tc) / (double)(2 * bytes);
	c->flush_s = tsc_seconds(t1 - t0);
	c->copy_b = tsc_seconds(t2 - t1) / (double)bytes;
	c->sum_b = tsc_seconds(t3 - t2) / (double)bytes;
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

/* A configuration of kind row, `which` of it, with its per-unit cost; every
 * one is a single measurement with its own samples (no repetitions). */
static void add(struct wl_plan *p, enum ft_row row, unsigned which, const char *variant, uint64_t size,
		enum ft_group group, bool essential, uint64_t want, uint64_t min, double unit_s, double once_s)
{
	struct wl_cfg cfg = { .variant = variant };
	/* A kind of several results (the TLB steps) is named by them all. */
	fmt_snprintf(cfg.name, sizeof(cfg.name), "%s", variant ? variant : "tlb-miss, tlb-miss-cached, hot-access");
	*WL_OWN(&cfg, struct ft_cfg) = (struct ft_cfg){ (uint8_t)row, (uint8_t)which, size };
	bool per_page = row == FT_FAULT || row == FT_ZERO || row == FT_TLB;
	struct wl_cost cost = {
		.group = group, .essential = essential, .want_units = want, .min_units = MIN(want, min),
		.unit_s = unit_s, .once_s = once_s,
		/* A per-page result keeps up to REPS_MAX of its page timings as samples. */
		.out_bytes = reps_samples_on() && per_page ? REPS_MAX * WL_SAMPLE_BYTES : 0,
	};
	wl_add(p, row, &cfg, &cost);
}

/* A configuration this machine lacks, with the reason. */
static void absent(struct wl_plan *p, enum ft_row row, const char *variant, const char *why)
{
	struct wl_cfg cfg = { .variant = variant };
	fmt_snprintf(cfg.name, sizeof(cfg.name), "%s", variant);
	WL_OWN(&cfg, struct ft_cfg)->row = (uint8_t)row;
	wl_absent(p, row, &cfg, why);
}

/* The text of the run's summary line: what was measured, or why not. */
static void summary(const struct wl_ctx *ctx)
{
	(void)ctx;
	char first[32] = "not measured", fault[32] = "not measured";
	if (first_vs_later > 0)
		fmt_snprintf(first, sizeof(first), "%.1fx", first_vs_later);
	if (fault_4k >= 0)
		fmt_snprintf(fault, sizeof(fault), "%.0f ns", fault_4k);
	console_summary("first-touch unwarmed copy: iteration 1 took %s the typical iteration; a 4 KiB demand-zero fault %s",
			first, fault);
}

/* ---- Public Functions ----------------------------------------------------- */
const struct cpuset *ft_bsp(const struct wl_ctx *ctx)
{
	bsp.n = 1;
	bsp.cpu[0] = ctx->online->cpu[0];
	return &bsp;
}

bool ft_has_clzero(const struct wl_ctx *ctx)
{
	const struct cpuid_snap *s = ctx->bsp_cpuid;
	return cpu_vendor_is_amd(cpuid_snap_vendor(s)) && s->have_ext8 && (s->ext8.ebx & CPUID_E8_EBX_CLZERO);
}

struct rec *ft_params_open(struct wl_item *c, const char *variant, const struct cpuset *set, uint64_t bytes)
{
	struct rec *r = wl_result_open(c, variant, set);
	rec_obj_begin(r, "params");
	if (bytes)
		rec_u64(r, "bytes", bytes);
	return r;
}

struct rec *ft_result_open(struct wl_item *c, const char *variant, const struct cpuset *set, uint64_t bytes,
			   bool flushed, const char *suffix)
{
	struct rec *r = ft_params_open(c, variant, set, bytes);
	flushcheck_params(r, flushed, suffix);
	rec_obj_end(r);
	return r;
}

/* ---- The workload's table --------------------------------------------------- */
/* Calibrate the model (each timing twice: the first warms the code paths and
 * an emulator's translations), then every step in run order; what this
 * machine cannot measure is absent, in its place. */
static void ft_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	struct ft_sizes sz;
	decide_sizes(ctx, &sz);
	struct ft_costs c = { 0 };
	(void)time_faults(FT_PAGE, CALIB_PAGES);
	c.fault_s = time_faults(FT_PAGE, CALIB_PAGES);
	(void)time_faults(DEMAND_PAGE_2M, 1);
	c.large_s = time_faults(DEMAND_PAGE_2M, 1);
	struct ft_costs c1 = c;
	uint64_t calib_bytes = MIN(CALIB_COPY_BYTES, ALIGN_UP(sz.ints * sizeof(uint32_t), FT_PAGE));
	time_copy(ctx, calib_bytes, &c1);
	time_copy(ctx, calib_bytes, &c);
	double fault = c.fault_s, large = c.large_s, copy = c.copy_b;
	uint64_t bytes = sz.ints * sizeof(uint32_t);
	for (int k = 0; k < N_CASES; k++) {
		double s = copy_case_s(&c, (enum copy_case)k, bytes), s1 = copy_case_s(&c1, (enum copy_case)k, bytes);
		struct wl_cfg cfg = { .variant = case_names[k] };
		fmt_snprintf(cfg.name, sizeof(cfg.name), "%s", case_names[k]);
		*WL_OWN(&cfg, struct ft_cfg) = (struct ft_cfg){ FT_COPY, (uint8_t)k, sz.ints };
		struct wl_cost cost = { .group = FG_COPIES, .essential = k == WARM_NONE, .want_units = 1, .min_units = 1,
					.unit_s = s, .unit_spread_s = s > s1 ? s - s1 : s1 - s }; /* the copy timed twice */
		wl_add(p, FT_COPY, &cfg, &cost);
	}
	/* Per page: the step, and the read that checks the page (the zeroing
	 * steps fill each page first); a flush before each. */
	double check = FT_PAGE * c.sum_b;
	if (ctx->has_fault_internals)
		add(p, FT_FAULT, FT_FAULT_ENTRY, ft_fault_names[FT_FAULT_ENTRY], 0, FG_PAGES, false, sz.pages, MIN_PAGES,
		    fault + check, c.flush_s);
	else /* user space sees only whole faults: no prezeroed pool, no handler clock */
		absent(p, FT_FAULT, ft_fault_names[FT_FAULT_ENTRY], "needs the kernel's fault handler (ring 0)");
	add(p, FT_FAULT, FT_FAULT_4K, ft_fault_names[FT_FAULT_4K], 0, FG_PAGES, true, sz.pages, MIN_PAGES, fault + check,
	    c.flush_s);
	add(p, FT_FAULT, FT_FAULT_2M, ft_fault_names[FT_FAULT_2M], 0, FG_LARGE, true, sz.large, MIN_LARGE_PAGES,
	    large + DEMAND_PAGE_2M * c.sum_b, c.flush_s);
	double zero = FT_PAGE * (2 * c.copy_b + c.sum_b + c.clflush_b); /* fill, CLFLUSH, zero, check */
	bool amd = cpu_vendor_is_amd(cpuid_snap_vendor(ctx->bsp_cpuid));
	for (unsigned w = 0; w < FT_ZEROS; w++)
		if (w == FT_ZERO_CLZERO && !ft_has_clzero(ctx))
			absent(p, FT_ZERO, ft_zero_names[w], amd ? "CPUID Fn8000_0008 EBX[0] (CLZERO) is clear"
							       : "CLZERO is an AMD instruction");
		else
			add(p, FT_ZERO, w, ft_zero_names[w], 0, FG_PAGES, false, sz.pages, MIN_PAGES, zero, c.flush_s);
	/* Populated (a fault's work per page), then read twice; three results. */
	if (ctx->has_fault_internals) {
		add(p, FT_TLB, 0, 0, 0, FG_PAGES, false, sz.pages, MIN_PAGES, fault + 2 * (check + FT_PAGE * c.clflush_b),
		    2 * c.flush_s);
	} else {
		absent(p, FT_TLB, "tlb-miss", "needs TLB flushes on demand (ring 0)");
		absent(p, FT_TLB, "tlb-miss-cached", "needs TLB flushes on demand (ring 0)");
		absent(p, FT_TLB, "hot-access", "measured with the TLB-miss pages (ring 0)");
	}
	if (ctx->nodes < 2) {
		static const char *const numa[] = { "numa-one-cpu-warms", "numa-each-cpu-touches", "numa-latency",
						    "numa-bandwidth" };
		for (unsigned v = 0; v < ARRAY_SIZE(numa); v++)
			absent(p, FT_NUMA, numa[v], strcmp(ctx->platform, "linux") ? "one NUMA node: no SRAT, or one proximity domain"
										 : "one NUMA node: the OS reports one");
		return;
	}
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
	struct wl_cfg cfg = { .name = "numa placement and node matrices" };
	WL_OWN(&cfg, struct ft_cfg)->row = FT_NUMA;
	struct wl_cost cost = { .group = FG_NUMA, .want_units = 1, .min_units = 1, .unit_s = s };
	wl_add(p, FT_NUMA, &cfg, &cost);
}

/* Before the first step that runs: the header, the run's own sizes. */
static bool ft_setup(const struct wl_ctx *ctx, const char **why)
{
	(void)why;
	struct ft_sizes sz;
	decide_sizes(ctx, &sz);
	first_vs_later = 0;
	fault_4k = -1;
	kprintf("first-touch: copy %llu ints (%llu KiB) src -> dst, %d times in a row (%s per iteration, faults),\n"
		"  then the figure per page copied:\n",
		(unsigned long long)sz.ints, (unsigned long long)(sz.ints * sizeof(uint32_t) >> 10), ITERATIONS,
		tsc_hz() ? "us" : "ticks");
	return true;
}

static void copy_run(struct wl_item *c)
{
	const struct ft_cfg *f = WL_OWN_CONST(wl_cfg(c), struct ft_cfg);
	copy_case(c, (enum copy_case)f->which, f->size);
}

static bool fault_setup(const struct wl_ctx *ctx, const char **why)
{
	(void)why;
	struct ft_sizes sz;
	decide_sizes(ctx, &sz);
	kprintf("\n  one first touch, split (up to %llu pages of 4 KiB, %llu of 2 MiB; a first write each):\n",
		(unsigned long long)sz.pages, (unsigned long long)sz.large);
	return true;
}

static void fault_run(struct wl_item *c)
{
	double v = ft_fault_run(c);
	if (WL_OWN_CONST(wl_cfg(c), struct ft_cfg)->which == FT_FAULT_4K)
		fault_4k = v; /* for the summary line */
}

/* The zeroing pages, once for every way: the profile's page count (memory does not shrink it). */
static bool zero_setup(const struct wl_ctx *ctx, const char **why)
{
	struct ft_sizes sz;
	decide_sizes(ctx, &sz);
	return ft_zero_setup(ctx, sz.pages, why);
}

static const char *const tlb_variants[] = { "tlb-miss", "tlb-miss-cached", "hot-access", 0 };
static const char *const numa_variants[] = { "numa-one-cpu-warms", "numa-each-cpu-touches", "numa-latency",
					     "numa-bandwidth", 0 };
static const struct wl_kind ft_kinds[FT_ROWS] = {
	[FT_COPY] = { .name = "copy", .measures = "N ints copied src -> dst 5 times in a row, each iteration timed, its faults counted",
		      .unit = PLAN_UNIT_PASSES, .stop = WL_STOP_ONCE, .run = copy_run },
	[FT_FAULT] = { .name = "fault", .measures = "a first write into each fresh page: the demand-zero fault, or its entry alone",
		       .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_ONCE, .run = fault_run, .setup = fault_setup },
	[FT_ZERO] = { .name = "zeroing", .measures = "one page zeroed one way, page by page",
		      .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_ONCE, .run = ft_zero_run, .setup = zero_setup,
		      .teardown = ft_zero_teardown },
	[FT_TLB] = { .name = "tlb", .measures = "the first access to a mapped page, its data cold or cached, against a hot one",
		     .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_ONCE, .variants = tlb_variants, .run = ft_tlb_run },
	[FT_NUMA] = { .name = "numa", .measures = "placement by first touch; node x node latency and bandwidth",
		      .unit = PLAN_UNIT_PASSES, .stop = WL_STOP_ONCE, .variants = numa_variants, .run = ft_numa_run },
};
const struct workload wl_first_touch = {
	.name = "first-touch",
	.summary = "demand-zero page faults: unwarmed and warmed copies, the cost of one fault, page sizes, NUMA",
	.counters = PMU_GOAL_TLB,
	.measures_faults = true,
	.groups = ft_groups,
	.kinds = ft_kinds,
	.n_kinds = FT_ROWS,
	.plan = ft_plan,
	.setup = ft_setup,
	.finish = summary,
};
