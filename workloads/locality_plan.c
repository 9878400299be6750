/* locality_plan.c - the locality workload's sizes and plan: every size x start x thread count x placement x variant x accumulator a configuration, each pass timed once (kernel/bench/workload.h).
 *
 * Sizes, each chosen for a role: the seed's 64 Ki ints (for the L2), half
 * the smallest L3 (the LLC) and the seed's 512 Mi ints, capped by free
 * memory, at least 4x the largest L3 (DRAM). A size is named by its role
 * only when it is that on this machine (workloads/sizes.h): "l2", "llc",
 * "dram"; otherwise by its bytes ("512kib"), so that runs pair on what they
 * measured. The two cache sizes run from both starts (cold and resident,
 * locality.h; the quick profile's resident start at one thread only), DRAM
 * from a cold one. Each configuration's pass is timed at
 * calibration from its own start (a cold one with its flush); a DRAM pass on
 * a prefix still well past the L3, scaled up and corrected by one whole pass
 * at one and at all threads. On several NUMA nodes each configuration's
 * array is placed for its threads (locality_mem.c): calibration times the
 * passes over the placement the run will use, the blocked variants get a
 * thread-local configuration beside the default interleave, and each
 * configuration that will place its array anew carries what placing takes
 * (once_s). */
#include "locality.h"
#include "console.h"
#include "demand.h"
#include "fmt.h"
#include "lib.h"
#include "locality_loops.h"
#include "placement.h"
#include "pmm.h"
#include "reps.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define SMALL_INTS (64ull * 1024)             /* the seed's second program: 256 KiB */
#define DRAM_INTS (512ull * 1024 * 1024)      /* the seed's first program: 2 GiB */
#define QUICK_LLC_MAX (512ull << 10)          /* quick profile: bytes, so TCG stays fast */
#define QUICK_DRAM_BYTES (2ull << 20)
#define QUICK_DRAM_PLACED_BYTES (4ull << 20)  /* several nodes: two 2 MiB pages, the least an interleave shows */
#define DRAM_MIN_L3_MULTIPLE 4
#define FREE_FRACTION_DIV 2                   /* use at most half of the free memory */
#define FALLBACK_LLC_BYTES (8ull << 20)       /* when no cache records exist */
#define MAX_COUNTS 16
#define PAGE 4096ull
#define LARGE_ALIGN (2ull << 20)
#define DRAM_FULL_RATIO_MAX 4.0               /* a whole pass's cost per byte against the prefix's, at most */
#define CALIB_DRAM_DIVISOR 16                 /* calibrate DRAM passes on a sixteenth of the array, twice ... */
#define CALIB_REPS 1                          /* passes timed after a first, untimed one */
#define REC_BYTES_PER_THREAD 12               /* a result's per-thread figures and CPU list */
#define SETUP_SAMPLE_BYTES (8ull << 20)       /* the fill timed at planning, then scaled to the array */

static const enum size_role size_want[LOC_N_SIZES] = { SIZE_ROLE_L2, SIZE_ROLE_LLC, SIZE_ROLE_DRAM };
/* Names until the sizes are decided, and for a size that is not measured. */
static const char *const size_default[LOC_N_SIZES] = { "l2", "llc", "dram" };

/* ---- Private Functions ---------------------------------------------------- */
/* Calibration: the slowest thread's time for one pass of the job as set up
 * (its sum is not checked): a first pass warms the caches, TLBs and an
 * emulator's translations, as a repetition's warm-up does, then CALIB_REPS
 * timed passes (fewer when one is long) and their mean. *fixed: what each
 * repetition takes besides the pass (preparing it, a cold start's flush, the
 * barrier, waking the CPUs), from the same repetitions' wall time. */
