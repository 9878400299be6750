/* locality.c - interleaved against blocked summing, after shared/seeds/002: why did foo beat bar?
 *
 * P threads sum one array of N 32-bit ints (values 0-99 from a fixed-seed
 * generator, the total known in advance) in three orders: `interleaved` (the
 * seed's foo), `blocked-strided` (the seed's bar) and `blocked` (the
 * sequential reference). Each runs with the seed's `shared-slot` accumulator
 * (every add goes through a pointer into s[P], whose slots share a line) and
 * with a `private` register accumulator. Reporting both separates the seed's
 * false sharing from the effect of the scan order on the shared L3. Sizes,
 * each chosen for a role: the seed's 64 Ki ints (for the L2), half the
 * smallest L3 (the LLC) and the seed's 512 Mi ints, capped by free memory, at
 * least 4x the largest L3 (DRAM). A size is named by its role only when it is
 * that on this machine (workloads/sizes.h): "l2", "llc", "dram"; otherwise by
 * its bytes ("512kib"), so that runs pair on what they measured.
 *
 * Every size x thread count x placement x variant x accumulator is a
 * configuration of the plan (workloads/sequence.h): one pass per repetition,
 * timed once each at calibration (a DRAM pass on a prefix still well past
 * the L3, scaled up and corrected by one whole pass at one and at all
 * threads). */
#include "workload.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "locality_loops.h"
#include "placement.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "sequence.h"
#include "sizes.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define SMALL_INTS (64ull * 1024)             /* the seed's second program: 256 KiB */
#define DRAM_INTS (512ull * 1024 * 1024)      /* the seed's first program: 2 GiB */
#define QUICK_LLC_MAX (512ull << 10)          /* quick profile: bytes, so TCG stays fast */
#define QUICK_DRAM_BYTES (2ull << 20)
#define DRAM_MIN_L3_MULTIPLE 4
#define FREE_FRACTION_DIV 2                   /* use at most half of the free memory */
#define FALLBACK_LLC_BYTES (8ull << 20)       /* when no cache records exist */
#define MAX_COUNTS 16
#define PAGE 4096ull
#define LARGE_ALIGN (2ull << 20)
#define DRAM_FULL_RATIO_MAX 4.0               /* a whole pass's cost per byte against the prefix's, at most */
#define CALIB_DRAM_DIVISOR 16                 /* calibrate DRAM passes on a sixteenth of the array, twice ... */
#define CALIB_REPS 1                          /* passes timed after a first, untimed one */
#define REC_BYTES 1300                        /* one result record and its text line */
#define REC_BYTES_PER_THREAD 12
#define SAME_PLACEMENTS 0x100u                /* a plan item's placement: scatter is the same CPUs */
#define SETUP_SAMPLE_BYTES (8ull << 20)       /* the fill timed at planning, then scaled to the array */

enum variant { INTERLEAVED, BLOCKED_STRIDED, BLOCKED, N_VARIANTS };
enum acc { SHARED_SLOT, PRIVATE, N_ACCS };
enum size_class { SMALL, LLC, DRAM, N_SIZES };

static const char *const variant_names[N_VARIANTS] = { "interleaved", "blocked-strided", "blocked" };
static const char *const acc_names[N_ACCS] = { "shared-slot", "private" };
static const enum size_role size_want[N_SIZES] = { SIZE_ROLE_L2, SIZE_ROLE_LLC, SIZE_ROLE_DRAM };
/* Names until the sizes are decided, and for a size that is not measured. */
static const char *const size_default[N_SIZES] = { "l2", "llc", "dram" };

/* ---- Types ---------------------------------------------------------------- */
struct loc_job {
	const uint32_t *a;
	uint64_t n;
	enum variant variant;
	enum acc acc;
	volatile uint64_t *slots;                 /* s[P]: packed, as the seed's int s[NUM_THREADS] */
	uint64_t priv[QB_MAX_CPUS][8];            /* private totals, one line each */
	uint64_t ticks[QB_MAX_CPUS];
};

/* ---- Private Variables ---------------------------------------------------- */
static struct loc_job job;
static uint64_t slot_line[QB_MAX_CPUS] __attribute__((aligned(64)));
static struct cpuset set;
static double summary[N_SIZES][N_VARIANTS][N_ACCS];   /* median ticks at all CPUs, compact */
static double last_median;                              /* of the last configuration reported */

