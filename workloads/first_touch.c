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
 * The TLB-miss and hot-access steps of part 2 are in first_touch_tlb.c.
 *
 * Each part is a configuration of the plan (workloads/sequence.h). Their
 * costs come from a model calibrated at planning time: the cost of one
 * demand-zero fault (4 KiB and 2 MiB) and of copying a byte. The page counts
 * of parts 2 and 3 can be lowered by the budget; the copies cannot, as their
 * size is the experiment. */
#include "first_touch.h"
#include "console.h"
#include "demand.h"
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
#define FULL_COPY_INTS (32ull << 20)     /* the seed's 32 Mi ints */
#define QUICK_COPY_INTS (512ull << 10)
#define ITERATIONS 5                     /* the seed's five runs in a row */
#define FULL_PAGES FT_MAX_SAMPLES         /* pages measured one by one */
#define QUICK_PAGES 256
#define FULL_LARGE_PAGES 64              /* 2 MiB pages */
#define QUICK_LARGE_PAGES 4
#define CPUID_E8_EBX_CLZERO (1u << 0)    /* AMD APM vol. 3, CPUID Fn8000_0008 EBX[0] */
#define SRC_PATTERN 0x9e3779b9u          /* anything non-zero and varying */
#define FIT_DIVISOR 4                    /* each large buffer takes at most a quarter of free memory */
#define MIN_PAGES 64                     /* fewer pages give no usable median */
#define MIN_LARGE_PAGES 2
#define CALIB_PAGES 32                   /* 4 KiB faults timed at planning */
#define CALIB_COPY_BYTES (4ull << 20)    /* bytes copied at planning */
#define COPY_PASSES_PER_ITERATION 3      /* the copy, and the checksums read around it */
#define NUMA_PASSES 4                    /* two placement cases, each written then read */
#define NUMA_CHASE_S_PER_STEP 2e-7       /* a dependent load to another node: under 200 ns */
#define REC_BYTES 1500
#define NUMA_CHASE_STEPS_FULL 2000000ull
#define NUMA_CHASE_STEPS_QUICK 20000ull
#define NUMA_MATRIX_BYTES_FULL (256ull << 20)
#define NUMA_MATRIX_BYTES_QUICK (2ull << 20)
#define NUMA_BYTES_FULL (1ull << 30)
#define NUMA_BYTES_QUICK (16ull << 20)

enum copy_case { WARM_NONE, WARM_SRC, WARM_BOTH, N_CASES };
static const char *const case_names[N_CASES] = { "copy-none-warm", "copy-src-warm", "copy-both-warm" };

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t samples[FT_MAX_SAMPLES];
static uint64_t scratch[FT_MAX_SAMPLES];
static struct cpuset bsp;
static double first_vs_later;    /* copy-none-warm: iteration 1 against the mean of 2-5 */
static double fault_4k_ticks;    /* demand-zero-4k: median ticks per fault */

/* The sizes, decided at planning and kept for the run. */
static struct ft_sizes {
	uint64_t ints, pages, large;
} sz;

/* ---- Public helpers (first_touch.h) -------------------------------------- */
struct rec *ft_result_open(const struct wl_ctx *ctx, const char *variant, const struct cpuset *set,
			   uint64_t bytes, const char *flush)
{
	(void)ctx;
	struct rec *r = report_result_open("first-touch", variant, set);
	rec_obj_begin(r, "params");
	if (bytes)
		rec_u64(r, "bytes", bytes);
	rec_str(r, "flush", flush);
	rec_obj_end(r);
	return r;
}