static double time_pass(const struct wl_ctx *ctx, double *fixed, double *spread)
{
	double sum = 0, wall = 0, lo = 0, hi = 0;
	unsigned got = 0;
	*fixed = *spread = 0;
	for (unsigned r = 0; r <= CALIB_REPS; r++) {
		uint64_t w0 = tsc_read();
		if (loc_pass(ctx, WL_CALIB_TIMEOUT_MS) != RUN_OK) {
			console_error("locality", "a calibration pass failed");
			return 0;
		}
		uint64_t slow = 0;
		for (uint32_t t = 0; t < loc_set.n; t++)
			slow = MAX(slow, loc_job.ticks[t]);
		if (r > 0) {
			double s = tsc_seconds(slow);
			lo = got ? MIN(lo, s) : s;
			hi = got ? MAX(hi, s) : s;
			sum += s;
			wall += tsc_seconds(tsc_read() - w0);
			got++;
			if (tsc_seconds(slow) >= WL_CALIB_TARGET_S)
				break; /* long enough to say what a pass costs */
		}
	}
	if (!got)
		return 0;
	*fixed = MAX(0.0, (wall - sum) / got);
	*spread = hi - lo;
	return sum / got;
}

/* The largest size a run may use: half the free memory (with several
 * nodes, a third of that for each slot of placed arrays, and no more than
 * half the first CPU's node holds). */
static uint64_t dram_cap(const struct wl_ctx *ctx)
{
	uint64_t cap = pmm_free_bytes(PMM_ANY_NODE) / FREE_FRACTION_DIV;
	if (loc_mem_placed(ctx))
		cap = MIN(cap / LOC_N_MEMS, pmm_free_bytes((int)ctx->topo->cpu[0].node) / FREE_FRACTION_DIV);
	return cap;
}

bool loc_decide_sizes(const struct wl_ctx *ctx, uint64_t *phys_out)
{
	const struct topo *tp = ctx->topo;
	struct loc_sizes *s = &loc_sizes;
	bool placed = loc_mem_placed(ctx);
	uint64_t l3_small = size_level_bytes(tp, 3, false), l3_big = size_level_bytes(tp, 3, true);
	uint64_t llc_bytes = l3_small ? l3_small / 2 : FALLBACK_LLC_BYTES / 2;
	uint64_t dram_min = DRAM_MIN_L3_MULTIPLE * (l3_big ? l3_big : FALLBACK_LLC_BYTES);
	uint64_t dram_bytes = DRAM_INTS * sizeof(uint32_t);
	if (ctx->quick) {
		llc_bytes = MIN(llc_bytes, QUICK_LLC_MAX);
		dram_bytes = dram_min = placed ? QUICK_DRAM_PLACED_BYTES : QUICK_DRAM_BYTES;
	}
	dram_bytes = ALIGN_DOWN(MIN(dram_bytes, dram_cap(ctx)), LARGE_ALIGN);

	/* One array; the smaller sizes are its prefixes. */
	memset(s, 0, sizeof(*s));
	s->bytes[LOC_L2] = SMALL_INTS * sizeof(uint32_t);
	s->bytes[LOC_LLC] = ALIGN_UP(llc_bytes, PAGE);
	s->dram_min = dram_min;
	uint64_t small_need = MAX(s->bytes[LOC_L2], s->bytes[LOC_LLC]);
	int node = (int)tp->cpu[0].node;
	uint64_t phys = 0, want = dram_bytes;
	uint64_t t0 = tsc_read();
	while (!placed && want >= dram_min && want >= small_need) {
		t0 = tsc_read();
		phys = loc_alloc_array(want, node);
		if (phys)
			break;
		want = ALIGN_DOWN(want / 2, LARGE_ALIGN); /* fragmented: try half */
	}
	s->have_dram = placed ? want >= dram_min && want >= small_need : phys != 0;
	if (s->have_dram) {
		s->bytes[LOC_DRAM] = want;
	} else {
		want = small_need;
		t0 = tsc_read();
		phys = placed ? 0 : loc_alloc_array(want, node);
	}
	s->alloc_s = tsc_seconds(tsc_read() - t0);
	s->alloc = phys || placed ? want : 0;
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++) {
		if (sz == LOC_DRAM && !s->have_dram)
			fmt_snprintf(s->name[sz], SIZE_NAME_LEN, "%s", size_default[sz]);
		else
			s->role[sz] = size_name(tp, s->bytes[sz], size_want[sz], s->name[sz], SIZE_NAME_LEN);
	}
	*phys_out = phys;
	return s->alloc != 0;
}