/* The sizes, decided once at planning and kept for the run. */
static struct loc_sizes {
	uint64_t bytes[N_SIZES];
	char name[N_SIZES][SIZE_NAME_LEN];      /* the role's name where it holds, else the size */
	enum size_role role[N_SIZES];
	uint64_t dram_min;
	uint64_t alloc;                                 /* bytes allocated: the largest size */
	uint64_t held;                                  /* 4 KiB pages the last alloc_array took */
	double alloc_s;                                 /* what allocating it took (the twin touches every page) */
	bool have_dram;
} sizes;

/* ---- Private Functions ---------------------------------------------------- */
/* The "size" and, where it holds, "size_role" params of a size. */
static void size_params(struct rec *r, unsigned sz)
{
	rec_str(r, "size", sizes.name[sz][0] ? sizes.name[sz] : size_default[sz]);
	if (size_role_name(sizes.role[sz]))
		rec_str(r, "size_role", size_role_name(sizes.role[sz]));
}

static void loc_thread(const struct run_thread *t)
{
	struct loc_job *j = t->arg;
	uint32_t p = t->n, i = t->index;
	uint64_t s = tsc_start(), sum = 0;
	switch (j->acc == PRIVATE ? j->variant : j->variant + N_VARIANTS) {
	case INTERLEAVED: sum = loc_interleaved_private(j->a, j->n, p, i); break;
	case BLOCKED_STRIDED: sum = loc_blocked_strided_private(j->a, j->n, p, i); break;
	case BLOCKED: sum = loc_blocked_private(j->a, j->n, p, i); break;
	case N_VARIANTS + INTERLEAVED: loc_interleaved_shared(j->a, j->n, p, i, &j->slots[i]); break;
	case N_VARIANTS + BLOCKED_STRIDED: loc_blocked_strided_shared(j->a, j->n, p, i, &j->slots[i]); break;
	case N_VARIANTS + BLOCKED: loc_blocked_shared(j->a, j->n, p, i, &j->slots[i]); break;
	}
	uint64_t e = tsc_end();
	j->priv[i][0] = sum;
	j->ticks[i] = e - s;
	if (run_overdue(t)) /* a pass cannot stop halfway; one past the bound is an overrun */
		run_overran(t);
}

/* Workload memory on node if it has room, in whole 2 MiB pages on both
 * platforms where there are some (the kernel maps RAM so; the twin then gets
 * transparent huge pages), else 4 KiB pages; sizes.held counts 4 KiB pages. */
static uint64_t alloc_array(uint64_t bytes, int node)
{
	uint64_t large = ALIGN_UP(bytes, LARGE_ALIGN) / PAGE;
	uint64_t p = pmm_alloc(large, node, LARGE_ALIGN, 0, PMM_WORKLOAD);
	if (!p)
		p = pmm_alloc(large, PMM_ANY_NODE, LARGE_ALIGN, 0, PMM_WORKLOAD);
	sizes.held = large;
	if (!p) {
		sizes.held = ALIGN_UP(bytes, PAGE) / PAGE;
		p = pmm_alloc(sizes.held, PMM_ANY_NODE, PAGE, 0, PMM_WORKLOAD);
	}
	return p;
}

/* Before a repetition, as measure does: the slots zeroed and, with
 * flush=, they and a cache-sized array evicted to memory. */
static void prepare_rep(const struct wl_ctx *ctx)
{
	memset(slot_line, 0, sizeof(slot_line));
	if (ctx->flush) { /* the slots and a cache-sized array start in memory on both platforms */
		run_evict_lines(slot_line, sizeof(slot_line));
		if (job.n * sizeof(uint32_t) <= sizes.bytes[LLC])
			run_evict_lines(job.a, job.n * sizeof(uint32_t));
	}
}

/* Warm-up, then reps timed repetitions while the deadline allows; false
 * with a reason on any failure. */