void ft_skip(const char *variant, const char *why)
{
	struct rec *r = report_result_open("first-touch", variant, 0);
	report_result_close(r, "skipped", why);
	kprintf("  %-22s skipped: %s\n", variant, why);
}

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t sum32(const volatile uint32_t *a, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

static void flush_bsp(void)
{
	run_flush(&bsp);
}

/* One case of the seed's experiment; true if every check held. */
static bool copy_case(const struct wl_ctx *ctx, enum copy_case c, uint64_t ints)
{
	const char *why = 0;
	uint64_t bytes = ints * sizeof(uint32_t);
	struct demand_region *src = demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
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
		flush_bsp();
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
	struct rec *r = ft_result_open(ctx, case_names[c], &bsp, bytes,
				       ctx->has_wbinvd ? "wbinvd-each-iteration" : "eviction-read-each-iteration");
	reps_report(r, log);
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
	report_result_close(r, ok ? "ok" : "fail", fail);
	if (c == WARM_NONE) {
		double later = 0;
		for (int it = 1; it < ITERATIONS; it++)
			later += (double)ticks[it] / (ITERATIONS - 1);
		first_vs_later = later > 0 ? (double)ticks[0] / later : 0;
	}
	kprintf("  %-16s", case_names[c]);
	for (int it = 0; it < ITERATIONS; it++)
		kprintf(" %12llu (%5llu f)", (unsigned long long)ticks[it], (unsigned long long)faults[it]);
	kprintf("%s\n", ok ? "" : "  CHECK FAILED");
	demand_destroy(dst);
	demand_destroy(src);
	return ok;
}

/* Touch one word of every page of a fresh region, each touch timed. Reads
 * first (the value must be zero), then writes. Returns false on a bad check. */
static bool touch_pages(struct demand_region *r, uint64_t stride, uint64_t n, const char **fail)
{
	volatile uint64_t *base = demand_base(r);
	bool ok = true;
	for (uint64_t i = 0; i < n; i++) {
		volatile uint64_t *w = (volatile uint64_t *)((uintptr_t)base + i * stride);
		uint64_t t0 = tsc_start();
		uint64_t v = *w;
		uint64_t t1 = tsc_end();
		samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
		*w = i + 1;
		if (v != 0) {
			ok = false;
			*fail = "a freshly faulted page did not read as zero";
		}
	}
	/* The rest of each page must be zero too (checked untimed). */
	for (uint64_t i = 0; i < n && ok; i++) {
		const volatile uint64_t *p = (const volatile uint64_t *)((uintptr_t)base + i * stride);
		for (uint64_t k = 1; k < stride / sizeof(uint64_t); k++)
			if (p[k]) {
				ok = false;
				*fail = "a freshly faulted page did not read as zero";
				break;
			}
	}
	if (demand_faults(r) != n) {
		ok = false;
		*fail = "the fault count is not the number of pages touched";
	}
	return ok;
}

/* ---- Public helpers (first_touch.h), continued --------------------------- */
void ft_report_pages(const struct wl_ctx *ctx, const char *variant, const uint64_t *per, uint64_t n, uint64_t page,
		     unsigned fields, const struct demand_region *r, bool ok, const char *fail,
		     const struct instr_thread *span)
{
	struct stats st;
	stats_compute(per, MIN(n, (uint64_t)FT_MAX_SAMPLES), scratch, &st);
	struct rec *rec = ft_result_open(ctx, variant, &bsp, fields & FT_PAGES_FAULTS ? n * page : 0,
					 wl_flush_method(ctx));
	if (fields & FT_PAGES_BYTES)
		rec_u64(rec, "page_bytes", page);
	report_stats(rec, "ticks", &st);
	reps_report_span(rec, span);
	if (fields & FT_PAGES_FAULTS)
		rec_f64(rec, "ticks_per_fault", st.median, 1);
	if (!strcmp(variant, "demand-zero-4k"))
		fault_4k_ticks = st.median;
	if (fields & FT_PAGES_BYTES)
		rec_f64(rec, "ticks_per_byte", st.median / (double)page, 4);
	if (r) {
		uint64_t f = demand_faults(r);
		rec_u64(rec, "faults", f);
		if (ctx->has_fault_internals && f) {
			rec_f64(rec, "handler_ticks_per_fault", (double)demand_handler_ticks(r) / (double)f, 1);
			rec_f64(rec, "zero_ticks_per_fault", (double)demand_zero_ticks(r) / (double)f, 1);
		} else {
			rec_null(rec, "handler_ticks_per_fault");
			rec_null(rec, "zero_ticks_per_fault");
		}
	}
	report_result_close(rec, ok ? "ok" : "fail", ok ? 0 : fail);
	if (fields & FT_PAGES_BYTES)
		kprintf("  %-22s median %10.0f ticks per %s page, %8.4f ticks/byte%s\n", variant, st.median,
			page == DEMAND_PAGE_2M ? "2 MiB" : "4 KiB", st.median / (double)page, ok ? "" : "  CHECK FAILED");
	else
		kprintf("  %-22s median %10.0f ticks per access%s\n", variant, st.median, ok ? "" : "  CHECK FAILED");
}

static const struct plan_item *take(const struct wl_ctx *ctx, uint32_t *cursor);

/* Demand-zero faults: with prezeroed pages (entry and return only), the whole path, and 2 MiB pages. */
static void fault_costs(const struct wl_ctx *ctx, uint32_t *cursor)
{
	static const struct { const char *variant; uint64_t page; enum demand_zeroing z; } kinds[] = {
		{ "page-fault-entry", DEMAND_PAGE_4K, DEMAND_PREZEROED },
		{ "demand-zero-4k", DEMAND_PAGE_4K, DEMAND_ZERO_STOSB },
		{ "demand-zero-2m", DEMAND_PAGE_2M, DEMAND_ZERO_STOSB },
	};
	for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
		if (kinds[k].z == DEMAND_PREZEROED && !ctx->has_fault_internals) {
			/* User space sees only whole faults: no prezeroed pool, no handler clock. */
			ft_skip(kinds[k].variant, "needs the kernel's fault handler (ring 0)");
			continue;
		}
		const struct plan_item *it = take(ctx, cursor);
		if (!it || it->skip) {
			ft_skip(kinds[k].variant, it ? seq_skip_reason(it) : "not in the plan");
			continue;
		}
		uint64_t pages = it->units;
		const char *why = 0, *fail = 0;
		struct demand_region *r = demand_create(pages * kinds[k].page, kinds[k].page, DEMAND_FIRST_TOUCH,
							kinds[k].z, 0, &why);
		if (!r) {
			ft_skip(kinds[k].variant, why);
			continue;
		}
		flush_bsp();
		struct instr_mark mark;
		struct instr_thread span;
		instr_begin(&mark);
		bool ok = touch_pages(r, kinds[k].page, pages, &fail);
		instr_end(&mark, &span);
		ft_report_pages(ctx, kinds[k].variant, samples, pages, kinds[k].page, FT_PAGES_FAULTS | FT_PAGES_BYTES, r, ok, fail, &span);
		demand_destroy(r);
	}
}