/* "llc resident P=16 blocked-strided shared-slot compact=scatter" (with
 * "thread-local" before the placement for that memory placement): what
 * tells configurations apart first, since PLAN_NAME_LEN may cut the end. */
static void describe(char *buf, size_t cap, const struct loc_cfg *f)
{
	fmt_snprintf(buf, cap, "%s %s P=%u %s %s %s%s", f->size_name, loc_start_names[f->start], f->threads,
		     loc_variant_names[f->variant], loc_acc_names[f->acc], f->thread_local ? "thread-local " : "",
		     f->same ? "compact=scatter" : place_name((enum place_how)f->placement));
}

/* Several nodes: place the array for loc_set's threads as the run will
 * (bytes of it), keeping the dearest placement's rate for the plan. */
static double place_rate;                     /* seconds per byte placing an array took at planning */
static uint64_t place_rate_bytes;             /* of the largest placement timed */

static void place_for_calibration(const struct wl_ctx *ctx, bool thread_local, uint64_t bytes)
{
	uint64_t nodes;
	double took;
	const char *why = 0;
	enum loc_mem kind = loc_mem_of(ctx, &loc_set, thread_local, &nodes);
	if (!loc_mem_place(kind, nodes, bytes, WL_CALIB_TIMEOUT_MS, &took, &why)) {
		console_error("locality", "calibration: cannot place the array %s: %s", loc_mem_text(kind, nodes), why);
		return;
	}
	if (took > 0 && bytes >= place_rate_bytes) {
		place_rate = took / (double)bytes;
		place_rate_bytes = bytes;
	}
}

/* The run's set-up: allocating the array again (as timed at planning),
 * filling it and adding up each size's total, timed on a prefix of it and
 * scaled (seconds). */
static double setup_cost(uint64_t phys)
{
	uint64_t bytes = MIN(loc_sizes.alloc, (uint64_t)SETUP_SAMPLE_BYTES), n = bytes / sizeof(uint32_t);
	if (!n)
		return 0;
	uint32_t *a = (uint32_t *)(uintptr_t)phys;
	uint64_t t0 = tsc_read();
	loc_fill(a, n);
	uint64_t t1 = tsc_read();
	volatile uint64_t sink = loc_total(a, n);
	(void)sink;
	uint64_t t2 = tsc_read();
	uint64_t summed = 0;
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
		summed += sz == LOC_DRAM && !loc_sizes.have_dram ? 0 : loc_sizes.bytes[sz];
	return loc_sizes.alloc_s + tsc_seconds(t1 - t0) * (double)loc_sizes.alloc / (double)bytes +
	       tsc_seconds(t2 - t1) * (double)summed / (double)bytes;
}

/* A pass over the prefix does not cost a pass over the whole array, scaled
 * by bytes: past the caches, page walks and (under an emulator) its own TLB
 * grow with the array, and one thread meets that differently from many. One
 * pass of the whole array against one of the prefix, on `threads` CPUs placed
 * compact from the size's start, corrects the size's configurations of that
 * many threads (one thread: those of one; more: those of more) by their
 * ratio, within [1/DRAM_FULL_RATIO_MAX, DRAM_FULL_RATIO_MAX]. */
static void scale_to_full(const struct wl_ctx *ctx, struct wl_plan *p, unsigned sz, enum loc_start st, uint64_t calib,
			  uint64_t bytes, uint32_t threads)
{
	if (!place_set(ctx->topo, ctx->cpu_of_topo, PLACE_COMPACT, threads, &loc_set))
		return;
	loc_job.variant = LOC_BLOCKED;
	loc_job.acc = LOC_PRIVATE;
	loc_job.start = st;
	double fixed, spread;
	loc_job.n = calib / sizeof(uint32_t);
	if (loc_mem_placed(ctx))
		place_for_calibration(ctx, false, calib);
	double part = time_pass(ctx, &fixed, &spread);
	loc_job.n = bytes / sizeof(uint32_t);
	if (loc_mem_placed(ctx))
		place_for_calibration(ctx, false, bytes);
	double whole = time_pass(ctx, &fixed, &spread);
	if (part <= 0 || whole <= 0)
		return;
	double ratio = whole / (part * (double)bytes / (double)calib);
	if (ratio > DRAM_FULL_RATIO_MAX || ratio < 1 / DRAM_FULL_RATIO_MAX)
		return; /* something else happened: keep the prefix's estimate */
	uint32_t n;
	struct plan_item *it = wl_planned(p, &n);
	for (uint32_t k = 0; k < n; k++) {
		const struct loc_cfg *f = WL_OWN_CONST(wl_planned_cfg(p, k), struct loc_cfg);
		if (f->size == sz && f->start == st && (threads > 1) == (f->threads > 1)) {
			it[k].unit_s *= ratio;
			it[k].unit_spread_s *= ratio;
		}
	}
}