static bool measure(const struct wl_ctx *ctx, const struct plan_item *it, uint64_t expect, const char **why,
		    struct reps **out)
{
	uint32_t n = set.n;
	struct reps *log = reps_begin(n);
	*out = log;
	for (uint32_t r = 0; r <= it->reps && seq_rep_fits(); r++) {
		uint64_t timeout_ms = seq_timeout_ms(it);
		prepare_rep(ctx);
		enum run_status st = run_on(&set, loc_thread, &job, ctx->flush ? RUN_FLUSH : 0, timeout_ms, 0);
		seq_tick();
		if (st != RUN_OK) {
			*why = st == RUN_OVERRUN ? "overrun: a pass passed the bound" : run_status_name(st);
			return false;
		}
		uint64_t sum = 0;
		for (uint32_t t = 0; t < n; t++)
			sum += job.acc == PRIVATE ? job.priv[t][0] : job.slots[t];
		if (sum != expect) {
			*why = "the thread totals do not add up to the array's total";
			return false;
		}
		if (r > 0) /* the first is an untimed warm-up */
			reps_add(log, job.ticks, run_last()->instr);
	}
	return true;
}

/* The measures of a locality result: ns per element of the array and the
 * bytes summed per second, the figure's slowest thread timing the pass. */
static void loc_measures(struct report_measure m[2], uint32_t threads)
{
	uint64_t bytes = job.n * sizeof(uint32_t);
	m[0] = (struct report_measure){ "ns_per_element", "ns/element", report_ns_scale((double)job.n), false,
					LIMIT_NONE, 1 };
	m[1] = (struct report_measure){ "gb_per_s", "GB/s", report_gbps_scale((double)bytes), true, LIMIT_READ_GBPS,
					threads };
}

static void report(const struct wl_ctx *ctx, const struct plan_item *it, enum size_class sz,
		   const char *placement, bool same, bool ok, const char *why, struct reps *log)
{
	struct stats st = *reps_figure(log);
	last_median = st.n ? st.median : -1;
	uint64_t bytes = job.n * sizeof(uint32_t);
	struct rec *r = report_result_open("locality", variant_names[job.variant], &set);
	rec_obj_begin(r, "params");
	rec_str(r, "accumulator", acc_names[job.acc]);
	size_params(r, sz);
	rec_u64(r, "ints", job.n);
	rec_u64(r, "bytes", bytes);
	rec_str(r, "placement", placement);
	flushcheck_params(r, ctx->flush, 0);
	rec_obj_end(r);
	if (same) {
		rec_arr_begin(r, "same_placements");
		rec_str(r, 0, place_name(PLACE_COMPACT));
		rec_str(r, 0, place_name(PLACE_SCATTER));
		rec_arr_end(r);
	}
	reps_report(r, log);
	struct report_measure m[2];
	loc_measures(m, set.n);
	report_measures(r, m, 2);
	if (st.n && st.median > 0)
		rec_f64(r, "bytes_per_tick", (double)bytes / st.median, 4);
	else
		rec_null(r, "bytes_per_tick");
	rec_arr_begin(r, "thread_ticks");
	double slowest = 0;
	uint32_t slowest_t = 0;
	for (uint32_t t = 0; t < set.n; t++) {
		double med = reps_thread_median(log, t);
		rec_f64(r, 0, med, 1);
		if (med > slowest) {
			slowest = med;
			slowest_t = t;
		}
	}
	rec_arr_end(r);
	rec_f64(r, "slowest_ticks", slowest, 1);
	rec_u64(r, "slowest_thread", slowest_t);
	seq_item_report(r, it);
	bool overrun = !ok && why && !strncmp(why, "overrun", 7);
	report_result_close(r, ok ? "ok" : overrun ? "overrun" : "fail", ok ? 0 : why);
	double ns = st.n ? report_measure_value(&m[0], st.median) : -1, gbs = st.n ? report_measure_value(&m[1], st.median) : -1;
	kprintf("  %-7s %10llu %3u %-15s %-16s %-12s %10.3f %8.2f%s%s\n", sizes.name[sz], (unsigned long long)bytes,
		set.n, same ? "compact=scatter" : placement, variant_names[job.variant], acc_names[job.acc], ns, gbs,
		log->noisy ? "  noisy" : "", ok ? "" : "  CHECK FAILED");
}

static void skip_size(enum size_class sz, const char *why)
{
	for (unsigned v = 0; v < N_VARIANTS; v++) {
		struct rec *r = report_result_open("locality", variant_names[v], 0);
		rec_obj_begin(r, "params");
		size_params(r, sz);
		rec_obj_end(r);
		report_result_close(r, "skipped", why);
	}
	kprintf("  %-7s skipped: %s\n", sizes.name[sz], why);
}

/* The seed's comparison: foo and bar in seconds (ticks without a known TSC
 * frequency), extended by the blocked reference and the private accumulator. */