static void zero_rep_stosb(void *p, uint64_t n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
}

static void zero_nt(void *p, uint64_t n)
{
	uint64_t *q = p;
	for (uint64_t i = 0; i < n / sizeof(uint64_t); i++)
		__asm__ volatile("movnti %1, %0" : "=m"(q[i]) : "r"(0ull));
	__asm__ volatile("sfence" ::: "memory");
}

static void zero_clzero(void *p, uint64_t n)
{
	for (uint64_t off = 0; off < n; off += FT_LINE)
		__asm__ volatile(".byte 0x0f, 0x01, 0xfc" /* clzero [rax] */ : : "a"((uintptr_t)p + off) : "memory");
	__asm__ volatile("sfence" ::: "memory");
}

/* Zeroing one 4 KiB page, each way, on pages just flushed from the caches. */
static void zeroing_costs(const struct wl_ctx *ctx, uint32_t *cursor)
{
	uint64_t n = sz.pages;
	static const struct { const char *variant; void (*fn)(void *, uint64_t); } ways[] = {
		{ "zero-rep-stosb", zero_rep_stosb },
		{ "zero-nt", zero_nt },
		{ "zero-clzero", zero_clzero },
	};
	const struct cpuid_snap *s = ctx->bsp_cpuid;
	bool amd = cpu_vendor_is_amd(cpuid_snap_vendor(s));
	bool clzero = amd && s->have_ext8 && (s->ext8.ebx & CPUID_E8_EBX_CLZERO);
	uint64_t phys = pmm_alloc(n, (int)ctx->topo->cpu[0].node, FT_PAGE, 0, PMM_WORKLOAD);
	if (!phys) {
		for (unsigned w = 0; w < ARRAY_SIZE(ways); w++)
			ft_skip(ways[w].variant, "no memory for the pages");
		return;
	}
	uint8_t *pages = (uint8_t *)(uintptr_t)phys;
	for (unsigned w = 0; w < ARRAY_SIZE(ways); w++) {
		if (w == 2 && !clzero) {
			ft_skip(ways[w].variant, amd ? "CPUID Fn8000_0008 EBX[0] (CLZERO) is clear" : "CLZERO is an AMD instruction");
			continue;
		}
		const struct plan_item *it = take(ctx, cursor);
		if (!it || it->skip) {
			ft_skip(ways[w].variant, it ? seq_skip_reason(it) : "not in the plan");
			continue;
		}
		uint64_t pages_now = MIN(n, it->units);
		memset(pages, 0xa5, pages_now * FT_PAGE);
		flush_bsp();
		struct instr_mark mark;
		struct instr_thread span;
		instr_begin(&mark);
		for (uint64_t i = 0; i < pages_now; i++) {
			uint64_t t0 = tsc_start();
			ways[w].fn(pages + i * FT_PAGE, FT_PAGE);
			uint64_t t1 = tsc_end();
			samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
		}
		instr_end(&mark, &span);
		bool ok = true;
		for (uint64_t i = 0; i < pages_now * FT_PAGE && ok; i++)
			ok = pages[i] == 0;
		ft_report_pages(ctx, ways[w].variant, samples, pages_now, FT_PAGE, FT_PAGES_BYTES, 0, ok, "a page was not zeroed", &span);
	}
	pmm_free(phys, n, PMM_WORKLOAD);
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

/* Seconds to copy one byte, cache-cold. */
static double time_copy(void)
{
	uint64_t pages = 2 * CALIB_COPY_BYTES / FT_PAGE;
	uint64_t phys = pmm_alloc(pages, PMM_ANY_NODE, FT_PAGE, 0, PMM_WORKLOAD);
	if (!phys)
		return 0;
	uint32_t *src = (uint32_t *)(uintptr_t)phys, *dst = src + CALIB_COPY_BYTES / sizeof(uint32_t);
	uint64_t n = CALIB_COPY_BYTES / sizeof(uint32_t);
	for (uint64_t i = 0; i < n; i++)
		src[i] = (uint32_t)i;
	flush_bsp();
	uint64_t t0 = tsc_read();
	for (uint64_t i = 0; i < n; i++)
		((volatile uint32_t *)dst)[i] = src[i];
	uint64_t t1 = tsc_read();
	pmm_free(phys, pages, PMM_WORKLOAD);
	return seq_seconds(t1 - t0) / (double)CALIB_COPY_BYTES;
}

static struct plan_item *add(const struct wl_ctx *ctx, const char *name, uint8_t unit, uint64_t want,
			     uint64_t min, double unit_s)
{
	struct plan_item *it = plan_add(ctx->plan, ctx->index, name);
	if (!it)
		return 0;
	it->unit = unit;
	it->want_units = want;
	it->min_units = MIN(want, min);
	it->want_reps = 0; /* each part is one measurement with its own samples */
	it->out_bytes = REC_BYTES;
	it->unit_s = unit_s;
	return it;
}

static bool has_clzero(const struct wl_ctx *ctx)
{
	const struct cpuid_snap *s = ctx->bsp_cpuid;
	return cpu_vendor_is_amd(cpuid_snap_vendor(s)) && s->have_ext8 && (s->ext8.ebx & CPUID_E8_EBX_CLZERO);
}

/* The next item of this workload, begun (NULL if the plan has none: it was full). */
static const struct plan_item *take(const struct wl_ctx *ctx, uint32_t *cursor)
{
	const struct plan_item *it = plan_next(ctx->plan, ctx->index, cursor);
	if (it)
		seq_item_begin(ctx, it);
	return it;
}

/* ---- Public Functions ----------------------------------------------------- */
void first_touch_plan(const struct wl_ctx *ctx)
{
	decide_sizes(ctx);
	bsp.n = 1;
	bsp.cpu[0] = ctx->online->cpu[0];
	/* Each twice: the first run warms the code paths (and an emulator's translations). */
	(void)time_faults(FT_PAGE, CALIB_PAGES);
	double fault = time_faults(FT_PAGE, CALIB_PAGES);
	(void)time_faults(DEMAND_PAGE_2M, 1);
	double large = time_faults(DEMAND_PAGE_2M, 1);
	(void)time_copy();
	double copy = time_copy();
	uint64_t bytes = sz.ints * sizeof(uint32_t), pages = bytes / FT_PAGE;
	for (int c = 0; c < N_CASES; c++) {
		double s = ITERATIONS * COPY_PASSES_PER_ITERATION * (double)bytes * copy + 2.0 * (double)pages * fault;
		add(ctx, case_names[c], PLAN_UNIT_PASSES, 1, 1, s);
	}
	if (ctx->has_fault_internals)
		add(ctx, "page-fault-entry", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	add(ctx, "demand-zero-4k", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	add(ctx, "demand-zero-2m", PLAN_UNIT_ITERS, sz.large, MIN_LARGE_PAGES, large);
	add(ctx, "zero-rep-stosb", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	add(ctx, "zero-nt", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	if (has_clzero(ctx))
		add(ctx, "zero-clzero", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	if (ctx->has_fault_internals)
		add(ctx, "tlb-miss, tlb-miss-cached, hot-access", PLAN_UNIT_ITERS, sz.pages, MIN_PAGES, fault);
	if (ctx->nodes >= 2) {
		uint64_t nb = ctx->quick ? NUMA_BYTES_QUICK : NUMA_BYTES_FULL;
		uint64_t mb = ctx->quick ? NUMA_MATRIX_BYTES_QUICK : NUMA_MATRIX_BYTES_FULL;
		uint64_t steps = ctx->quick ? NUMA_CHASE_STEPS_QUICK : NUMA_CHASE_STEPS_FULL;
		double nn = (double)ctx->nodes * ctx->nodes;
		double s = NUMA_PASSES * (double)nb * copy + 2.0 * (double)(nb / FT_PAGE) * fault +
			   nn * (3.0 * (double)mb * copy + (double)steps * NUMA_CHASE_S_PER_STEP);
		add(ctx, "numa placement and node matrices", PLAN_UNIT_PASSES, 1, 1, s);
	}
}

void first_touch_run(const struct wl_ctx *ctx)
{
	uint32_t cursor = 0;
	const struct plan_item *it;
	bsp.n = 1;
	bsp.cpu[0] = ctx->online->cpu[0];

	kprintf("first-touch: copy %llu ints src -> dst, %d times in a row (ticks, faults):\n",
		(unsigned long long)sz.ints, ITERATIONS);
	for (int c = 0; c < N_CASES; c++) {
		if (!(it = take(ctx, &cursor)) || it->skip)
			ft_skip(case_names[c], it ? seq_skip_reason(it) : "not in the plan");
		else
			copy_case(ctx, (enum copy_case)c, sz.ints);
	}
	kprintf("\n  one first touch, split (up to %llu pages of 4 KiB, %llu of 2 MiB):\n",
		(unsigned long long)sz.pages, (unsigned long long)sz.large);
	fault_costs(ctx, &cursor);
	zeroing_costs(ctx, &cursor);
	if (ctx->has_fault_internals) {
		it = take(ctx, &cursor);
		if (!it || it->skip) {
			const char *why = it ? seq_skip_reason(it) : "not in the plan";
			ft_skip("tlb-miss", why);
			ft_skip("tlb-miss-cached", why);
			ft_skip("hot-access", why);
		} else {
			ft_tlb_costs(ctx, &bsp, it->units);
		}
	} else {
		ft_skip("tlb-miss", "needs TLB flushes on demand (ring 0)");
		ft_skip("tlb-miss-cached", "needs TLB flushes on demand (ring 0)");
		ft_skip("hot-access", "measured with the TLB-miss pages (ring 0)");
	}
	if (ctx->nodes >= 2 && (!(it = take(ctx, &cursor)) || it->skip)) {
		const char *why = it ? seq_skip_reason(it) : "not in the plan";
		ft_skip("numa-one-cpu-warms", why);
		ft_skip("numa-each-cpu-touches", why);
		ft_skip("numa-latency", why);
		ft_skip("numa-bandwidth", why);
	} else {
		first_touch_numa(ctx);
	}
	console_summary("first-touch unwarmed copy: iteration 1 took %.1fx iterations 2-5; a 4 KiB demand-zero fault %.0f ticks",
			first_vs_later, fault_4k_ticks);
}