/* A configuration's own description. */
static struct loc_cfg cfg_of(unsigned sz, enum loc_start st, uint32_t threads, unsigned pl, bool same, bool tl,
			     unsigned v, unsigned ac)
{
	struct loc_cfg f = { (uint8_t)sz, (uint8_t)st, (uint8_t)v, (uint8_t)ac, (uint8_t)pl, (uint8_t)loc_sizes.role[sz],
			     same, tl, false, threads, loc_sizes.bytes[sz], "" };
	fmt_snprintf(f.size_name, sizeof(f.size_name), "%s", loc_sizes.name[sz]);
	return f;
}

/* One configuration in the plan, its pass timed from its own start. */
static void add_config(const struct wl_ctx *ctx, struct wl_plan *p, unsigned sz, enum loc_start st, uint32_t threads,
		       unsigned pl, bool same, bool tl, unsigned v, unsigned ac, uint64_t calib)
{
	struct wl_cfg cfg = { .variant = loc_variant_names[v] };
	struct loc_cfg *f = WL_OWN(&cfg, struct loc_cfg);
	*f = cfg_of(sz, st, threads, pl, same, tl, v, ac);
	describe(cfg.name, sizeof(cfg.name), f);
	uint64_t bytes = loc_sizes.bytes[sz];
	struct wl_cost cost = {
		.group = (uint8_t)sz,
		/* The least form of a size: the seed's foo and bar (shared-slot) at
		 * every CPU, placed compact, from the run's first start (cold unless
		 * flush=none). */
		.essential = threads == ctx->topo->ncpu && pl == PLACE_COMPACT && !tl && ac == LOC_SHARED_SLOT &&
			     v != LOC_BLOCKED && st == (ctx->flush ? LOC_COLD : LOC_RESIDENT),
		.want_units = 1, .min_units = 1,
		.want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX),
		.out_bytes = REC_BYTES_PER_THREAD * threads,
	};
	loc_job.variant = (enum loc_variant)v;
	loc_job.acc = (enum loc_acc)ac;
	loc_job.start = st;
	loc_job.n = calib / sizeof(uint32_t);
	if (loc_mem_placed(ctx))
		place_for_calibration(ctx, tl, calib);
	double fixed, spread;
	cost.unit_s = time_pass(ctx, &fixed, &spread) * (double)bytes / (double)calib;
	cost.unit_spread_s = spread * (double)bytes / (double)calib;
	cost.rep_fixed_s = fixed;
	wl_add(p, LOC_PASS, &cfg, &cost);
}

/* A size and start that is not measured at all: absent, one result per variant. */
static void absent_size(struct wl_plan *p, unsigned sz, enum loc_start st, const char *why)
{
	for (unsigned v = 0; v < LOC_N_VARIANTS; v++) {
		struct wl_cfg cfg = { .variant = loc_variant_names[v] };
		struct loc_cfg *f = WL_OWN(&cfg, struct loc_cfg);
		*f = cfg_of(sz, st, 0, 0, false, false, v, 0);
		f->whole_size = true;
		fmt_snprintf(cfg.name, sizeof(cfg.name), "%s %s %s", f->size_name, loc_start_names[st], loc_variant_names[v]);
		wl_absent(p, LOC_PASS, &cfg, why);
	}
}

/* ---- Public Functions ----------------------------------------------------- */
bool loc_start_planned(const struct wl_ctx *ctx, enum loc_size sz, enum loc_start st)
{
	if (!ctx->flush)
		return st == LOC_RESIDENT;
	return st == LOC_COLD || sz != LOC_DRAM;
}