static void print_summary(uint32_t p, const uint64_t *bytes, bool have_dram)
{
	uint64_t hz = tsc_hz();
	kprintf("\n  the original comparison (foo interleaved, bar blocked), %u threads placed compact (%s; -1: failed):\n", p,
		hz ? "seconds" : "ticks");
	kprintf("  %-36s", "");
	for (unsigned sz = 0; sz < N_SIZES; sz++)
		if (sz != DRAM || have_dram)
			kprintf(" %6s %-10llu", sizes.name[sz], (unsigned long long)bytes[sz]);
	kprintf("\n");
	for (unsigned v = 0; v < N_VARIANTS; v++) {
		for (unsigned ac = 0; ac < N_ACCS; ac++) {
			char label[40];
			fmt_snprintf(label, sizeof(label), "%s%s, %s", variant_names[v],
				     v == INTERLEAVED ? " (foo)" : v == BLOCKED_STRIDED ? " (bar)" : "",
				     acc_names[ac]);
			kprintf("  %-36s", label);
			for (unsigned sz = 0; sz < N_SIZES; sz++) {
				if (sz == DRAM && !have_dram)
					continue;
				double t = summary[sz][v][ac];
				kprintf(" %17.6f", t < 0 ? -1.0 : hz ? t / (double)hz : t);
			}
			kprintf("\n");
		}
	}
}

/* Calibration: the slowest thread's time for one pass of the job as set up
 * (its sum is not checked): a first pass warms the caches, TLBs and an
 * emulator's translations, as a repetition's warm-up does, then CALIB_REPS
 * timed passes (fewer when one is long) and their mean. *fixed: what each
 * repetition takes besides the pass (preparing it, the flush, the barrier,
 * waking the CPUs), from the same repetitions' wall time. */
static double time_pass(const struct wl_ctx *ctx, double *fixed, double *spread)
{
	double sum = 0, wall = 0, lo = 0, hi = 0;
	unsigned got = 0;
	*fixed = *spread = 0;
	for (unsigned r = 0; r <= CALIB_REPS; r++) {
		uint64_t w0 = tsc_read();
		prepare_rep(ctx);
		if (run_on(&set, loc_thread, &job, ctx->flush ? RUN_FLUSH : 0, SEQ_CALIB_TIMEOUT_MS, 0) != RUN_OK) {
			console_error("locality", "a calibration pass failed");
			return 0;
		}
		uint64_t slow = 0;
		for (uint32_t t = 0; t < set.n; t++)
			slow = MAX(slow, job.ticks[t]);
		if (r > 0) {
			double s = seq_seconds(slow);
			lo = got ? MIN(lo, s) : s;
			hi = got ? MAX(hi, s) : s;
			sum += s;
			wall += seq_seconds(tsc_read() - w0);
			got++;
			if (seq_seconds(slow) >= SEQ_CALIB_TARGET_S)
				break; /* long enough to say what a pass costs */
		}
	}
	if (!got)
		return 0;
	*fixed = MAX(0.0, (wall - sum) / got);
	*spread = hi - lo;
	return sum / got;
}

