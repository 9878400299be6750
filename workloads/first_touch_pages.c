/* first_touch_pages.c - first-touch's per-page steps: a first write into fresh pages (the whole demand-zero fault, 4 KiB and 2 MiB, and the fault onto a prezeroed page), zeroing one page each way, and the result record every per-page step shares; see first_touch.h.
 *
 * The timed access is a write, as in shared/seeds/003 (the first copy into a
 * fresh destination pays for zeroing): on bare metal QuietBench's handler
 * zeroes on any first access, but Linux maps its shared zero page on a
 * first read and allocates and zeroes only on the first write. A timed
 * write is the same event on both platforms (docs/timing.md). */
#include "first_touch.h"
#include "console.h"
#include "demand.h"
#include "first_touch_measures.h"
#include "fmt.h"
#include "lib.h"
#include "options.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define CPUID_E8_EBX_CLZERO (1u << 0)    /* AMD APM vol. 3, CPUID Fn8000_0008 EBX[0] */
#define TOUCH_MARK 0x7a11fa57c0ffee00ull  /* what a first write stores (xor the page's index): never zero */
#define FILL_BYTE 0xa5                   /* what the zeroing pages hold before each way zeroes them */
#define TEXT_LEN 96
#define WHY_LEN 400
#define MIN_WHOLE_PAGES 2                /* fewer pages mapped whole give no figure (first_touch.c's least) */

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t samples[FT_MAX_SAMPLES];
static uint64_t scratch[FT_MAX_SAMPLES];
static bool whole[FT_MAX_SAMPLES];       /* the page a timed first write mapped whole (demand_whole_pages) */
static const char *whole_how;
static uint64_t whole_count;             /* how many of them */
static uint64_t small_faults;            /* of the fault result being reported: left out of its figure */
static struct cpuset bsp;

/* ---- Private Functions ---------------------------------------------------- */
/* The samples of the pages a first write mapped whole, kept in order at
 * the front of samples[]; how many. A figure under a page size's name is
 * of faults that mapped that size. */
static uint64_t keep_whole(uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (whole[i])
			samples[k++] = samples[i];
	return k;
}

/* Write one word into each of n pages of a fresh region, each write timed:
 * the access that takes the page fault. Then, untimed, every written word
 * must read back and the rest of its page read zero (the handler zeroed
 * it). Returns false on a bad check. */
static bool touch_pages(struct demand_region *r, uint64_t stride, uint64_t n, const char **fail)
{
	uint8_t *base = demand_base(r);
	for (uint64_t i = 0; i < n; i++) {
		volatile uint64_t *w = (volatile uint64_t *)(base + i * stride);
		uint64_t t0 = tsc_start();
		*w = TOUCH_MARK ^ i;
		uint64_t t1 = tsc_end();
		samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
	}
	/* Before the read-back: on Linux it maps the zero page into the rest of
	 * a page that fell back to 4 KiB, and the page would look whole. */
	whole_count = demand_whole_pages(r, n, whole, &whole_how);
	bool ok = true;
	for (uint64_t i = 0; i < n && ok; i++) {
		const volatile uint64_t *p = (const volatile uint64_t *)(base + i * stride);
		uint64_t words = stride / sizeof(uint64_t);
		if (p[0] != (TOUCH_MARK ^ i)) {
			ok = false;
			*fail = "a first write did not read back";
		} else if (ft_first_nonzero(p, words, 0) != words) {
			ok = false;
			*fail = "a freshly faulted page did not read as zero";
		}
	}
	if (demand_faults(r) != n) {
		ok = false;
		*fail = "the fault count is not the number of pages touched";
	}
	return ok;
}

/* A first-touch result with params.bytes (when not 0), its params object left open. */
static struct rec *params_open(const char *variant, const struct cpuset *set, uint64_t bytes)
{
	struct rec *r = report_result_open("first-touch", variant, set);
	rec_obj_begin(r, "params");
	if (bytes)
		rec_u64(r, "bytes", bytes);
	return r;
}

/* Each way of zeroing ends with SFENCE, so that every zeroing window ends
 * the same way: the stores of a fast string operation may be performed out
 * of order, as MOVNTI's and CLZERO's may (Intel SDM vol. 3A, "Memory-Ordering
 * Model for String Operations on Write-Back (WB) Memory"). */