uint64_t loc_alloc_array(uint64_t bytes, int node)
{
	uint64_t large = ALIGN_UP(bytes, LARGE_ALIGN) / PAGE;
	uint64_t p = pmm_alloc(large, node, LARGE_ALIGN, 0, PMM_WORKLOAD);
	if (!p)
		p = pmm_alloc(large, PMM_ANY_NODE, LARGE_ALIGN, 0, PMM_WORKLOAD);
	loc_sizes.held = large;
	if (!p) {
		loc_sizes.held = ALIGN_UP(bytes, PAGE) / PAGE;
		p = pmm_alloc(loc_sizes.held, PMM_ANY_NODE, PAGE, 0, PMM_WORKLOAD);
	}
	return p;
}

/* Whether the blocked variants get a thread-local configuration for
 * loc_set's threads at this size: on several nodes, where the threads span
 * more than one and the array has a 2 MiB page for each of their nodes
 * (fewer, and the blocks of all share the first page: thread 0's node);
 * the quick profile at every CPU only (boot tests run it often). */
static bool thread_local_planned(const struct wl_ctx *ctx, uint32_t threads, uint64_t bytes)
{
	uint64_t nodes;
	if (!loc_mem_placed(ctx) || (ctx->quick && threads != ctx->topo->ncpu))
		return false;
	return loc_mem_of(ctx, &loc_set, true, &nodes) == LOC_MEM_THREAD_LOCAL &&
	       ALIGN_UP(bytes, LARGE_ALIGN) / LARGE_ALIGN >= (uint64_t)demand_node_count(nodes);
}

/* What placing arrays will cost the run: walking the plan in its order, as
 * loc_mem_place keeps or replaces each slot, a configuration that places
 * its array anew carries the bytes placed at the rate planning measured. */
static void price_placements(const struct wl_ctx *ctx, struct wl_plan *p)
{
	struct {
		bool used;
		uint64_t nodes, bytes, key;
	} slot[LOC_N_MEMS] = { { 0 } };
	uint32_t n;
	struct plan_item *items = wl_planned(p, &n);
	for (uint32_t i = 0; i < n; i++) {
		struct plan_item *it = &items[i];
		const struct loc_cfg *f = WL_OWN_CONST(wl_planned_cfg(p, i), struct loc_cfg);
		unsigned sz = f->size, pl = f->placement;
		if (!place_set(ctx->topo, ctx->cpu_of_topo, (enum place_how)pl, f->threads, &loc_set))
			continue;
		uint64_t nodes, bytes = f->bytes;
		enum loc_mem k = loc_mem_of(ctx, &loc_set, f->thread_local, &nodes);
		uint64_t key = k == LOC_MEM_THREAD_LOCAL ? (uint64_t)sz << 40 | (uint64_t)f->threads << 8 | pl : 0;
		if (slot[k].used && slot[k].nodes == nodes && slot[k].key == key &&
		    (k == LOC_MEM_THREAD_LOCAL ? slot[k].bytes == bytes : slot[k].bytes >= bytes))
			continue;
		it->once_s = place_rate * (double)bytes;
		slot[k].used = true;
		slot[k].nodes = nodes;
		slot[k].bytes = bytes;
		slot[k].key = key;
	}
}

/* Several nodes: the run's set-up is adding up each size's total from the
 * generator (loc_fill_total), timed on a sample and scaled (seconds). */
static double totals_cost(void)
{
	uint64_t n = SETUP_SAMPLE_BYTES / sizeof(uint32_t), summed = 0;
	uint64_t t0 = tsc_read();
	volatile uint64_t sink = loc_fill_total(n);
	(void)sink;
	double per = tsc_seconds(tsc_read() - t0) / (double)SETUP_SAMPLE_BYTES;
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
		summed += sz == LOC_DRAM && !loc_sizes.have_dram ? 0 : loc_sizes.bytes[sz];
	return per * (double)summed;
}