/* Decide the sizes (once, at planning) and allocate the array; 0 without memory. */
static uint64_t decide_sizes(const struct wl_ctx *ctx)
{
	const struct topo *tp = ctx->topo;
	uint64_t l3_small = size_level_bytes(tp, 3, false), l3_big = size_level_bytes(tp, 3, true);
	uint64_t llc_bytes = l3_small ? l3_small / 2 : FALLBACK_LLC_BYTES / 2;
	uint64_t dram_min = DRAM_MIN_L3_MULTIPLE * (l3_big ? l3_big : FALLBACK_LLC_BYTES);
	uint64_t dram_bytes = DRAM_INTS * sizeof(uint32_t);
	uint64_t dram_cap = pmm_free_bytes(PMM_ANY_NODE) / FREE_FRACTION_DIV;
	if (ctx->quick) {
		llc_bytes = MIN(llc_bytes, QUICK_LLC_MAX);
		dram_bytes = QUICK_DRAM_BYTES;
		dram_min = QUICK_DRAM_BYTES;
	}
	dram_bytes = ALIGN_DOWN(MIN(dram_bytes, dram_cap), LARGE_ALIGN);

	/* One array, on CPU 0's node; the smaller sizes are its prefixes. */
	memset(&sizes, 0, sizeof(sizes));
	sizes.bytes[SMALL] = SMALL_INTS * sizeof(uint32_t);
	sizes.bytes[LLC] = ALIGN_UP(llc_bytes, PAGE);
	sizes.dram_min = dram_min;
	uint64_t small_need = MAX(sizes.bytes[SMALL], sizes.bytes[LLC]);
	int node = (int)tp->cpu[0].node;
	uint64_t phys = 0, want = dram_bytes;
	uint64_t t0 = tsc_read();
	while (want >= dram_min && want >= small_need) {
		t0 = tsc_read();
		phys = alloc_array(want, node);
		if (phys)
			break;
		want = ALIGN_DOWN(want / 2, LARGE_ALIGN); /* fragmented: try half */
	}
	sizes.have_dram = phys != 0;
	if (sizes.have_dram) {
		sizes.bytes[DRAM] = want;
	} else {
		want = small_need;
		t0 = tsc_read();
		phys = alloc_array(want, node);
	}
	sizes.alloc_s = seq_seconds(tsc_read() - t0);
	sizes.alloc = phys ? want : 0;
	for (unsigned sz = 0; sz < N_SIZES; sz++) {
		if (sz == DRAM && !sizes.have_dram)
			fmt_snprintf(sizes.name[sz], SIZE_NAME_LEN, "%s", size_default[sz]);
		else
			sizes.role[sz] = size_name(tp, sizes.bytes[sz], size_want[sz], sizes.name[sz], SIZE_NAME_LEN);
	}
	return phys;
}

static void describe(char *buf, size_t cap, unsigned sz, uint32_t threads, unsigned pl, unsigned v, unsigned ac)
{
	fmt_snprintf(buf, cap, "%s %u threads %s %s %s", sizes.name[sz], threads,
		     pl & SAME_PLACEMENTS ? "compact = scatter" : place_name((enum place_kind)pl), variant_names[v],
		     acc_names[ac]);
}

/* The run's set-up: allocating the array again (as timed at planning),
 * filling it and adding up each size's total, timed on a prefix of it and
 * scaled (seconds). */
static double setup_cost(uint64_t phys)
{
	uint64_t bytes = MIN(sizes.alloc, (uint64_t)SETUP_SAMPLE_BYTES), n = bytes / sizeof(uint32_t);
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
	for (unsigned sz = 0; sz < N_SIZES; sz++)
		summed += sz == DRAM && !sizes.have_dram ? 0 : sizes.bytes[sz];
	return sizes.alloc_s + seq_seconds(t1 - t0) * (double)sizes.alloc / (double)bytes +
	       seq_seconds(t2 - t1) * (double)summed / (double)bytes;
}

/* A pass over the prefix does not cost a pass over the whole array, scaled
 * by bytes: past the caches, page walks and (under an emulator) its own TLB
 * grow with the array, and one thread meets that differently from many. One
 * pass of the whole array against one of the prefix, on `threads` CPUs placed
 * compact, corrects the size's configurations of that many threads (one
 * thread: those of one; more: those of more) by their ratio, within
 * [1/DRAM_FULL_RATIO_MAX, DRAM_FULL_RATIO_MAX]. */
static void scale_to_full(const struct wl_ctx *ctx, unsigned sz, uint64_t calib, uint64_t bytes, uint32_t threads)
{
	if (!place_set(ctx->topo, ctx->cpu_of_topo, PLACE_COMPACT, threads, &set))
		return;
	job.variant = BLOCKED;
	job.acc = PRIVATE;
	double fixed, spread;
	job.n = calib / sizeof(uint32_t);
	double part = time_pass(ctx, &fixed, &spread);
	job.n = bytes / sizeof(uint32_t);
	double whole = time_pass(ctx, &fixed, &spread);
	if (part <= 0 || whole <= 0)
		return;
	double ratio = whole / (part * (double)bytes / (double)calib);
	if (ratio > DRAM_FULL_RATIO_MAX || ratio < 1 / DRAM_FULL_RATIO_MAX)
		return; /* something else happened: keep the prefix's estimate */
	uint32_t cursor = 0;
	struct plan_item *it;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor)))
		if (it->param[0] == sz && (threads > 1) == (it->param[1] > 1)) {
			it->unit_s *= ratio;
			it->unit_spread_s *= ratio;
		}
}

