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
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
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
static uint8_t *zero_pages;              /* the zeroing kind's pages (ft_zero_setup), zero_held 4 KiB pages */
static uint64_t zero_held;

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
double ft_report_pages(struct wl_item *c, const char *variant, enum ft_measure kind, const uint64_t *per,
		       uint64_t n, uint64_t page, const struct demand_region *r, bool ok, const char *fail,
		       const struct instr_thread *span)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	bool faults = kind == FT_M_FAULT || kind == FT_M_TRAP;
	bool bytes = faults || kind == FT_M_ZERO || kind == FT_M_TLB;
	struct stats st;
	n = MIN(n, (uint64_t)FT_MAX_SAMPLES);
	stats_compute(per, n, scratch, &st);
	/* Who served a region's 2 MiB pages defines what its figure is of. */
	struct rec *rec = ft_params_open(c, variant, ft_bsp(ctx), faults ? n * page : 0);
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
	wl_result_close(c, rec, ok ? WL_OK : WL_ERR_FAIL, fail);
	kprintf("  %-22s %s%s\n", variant, text, ok ? "" : "  CHECK FAILED");
	return first;
}

const char *const ft_fault_names[FT_FAULTS] = { "page-fault-entry", "demand-zero-4k", "demand-zero-2m" };

double ft_fault_run(struct wl_item *c)
{
	static const struct { uint64_t page; enum demand_zeroing z; enum ft_measure kind; } steps[FT_FAULTS] = {
		[FT_FAULT_ENTRY] = { DEMAND_PAGE_4K, DEMAND_PREZEROED, FT_M_TRAP },
		[FT_FAULT_4K] = { DEMAND_PAGE_4K, DEMAND_ZERO_STOSB, FT_M_FAULT },
		[FT_FAULT_2M] = { DEMAND_PAGE_2M, DEMAND_ZERO_STOSB, FT_M_FAULT },
	};
	const struct wl_ctx *ctx = wl_ctx(c);
	unsigned k = WL_OWN_CONST(wl_cfg(c), struct ft_cfg)->which;
	const char *variant = ft_fault_names[k];
	uint64_t pages = wl_units(c);
	const char *why = 0, *fail = 0;
	struct demand_region *r = demand_create(pages * steps[k].page, steps[k].page, DEMAND_FIRST_TOUCH, steps[k].z, 0,
						&why);
	if (!r) {
		wl_result_skip(c, variant, why);
		return -1;
	}
	run_flush(ft_bsp(ctx));
	struct instr_mark mark;
	struct instr_thread span;
	instr_begin(&mark);
	bool ok = touch_pages(r, steps[k].page, pages, &fail);
	instr_end(&mark, &span);
	/* Our handler maps the whole page or the check fails; an OS may fall
	 * back to 4 KiB pages, whose faults are left out of the 2 MiB figure. */
	uint64_t kept = pages;
	small_faults = 0;
	if (whole_count == DEMAND_WHOLE_UNKNOWN) {
		wl_result_skip(c, variant, whole_how); /* neither a 2 MiB figure nor a count of 4 KiB faults */
		demand_destroy(r);
		return -1;
	}
	if (whole_count < pages && (ctx->has_fault_internals || steps[k].page == FT_PAGE)) {
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
		wl_result_skip(c, variant, short_why);
		demand_destroy(r);
		return -1;
	} else if (small_faults) {
		kprintf("  %-22s (%llu of %llu first writes mapped less than 2 MiB: left out; %s)\n",
			variant, (unsigned long long)small_faults, (unsigned long long)pages, whole_how);
	}
	double v = ft_report_pages(c, variant, steps[k].kind, samples, kept, steps[k].page, r, ok, fail, &span);
	demand_destroy(r);
	return v;
}

const char *const ft_zero_names[FT_ZEROS] = { "zero-rep-stosb", "zero-nt", "zero-clzero" };

bool ft_zero_setup(const struct wl_ctx *ctx, uint64_t pages, const char **why)
{
	/* In whole 2 MiB pages on both platforms: the kernel maps RAM so, and the
	 * twin asks Linux for transparent huge pages there; a 4 KiB mapping would
	 * add a TLB miss to every page zeroed. */
	zero_held = ALIGN_UP(pages * FT_PAGE, DEMAND_PAGE_2M) / FT_PAGE;
	uint64_t phys = ctx->fail & OPT_FAIL_ZEROING ? 0 /* fail=zeroing (debug): as if memory were short */
		      : pmm_alloc(zero_held, (int)ctx->topo->cpu[0].node, DEMAND_PAGE_2M, 0, PMM_WORKLOAD);
	if (!phys && !(ctx->fail & OPT_FAIL_ZEROING)) /* no whole 2 MiB page free there: 4 KiB-aligned pages, as before */
		phys = pmm_alloc(zero_held, (int)ctx->topo->cpu[0].node, FT_PAGE, 0, PMM_WORKLOAD);
	zero_pages = (uint8_t *)(uintptr_t)phys;
	*why = "no memory for the pages";
	return phys != 0;
}

void ft_zero_teardown(const struct wl_ctx *ctx)
{
	(void)ctx;
	pmm_free((uint64_t)(uintptr_t)zero_pages, zero_held, PMM_WORKLOAD);
	zero_pages = 0;
}

void ft_zero_run(struct wl_item *c)
{
	static void (*const ways[FT_ZEROS])(void *, uint64_t) = { zero_rep_stosb, zero_nt, zero_clzero };
	const struct wl_ctx *ctx = wl_ctx(c);
	unsigned w = WL_OWN_CONST(wl_cfg(c), struct ft_cfg)->which;
	uint64_t pages_now = MIN(zero_held, wl_units(c));
	uint8_t *pages = zero_pages;
	memset(pages, FILL_BYTE, pages_now * FT_PAGE);
	run_evict_lines(pages, pages_now * FT_PAGE); /* its own data in memory, whatever the flush does */
	run_flush(ft_bsp(ctx));
	struct instr_mark mark;
	struct instr_thread span;
	instr_begin(&mark);
	for (uint64_t i = 0; i < pages_now; i++) {
		uint64_t t0 = tsc_start();
		ways[w](pages + i * FT_PAGE, FT_PAGE);
		uint64_t t1 = tsc_end();
		samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
	}
	instr_end(&mark, &span);
	bool ok = ft_first_nonzero((const volatile uint64_t *)pages, pages_now * FT_PAGE / sizeof(uint64_t),
				   UINT64_MAX) == pages_now * FT_PAGE / sizeof(uint64_t);
	ft_report_pages(c, ft_zero_names[w], FT_M_ZERO, samples, pages_now, FT_PAGE, 0, ok, "a page was not zeroed",
			&span);
}