void locality_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	uint64_t phys;
	bool placed = loc_mem_placed(ctx);
	if (!loc_decide_sizes(ctx, &phys)) {
		console_error("locality", "no memory for even the %llu-byte array",
			      (unsigned long long)MAX(loc_sizes.bytes[LOC_L2], loc_sizes.bytes[LOC_LLC]));
		return;
	}
	uint32_t counts[MAX_COUNTS];
	uint32_t nc = place_thread_counts(ctx->topo->ncpu, counts, MAX_COUNTS);
	loc_job.a = (const uint32_t *)(uintptr_t)phys; /* unfilled: calibration only times the passes */
	place_rate = 0;
	place_rate_bytes = 0;
	wl_set_setup(p, placed ? totals_cost() : setup_cost(phys));
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++) {
		if (sz == LOC_DRAM && !loc_sizes.have_dram)
			continue;
		wl_group(p, (uint8_t)sz, loc_sizes.name[sz]);
		/* A DRAM pass is timed on a prefix still far past the L3, then scaled. */
		uint64_t bytes = loc_sizes.bytes[sz], calib = bytes;
		if (sz == LOC_DRAM)
			calib = MAX(loc_sizes.dram_min, ALIGN_DOWN(bytes / CALIB_DRAM_DIVISOR, PAGE));
		calib = MIN(calib, bytes);
		for (unsigned st = 0; st < LOC_N_STARTS; st++) {
			if (!loc_start_planned(ctx, (enum loc_size)sz, (enum loc_start)st))
				continue;
			for (uint32_t c = 0; c < nc; c++) {
				/* Quick: a resident start beside a cold one at one thread only:
				 * under an emulator a run on many CPUs costs far more than its
				 * pass, and boot tests run this often. The full profile has all. */
				if (ctx->quick && ctx->flush && st == LOC_RESIDENT && counts[c] != 1)
					continue;
				bool same = place_scatter_is_compact(ctx->topo, ctx->cpu_of_topo, counts[c]);
				for (unsigned pl = 0; pl < (same ? 1u : 2u); pl++) {
					if (!place_set(ctx->topo, ctx->cpu_of_topo, (enum place_how)pl, counts[c], &loc_set))
						continue;
					for (unsigned v = 0; v < LOC_N_VARIANTS; v++)
						for (unsigned ac = 0; ac < LOC_N_ACCS; ac++)
							add_config(ctx, p, sz, (enum loc_start)st, counts[c], pl, same, false, v, ac,
								   calib);
					if (!thread_local_planned(ctx, counts[c], bytes))
						continue;
					/* The blocked variants with each block on its thread's node
					 * (the quick profile: the sequential one only). */
					for (unsigned v = ctx->quick ? LOC_BLOCKED : LOC_BLOCKED_STRIDED; v <= LOC_BLOCKED; v++)
						for (unsigned ac = 0; ac < LOC_N_ACCS; ac++)
							add_config(ctx, p, sz, (enum loc_start)st, counts[c], pl, same, true, v, ac,
								   calib);
				}
			}
			if (calib < bytes) {
				scale_to_full(ctx, p, sz, (enum loc_start)st, calib, bytes, 1);
				if (ctx->topo->ncpu > 1)
					scale_to_full(ctx, p, sz, (enum loc_start)st, calib, bytes, ctx->topo->ncpu);
			}
		}
	}
	/* What is not measured at all, after the rest, as the run reports it:
	 * the cold starts under flush=none, DRAM without the memory for it. */
	if (!ctx->flush)
		for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
			if (sz != LOC_DRAM || loc_sizes.have_dram)
				absent_size(p, sz, LOC_COLD, "flush=none: a cold start needs the flush");
	if (!loc_sizes.have_dram) {
		char why[96];
		fmt_snprintf(why, sizeof(why), "not enough free memory for %llu MiB (4x the largest L3)",
			     (unsigned long long)(loc_sizes.dram_min >> 20));
		absent_size(p, LOC_DRAM, ctx->flush ? LOC_COLD : LOC_RESIDENT, why);
	}
	if (placed) {
		price_placements(ctx, p);
		loc_mem_end();
	} else {
		pmm_free(phys, loc_sizes.held, PMM_WORKLOAD);
	}
}