/* ---- Public Functions ----------------------------------------------------- */
void locality_plan(const struct wl_ctx *ctx)
{
	uint64_t phys = decide_sizes(ctx);
	if (!phys) {
		console_error("locality", "no memory for even the %llu-byte array",
			      (unsigned long long)MAX(sizes.bytes[SMALL], sizes.bytes[LLC]));
		return;
	}
	uint32_t counts[MAX_COUNTS];
	uint32_t nc = place_thread_counts(ctx->topo->ncpu, counts, MAX_COUNTS);
	char name[PLAN_NAME_LEN];
	job.a = (const uint32_t *)(uintptr_t)phys; /* unfilled: calibration only times the passes */
	job.slots = slot_line;
	plan_set_setup(ctx->plan, ctx->index, setup_cost(phys));
	for (unsigned sz = 0; sz < N_SIZES; sz++) {
		if (sz == DRAM && !sizes.have_dram)
			continue;
		plan_kind(ctx->plan, ctx->index, (uint8_t)sz, sizes.name[sz]);
		/* A DRAM pass is timed on a prefix still far past the L3, then scaled. */
		uint64_t bytes = sizes.bytes[sz], calib = bytes;
		if (sz == DRAM)
			calib = MAX(sizes.dram_min, ALIGN_DOWN(bytes / CALIB_DRAM_DIVISOR, PAGE));
		calib = MIN(calib, bytes);
		for (uint32_t c = 0; c < nc; c++) {
			bool same = place_scatter_is_compact(ctx->topo, ctx->cpu_of_topo, counts[c]);
			for (unsigned pl = 0; pl < (same ? 1u : 2u); pl++) {
				if (!place_set(ctx->topo, ctx->cpu_of_topo, (enum place_kind)pl, counts[c], &set))
					continue;
				for (unsigned v = 0; v < N_VARIANTS; v++)
					for (unsigned ac = 0; ac < N_ACCS; ac++) {
						describe(name, sizeof(name), sz, counts[c], pl | (same ? SAME_PLACEMENTS : 0), v,
							 ac);
						struct plan_item *it = plan_add(ctx->plan, ctx->index, name);
						if (!it)
							continue;
						it->unit = PLAN_UNIT_PASSES;
						it->kind = (uint8_t)sz;
						/* The least form of a size: the seed's foo and bar
						 * (shared-slot) at every CPU, placed compact. */
						it->essential = counts[c] == ctx->topo->ncpu && pl == PLACE_COMPACT &&
								ac == SHARED_SLOT && v != BLOCKED;
						it->want_units = it->min_units = 1;
						it->want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX);
						it->out_bytes = REC_BYTES + REC_BYTES_PER_THREAD * counts[c];
						it->param[0] = sz;
						it->param[1] = counts[c];
						it->param[2] = pl | (same ? SAME_PLACEMENTS : 0);
						it->param[3] = v | ac << 8;
						job.variant = (enum variant)v;
						job.acc = (enum acc)ac;
						job.n = calib / sizeof(uint32_t);
						double fixed, spread;
						it->unit_s = time_pass(ctx, &fixed, &spread) * (double)bytes / (double)calib;
						it->unit_spread_s = spread * (double)bytes / (double)calib;
						it->rep_fixed_s = fixed;
					}
			}
		}
		if (calib < bytes) {
			scale_to_full(ctx, sz, calib, bytes, 1);
			if (ctx->topo->ncpu > 1)
				scale_to_full(ctx, sz, calib, bytes, ctx->topo->ncpu);
		}
	}
	pmm_free(phys, sizes.held, PMM_WORKLOAD);
}

/* The plan skipped the workload whole: every configuration says so, nothing is allocated. */
static void skip_all(const struct wl_ctx *ctx)
{
	uint32_t cursor = 0;
	struct plan_item *it;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
		seq_item_begin(ctx, it);
		struct rec *r = report_result_open("locality", variant_names[it->param[3] & 0xff], 0);
		rec_obj_begin(r, "params");
		rec_str(r, "accumulator", acc_names[it->param[3] >> 8]);
		size_params(r, it->param[0]);
		rec_u64(r, "threads", it->param[1]);
		rec_str(r, "placement", place_name((enum place_kind)(it->param[2] & ~SAME_PLACEMENTS)));
		rec_obj_end(r);
		report_result_close(r, "skipped", seq_skip_reason(it));
	}
}

