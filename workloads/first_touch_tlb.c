/* first_touch_tlb.c - first-touch's TLB steps: the first access to a mapped, never-touched page (a TLB miss and a page walk, the data cold or already cached) against a hot access; see first_touch.h. */
#include "first_touch.h"
#include "demand.h"
#include "lib.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define HOT_ACCESSES 256

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t samples[FT_MAX_SAMPLES > HOT_ACCESSES ? FT_MAX_SAMPLES : HOT_ACCESSES];

/* ---- Public Functions ----------------------------------------------------- */
/* First access to a mapped, never-touched page (TLB miss and page walk; data
 * cold or already in cache) against an access to a hot page. */
void ft_tlb_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	const struct cpuset *bsp = ft_bsp(ctx);
	uint64_t n = wl_units(c);
	const char *why = 0;
	struct demand_region *r = demand_create(n * FT_PAGE, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	if (!r || !demand_populate(r, (int)ctx->topo->cpu[0].node)) {
		demand_destroy(r);
		wl_result_skip(c, "tlb-miss", why ? why : "out of memory");
		wl_result_skip(c, "tlb-miss-cached", why ? why : "out of memory");
		wl_result_skip(c, "hot-access", why ? why : "out of memory");
		return;
	}
	volatile uint8_t *base = demand_base(r);
	struct instr_mark mark;
	struct instr_thread span;
	for (int cached = 0; cached < 2; cached++) {
		uint64_t sink = 0;
		/* Its own data in memory, whatever the flush does: CLFLUSH of each
		 * page through the identity map (through the region's mapping it would
		 * load the TLB entries this step times missing), then the TLBs, then
		 * the run's flush. */
		for (uint64_t i = 0; i < n; i++) {
			uint64_t pa = demand_phys_of(r, i * FT_PAGE);
			if (pa)
				run_evict_lines((const volatile void *)(uintptr_t)pa, FT_PAGE);
		}
		demand_hw_flush_all_tlbs();
		run_flush(bsp);
		instr_begin(&mark);
		for (uint64_t i = 0; i < n; i++) {
			volatile uint64_t *w = (volatile uint64_t *)(base + i * FT_PAGE);
			if (cached) {
				/* Bring the line in through another mapping, so only the walk misses. */
				uint64_t off = i * FT_PAGE;
				sink |= *(volatile uint64_t *)(uintptr_t)demand_phys_of(r, off);
			}
			uint64_t t0 = tsc_start();
			sink |= *w;
			uint64_t t1 = tsc_end();
			samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
		}
		instr_end(&mark, &span);
		bool faulted = demand_faults(r) != 0;
		ft_report_pages(c, cached ? "tlb-miss-cached" : "tlb-miss", FT_M_TLB, samples, n, FT_PAGE, 0,
				!faulted && sink == 0,
				faulted ? "the populated region took page faults" : "a populated page did not read as zero",
				&span);
	}
	/* The hot access: a word that holds its own address, read FT_HOT_CHAIN
	 * times in a chain (each read's address is the last read's value), so one
	 * sample is the latency of that many hot loads and well above the timer's
	 * resolution. The check: every chain ends at the word, without a fault. */
	volatile uint64_t *hot = (volatile uint64_t *)base;
	*hot = (uint64_t)(uintptr_t)hot;
	bool hot_ok = true;
	instr_begin(&mark);
	for (uint64_t i = 0; i < HOT_ACCESSES; i++) {
		uintptr_t p = (uintptr_t)hot;
		uint64_t t0 = tsc_start();
		for (unsigned k = 0; k < FT_HOT_CHAIN; k++)
			p = (uintptr_t)*(volatile uint64_t *)p;
		uint64_t t1 = tsc_end();
		samples[i] = t1 - t0 > tsc_overhead() ? t1 - t0 - tsc_overhead() : 0;
		hot_ok &= p == (uintptr_t)hot;
	}
	instr_end(&mark, &span);
	bool faulted = demand_faults(r) != 0;
	ft_report_pages(c, "hot-access", FT_M_ACCESS, samples, HOT_ACCESSES, FT_PAGE, 0, hot_ok && !faulted,
			faulted ? "the hot page took a page fault" : "a chain of hot reads did not end at the word", &span);
	demand_destroy(r);
}