static void zero_rep_stosb(void *p, uint64_t n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
	__asm__ volatile("sfence" ::: "memory");
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

struct rec *ft_result_open(const struct wl_ctx *ctx, const char *variant, const struct cpuset *set,
			   uint64_t bytes, bool flushed, const char *suffix)
{
	(void)ctx;
	struct rec *r = params_open(variant, set, bytes);
	flushcheck_params(r, flushed, suffix);
	rec_obj_end(r);
	return r;
}

void ft_skip(const char *variant, const char *why)
{
	struct rec *r = report_result_open("first-touch", variant, 0);
	report_result_close(r, "skipped", why);
	kprintf("  %-22s skipped: %s\n", variant, why);
}

double ft_report_pages(const struct wl_ctx *ctx, const char *variant, enum ft_kind kind, const uint64_t *per,
		       uint64_t n, uint64_t page, const struct demand_region *r, bool ok, const char *fail,
		       const struct instr_thread *span)
{
	bool faults = kind == FT_KIND_FAULT || kind == FT_KIND_TRAP;
	bool bytes = faults || kind == FT_KIND_ZERO || kind == FT_KIND_TLB;
	struct stats st;
	n = MIN(n, (uint64_t)FT_MAX_SAMPLES);
	stats_compute(per, n, scratch, &st);
	/* Who served a region's 2 MiB pages defines what its figure is of. */
	struct rec *rec = params_open(variant, ft_bsp(ctx), faults ? n * page : 0);
	if (r && r->huge_source)
		rec_str(rec, "huge_source", r->huge_source);
	flushcheck_params(rec, true, 0);
	rec_obj_end(rec);
	if (bytes)
		rec_u64(rec, "page_bytes", page);
	report_stats(rec, "ticks", &st);
	reps_span_figure(rec, &st, span);
	struct ft_measures fm;
	char text[TEXT_LEN];
	ft_measures_of(kind, page, 0, 1, &fm);
	double first = ft_write_measures(rec, &fm, text, sizeof(text));
	reps_span_samples(rec, per, n);
	reps_report_span(rec, span);
	/* Derived from the figure: the span's statistics, all its pages. */
	const struct stats *fig = report_figure();
	if (faults && fig)
		rec_f64(rec, "ticks_per_fault", fig->median, 1);
	else if (faults)
		rec_null(rec, "ticks_per_fault");
	if (bytes && fig)
		rec_f64(rec, "ticks_per_byte", fig->median / (double)page, 4);
	else if (bytes)
		rec_null(rec, "ticks_per_byte");
	if (r) {
		uint64_t f = demand_faults(r);
		rec_u64(rec, "faults", f);
		if (page > FT_PAGE) {
			rec_u64(rec, "small_faults", small_faults);
			rec_str(rec, "huge_proof", whole_how); /* what proved the kept pages 2 MiB */
		}
		if (ctx->has_fault_internals && f) {
			rec_f64(rec, "handler_ticks_per_fault", (double)demand_handler_ticks(r) / (double)f, 1);
			rec_f64(rec, "zero_ticks_per_fault", (double)demand_zero_ticks(r) / (double)f, 1);
		} else {
			rec_null(rec, "handler_ticks_per_fault");
			rec_null(rec, "zero_ticks_per_fault");
		}
	}
	seq_item_report(rec, 0);
	report_result_close(rec, ok ? "ok" : "fail", ok ? 0 : fail);
	kprintf("  %-22s %s%s\n", variant, text, ok ? "" : "  CHECK FAILED");
	return first;
}

double ft_fault_costs(const struct wl_ctx *ctx, uint32_t *cursor)
{
	static const struct { const char *variant; uint64_t page; enum demand_zeroing z; enum ft_kind kind; } kinds[] = {
		{ "page-fault-entry", DEMAND_PAGE_4K, DEMAND_PREZEROED, FT_KIND_TRAP },
		{ "demand-zero-4k", DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, FT_KIND_FAULT },
		{ "demand-zero-2m", DEMAND_PAGE_2M, DEMAND_ZERO_STOSB, FT_KIND_FAULT },
	};
	double fault_4k = -1;
	for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
		if (kinds[k].z == DEMAND_PREZEROED && !ctx->has_fault_internals) {
			/* User space sees only whole faults: no prezeroed pool, no handler clock. */
			ft_skip(kinds[k].variant, "needs the kernel's fault handler (ring 0)");
			continue;
		}
		const char *skip;
		const struct plan_item *it = ft_take(ctx, cursor, &skip);
		if (skip) {
			ft_skip(kinds[k].variant, skip);
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
		run_flush(ft_bsp(ctx));
		struct instr_mark mark;
		struct instr_thread span;
		instr_begin(&mark);
		bool ok = touch_pages(r, kinds[k].page, pages, &fail);
		instr_end(&mark, &span);
		/* Our handler maps the whole page or the check fails; an OS may fall
		 * back to 4 KiB pages, whose faults are left out of the 2 MiB figure. */
		uint64_t kept = pages;
		small_faults = 0;
		if (whole_count == DEMAND_WHOLE_UNKNOWN) {
			ft_skip(kinds[k].variant, whole_how); /* neither a 2 MiB figure nor a count of 4 KiB faults */
			demand_destroy(r);
			continue;
		}
		if (whole_count < pages && (ctx->has_fault_internals || kinds[k].page == FT_PAGE)) {
			fail = ok ? "a first write did not map the whole page" : fail;
			ok = false;
		} else if (whole_count < pages) {
			kept = keep_whole(pages);
			small_faults = pages - kept;
		}
		if (small_faults && (kept < MIN_WHOLE_PAGES || kept * 2 < pages)) {
			char short_why[WHY_LEN];
			fmt_snprintf(short_why, sizeof(short_why), "the OS gave 4 KiB pages: %llu of %llu first writes "
				     "mapped less than 2 MiB (%s)", (unsigned long long)small_faults,
				     (unsigned long long)pages, whole_how);
			ft_skip(kinds[k].variant, short_why);
			demand_destroy(r);
			continue;
		} else if (small_faults) {
			kprintf("  %-22s (%llu of %llu first writes mapped less than 2 MiB: left out; %s)\n",
				kinds[k].variant, (unsigned long long)small_faults, (unsigned long long)pages, whole_how);
		}
		double v = ft_report_pages(ctx, kinds[k].variant, kinds[k].kind, samples, kept, kinds[k].page, r, ok,
					   fail, &span);
		if (kinds[k].page == DEMAND_PAGE_4K && kinds[k].kind == FT_KIND_FAULT)
			fault_4k = v;
		demand_destroy(r);
	}
	return fault_4k;
}

void ft_zeroing_costs(const struct wl_ctx *ctx, uint32_t *cursor, uint64_t n)
{
	static const struct { const char *variant; void (*fn)(void *, uint64_t); } ways[] = {
		{ "zero-rep-stosb", zero_rep_stosb },
		{ "zero-nt", zero_nt },
		{ "zero-clzero", zero_clzero },
	};
	bool amd = cpu_vendor_is_amd(cpuid_snap_vendor(ctx->bsp_cpuid));
	/* In whole 2 MiB pages on both platforms: the kernel maps RAM so, and the
	 * twin asks Linux for transparent huge pages there; a 4 KiB mapping would
	 * add a TLB miss to every page zeroed. */
	uint64_t held = ALIGN_UP(n * FT_PAGE, DEMAND_PAGE_2M) / FT_PAGE;
	uint64_t phys = ctx->fail & OPT_FAIL_ZEROING ? 0 /* fail=zeroing (debug): as if memory were short */
		      : pmm_alloc(held, (int)ctx->topo->cpu[0].node, DEMAND_PAGE_2M, 0, PMM_WORKLOAD);
	if (!phys && !(ctx->fail & OPT_FAIL_ZEROING)) /* no whole 2 MiB page free there: 4 KiB-aligned pages, as before */
		phys = pmm_alloc(held, (int)ctx->topo->cpu[0].node, FT_PAGE, 0, PMM_WORKLOAD);
	uint8_t *pages = (uint8_t *)(uintptr_t)phys;
	for (unsigned w = 0; w < ARRAY_SIZE(ways); w++) {
		if (w == 2 && !ft_has_clzero(ctx)) {
			ft_skip(ways[w].variant, amd ? "CPUID Fn8000_0008 EBX[0] (CLZERO) is clear" : "CLZERO is an AMD instruction");
			continue;
		}
		/* Every planned way takes its own item, with pages or without: the
		 * steps after these must not take the zeroing items' entries. */
		const char *skip;
		const struct plan_item *it = ft_take(ctx, cursor, &skip);
		if (!skip && !phys)
			skip = "no memory for the pages";
		if (skip) {
			ft_skip(ways[w].variant, skip);
			continue;
		}
		uint64_t pages_now = MIN(n, it->units);
		memset(pages, FILL_BYTE, pages_now * FT_PAGE);
		run_evict_lines(pages, pages_now * FT_PAGE); /* its own data in memory, whatever the flush does */
		run_flush(ft_bsp(ctx));
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
		bool ok = ft_first_nonzero((const volatile uint64_t *)pages, pages_now * FT_PAGE / sizeof(uint64_t),
					   UINT64_MAX) == pages_now * FT_PAGE / sizeof(uint64_t);
		ft_report_pages(ctx, ways[w].variant, FT_KIND_ZERO, samples, pages_now, FT_PAGE, 0, ok,
				"a page was not zeroed", &span);
	}
	if (phys)
		pmm_free(phys, held, PMM_WORKLOAD);
}