void locality_run(const struct wl_ctx *ctx)
{
	const struct topo *tp = ctx->topo;
	if (seq_workload_skipped(ctx)) {
		skip_all(ctx);
		return;
	}
	uint64_t want = sizes.alloc;
	uint64_t phys = want ? alloc_array(want, (int)tp->cpu[0].node) : 0;
	if (!phys) {
		console_error("locality", "no memory for the %llu-byte array planned", (unsigned long long)want);
		finish_mark_failed("locality: out of memory");
		return;
	}
	uint32_t *a = (uint32_t *)(uintptr_t)phys;
	loc_fill(a, want / sizeof(uint32_t));
	uint64_t expect[N_SIZES];
	for (unsigned sz = 0; sz < N_SIZES; sz++)
		expect[sz] = loc_total(a, sizes.bytes[sz] / sizeof(uint32_t));

	kprintf("locality: sizes %llu / %llu / %llu bytes, repetitions as planned, flush=%s, array on node %d\n",
		(unsigned long long)sizes.bytes[SMALL], (unsigned long long)sizes.bytes[LLC],
		sizes.have_dram ? (unsigned long long)sizes.bytes[DRAM] : 0ull, wl_flush_name(ctx), pmm_node_of(phys));
	kprintf("  %-7s %10s %3s %-15s %-16s %-12s %10s %8s\n", "size", "bytes", "P", "placing", "variant",
		"accumulator", "ns/elt", "GB/s");
	kprintf("  (medians of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	for (unsigned sz = 0; sz < N_SIZES; sz++)
		for (unsigned v = 0; v < N_VARIANTS; v++)
			for (unsigned ac = 0; ac < N_ACCS; ac++)
				summary[sz][v][ac] = -1;
	uint32_t cursor = 0;
	struct plan_item *it;
	job.a = a;
	job.slots = slot_line;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
		unsigned sz = it->param[0], pl = it->param[2] & ~SAME_PLACEMENTS;
		bool same = it->param[2] & SAME_PLACEMENTS;
		uint32_t threads = it->param[1];
		job.variant = (enum variant)(it->param[3] & 0xff);
		job.acc = (enum acc)(it->param[3] >> 8);
		job.n = sizes.bytes[sz] / sizeof(uint32_t);
		seq_item_begin(ctx, it);
		if (it->skip || !place_set(tp, ctx->cpu_of_topo, (enum place_kind)pl, threads, &set)) {
			struct rec *r = report_result_open("locality", variant_names[job.variant], 0);
			rec_obj_begin(r, "params");
			rec_str(r, "accumulator", acc_names[job.acc]);
			size_params(r, sz);
			rec_u64(r, "threads", threads);
			rec_str(r, "placement", place_name((enum place_kind)pl));
			rec_obj_end(r);
			report_result_close(r, "skipped", it->skip ? seq_skip_reason(it) : "the placement is gone");
			continue;
		}
		const char *why = 0;
		struct reps *log = 0;
		bool ok = measure(ctx, it, expect[sz], &why, &log);
		report(ctx, it, (enum size_class)sz, place_name((enum place_kind)pl), same, ok, why, log);
		if (threads == tp->ncpu && pl == PLACE_COMPACT)
			summary[sz][job.variant][job.acc] = ok ? last_median : -1;
	}
	if (!sizes.have_dram) {
		char why[96];
		fmt_snprintf(why, sizeof(why), "not enough free memory for %llu MiB (4x the largest L3)",
			     (unsigned long long)(sizes.dram_min >> 20));
		skip_size(DRAM, why);
	}
	print_summary(tp->ncpu, sizes.bytes, sizes.have_dram);
	unsigned big = sizes.have_dram ? DRAM : LLC;
	double foo = summary[big][INTERLEAVED][SHARED_SLOT], bar = summary[big][BLOCKED_STRIDED][SHARED_SLOT];
	double foo_p = summary[big][INTERLEAVED][PRIVATE], bar_p = summary[big][BLOCKED_STRIDED][PRIVATE];
	console_summary("locality   %s, %u threads: bar/foo %.2fx with shared result slots (as the original), %.2fx private",
			sizes.name[big], tp->ncpu, foo > 0 ? bar / foo : 0, foo_p > 0 ? bar_p / foo_p : 0);
	pmm_free(phys, sizes.held, PMM_WORKLOAD);
}
