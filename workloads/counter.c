/* counter.c - false sharing, after Joe Duffy's counter experiment (shared/seeds/004): P CPUs each increment their own counter.
 *
 * Layouts (variants), each named after the seed's case:
 *   packed               8-byte counters side by side, 8 per line (the plain struct)
 *   padded               one counter per 128-byte block (FieldOffset(128)), clear of the adjacent-line prefetcher
 *   array-packed         the seed's array program: `new long[n]; m_longs[i]++`, packed counters right behind
 *                        the length word, which each increment's bounds check reads
 *   array-header         padded counters, but each increment first reads a length word on counter 0's line
 *                        (the text's case: padding the elements but not the first)
 *   array-header-padded  the same with the length word alone on its line (the seed's fix, `m_longs[(i+1)*16]++`)
 *   shared-atomic        every CPU does LOCK XADD on one counter: true sharing, the reference
 * Thread counts 1, 2, 4, ... all; placements compact and scatter; one pair per
 * topology relation; and a core-to-core matrix of the packed pair cost.
 *
 * Each of these is a configuration in the run's plan (workloads/sequence.h):
 * counter_plan lists them and times a short run of each; counter_run runs
 * them with the iterations, repetitions and matrix sample the plan chose.
 * The matrix is in counter_matrix.c. */
#include "registry.h"
#include "counter.h"
#include "console.h"
#include "counter_loops.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "placement.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FULL_ITERS ((1ull << 31) / 4) /* the seed's int.MaxValue / 4 */
#define QUICK_ITERS 20000ull
#define MIN_ITERS 20000ull            /* fewer and the barrier weighs on the result */
#define CALIB_ITERS 20000ull
#define CHUNK 65536ull                /* increments between looks at the bound */
#define BLOCK_WORDS 16                /* 128 bytes: one padded block */
#define MAX_COUNTS 16                 /* thread counts in a sweep (2^15 > QB_MAX_CPUS) */
#define CALIB_REPS 3                  /* timed repetitions of a calibration run, after its warm-up */
#define CALIB_ROUNDS 4                /* calibration runs at most, each longer than the last */
#define CALIB_GROW_MARGIN 1.25        /* aim a little past the target */
#define CALIB_GROW_MAX 256.0
#define REC_BYTES 1500                /* one result record and its text line */
#define REC_BYTES_PER_THREAD 12

enum layout { PACKED, PADDED, ARRAY_PACKED, ARRAY_HEADER, ARRAY_HEADER_PADDED, SHARED_ATOMIC, N_LAYOUTS };

static const char *const layout_names[N_LAYOUTS] = {
	[PACKED] = "packed",
	[PADDED] = "padded",
	[ARRAY_PACKED] = "array-packed",
	[ARRAY_HEADER] = "array-header",
	[ARRAY_HEADER_PADDED] = "array-header-padded",
	[SHARED_ATOMIC] = "shared-atomic",
};

/* What a plan item's param[] hold: [0] kind, [1] layout, [2] threads, [3] placement or relation,
 * with SAME_PLACEMENTS when scatter picks the same CPUs as compact (run once, reported as both). */
enum item_kind { KIND_SWEEP, KIND_BASE, KIND_PAIR, KIND_MATRIX };
_Static_assert(KIND_MATRIX == COUNTER_KIND_MATRIX, "counter_matrix.c marks its item with counter.c's kind");
/* The plan's kinds of experiment: the sweep, the pairs (with their base), the matrix. */
enum plan_kind_id { PK_SWEEP, PK_PAIRS, PK_MATRIX };
#define SAME_PLACEMENTS 0x100u

static const enum topo_rel pair_rels[] = { TOPO_REL_SMT, TOPO_REL_L2, TOPO_REL_L3, TOPO_REL_PACKAGE,
					   TOPO_REL_REMOTE };

/* ---- Types ---------------------------------------------------------------- */
struct counter_job {
	enum layout layout;
	uint64_t iters;                          /* per thread */
	volatile uint64_t *counter[QB_MAX_CPUS]; /* thread t's counter */
	volatile uint64_t *header;               /* array length word (array-* layouts) */
	uint64_t index[QB_MAX_CPUS];             /* thread t's array index (array-* layouts) */
	uint64_t ticks[QB_MAX_CPUS];             /* thread t's loop time, this repetition */
	uint64_t done[QB_MAX_CPUS];              /* increments thread t actually made */
};

/* One configuration's measurements. */
struct counter_outcome {
	double wall_s;                           /* the timed repetitions' mean wall time, everything in them */
	bool ok, overrun;
	const char *why;
	uint32_t n;
	struct reps *reps;                       /* the repetitions: slowest thread, noise, counters */
	double tpi;                              /* the figure's median ticks per increment (slowest thread) */
	bool have;                               /* a figure exists (some repetition was timed) */
	double thread_tpi[QB_MAX_CPUS];          /* median per thread, per increment */
	char reached[96];                        /* what an overrun got to */
};

/* ---- Private Variables ---------------------------------------------------- */
/* Counters live in their own aligned block of kernel data, well away from code. */
static uint64_t cbuf[(QB_MAX_CPUS + 2) * BLOCK_WORDS] __attribute__((aligned(4096)));
static struct counter_job job;
static struct counter_outcome out;
static double top_pct[N_LAYOUTS];            /* slowdown at the most threads, compact */
static uint32_t top_threads;
static struct cpuset set;

/* ---- Private Functions ---------------------------------------------------- */
static void counter_thread(const struct run_thread *t)
{
	struct counter_job *j = t->arg;
	volatile uint64_t *c = j->counter[t->index];
	uint64_t n = j->iters, made = 0;
	uint64_t s = tsc_start();
	/* In chunks, each an unchanged inner loop (tests/asm checks them), with a
	 * look at the bound between chunks. */
	for (uint64_t done = 0; done < n; done += CHUNK) {
		uint64_t m = MIN(CHUNK, n - done);
		switch (j->layout) {
		case ARRAY_PACKED:
		case ARRAY_HEADER:
		case ARRAY_HEADER_PADDED:
			made += counter_inc_checked(j->header + 1, j->header, j->index[t->index], m);
			break;
		case SHARED_ATOMIC:
			made += counter_inc_atomic(c, m);
			break;
		default:
			made += counter_inc_plain(c, m);
			break;
		}
		if (done + m < n && run_overdue(t)) {
			run_overran(t);
			break;
		}
	}
	uint64_t e = tsc_end();
	j->ticks[t->index] = e - s;
	j->done[t->index] = made;
}

/* Lay out the counters for n threads and zero them. */
static void lay_out(enum layout l, uint32_t n)
{
	memset(cbuf, 0, sizeof(cbuf));
	job.layout = l;
	job.header = 0;
	for (uint32_t t = 0; t < n; t++) {
		switch (l) {
		case PACKED:
			job.counter[t] = &cbuf[t];
			break;
		case PADDED:
			job.counter[t] = &cbuf[(uint64_t)t * BLOCK_WORDS];
			break;
		case ARRAY_PACKED:        /* new long[n]; m_longs[i]: the length and up to 7 counters share a line */
			job.header = &cbuf[0];
			job.index[t] = t;
			job.counter[t] = &cbuf[1 + t];
			break;
		case ARRAY_HEADER:        /* m_longs[i * 16]: element 0 shares the length's line */
		case ARRAY_HEADER_PADDED: /* m_longs[(i + 1) * 16]: the seed's fix */
			job.header = &cbuf[0];
			job.index[t] = (uint64_t)(t + (l == ARRAY_HEADER_PADDED)) * BLOCK_WORDS;
			job.counter[t] = &cbuf[1 + job.index[t]];
			break;
		case SHARED_ATOMIC:
		default:
			job.counter[t] = &cbuf[0];
			break;
		}
	}
	if (job.header) /* the array's length */
		*job.header = l == ARRAY_PACKED ? n : (uint64_t)(n + 1) * BLOCK_WORDS;
}

/* Every counter must hold exactly what its threads added. */
static bool counts_ok(uint32_t n)
{
	if (job.layout == SHARED_ATOMIC)
		return *job.counter[0] == job.iters * n;
	for (uint32_t t = 0; t < n; t++)
		if (*job.counter[t] != job.iters || job.done[t] != job.iters)
			return false;
	return true;
}

/* Increments per thread for `units`: shared-atomic keeps the total constant
 * across thread counts (units is the total), every other layout gives each
 * thread `units`. */
static uint64_t per_thread(enum layout l, uint64_t units, uint32_t n)
{
	if (l != SHARED_ATOMIC)
		return units;
	uint64_t each = units / n;
	return each ? each : 1;
}

/* Warm-up plus reps timed repetitions of one configuration, each while
 * its deadline allows (it: the plan's item; NULL at calibration). */
static void measure(const struct wl_ctx *ctx, enum layout l, const struct cpuset *s, uint64_t units,
		    uint32_t reps, const struct plan_item *it)
{
	uint32_t n = s->n;
	out.ok = true;
	out.overrun = false;
	out.why = 0;
	out.n = n;
	job.iters = per_thread(l, units, n);
	out.reps = reps_begin(n);
	reps = MIN(reps, (uint32_t)REPS_MAX);
	uint64_t wall = 0;
	for (uint32_t r = 0; r <= reps && seq_rep_fits(); r++) {
		uint64_t w0 = tsc_read();
		lay_out(l, n);
		if (ctx->flush) /* the counters start in memory on both platforms (docs/timing.md) */
			run_evict_lines(cbuf, (uint64_t)(n + 2) * BLOCK_WORDS * sizeof(cbuf[0]));
		uint64_t timeout_ms = it ? seq_timeout_ms(it) : SEQ_CALIB_TIMEOUT_MS;
		enum run_status st = run_on(s, counter_thread, &job, ctx->flush ? RUN_FLUSH : 0, timeout_ms, 0);
		if (st == RUN_OVERRUN) {
			uint64_t least = job.iters;
			for (uint32_t t = 0; t < n; t++)
				least = MIN(least, job.done[t]);
			fmt_snprintf(out.reached, sizeof(out.reached),
				     "overrun: repetition %u stopped at the bound with %llu of %llu increments", r,
				     (unsigned long long)least, (unsigned long long)job.iters);
			out.ok = false;
			out.overrun = true;
			out.why = out.reached;
			break;
		}
		if (st != RUN_OK) {
			out.ok = false;
			out.why = run_status_name(st);
			break;
		}
		if (!counts_ok(n)) {
			out.ok = false;
			out.why = "a counter does not equal iters";
			break;
		}
		if (r > 0) /* the first is an untimed warm-up */
			reps_add(out.reps, job.ticks, run_last()->instr);
		seq_tick();
		if (r > 0)
			wall += tsc_read() - w0;
	}
	out.wall_s = out.reps->n ? seq_seconds(wall) / out.reps->n : 0;
	const struct stats *fig = reps_figure(out.reps);
	out.have = fig->n && job.iters;
	out.tpi = out.have ? fig->median / (double)job.iters : 0;
	for (uint32_t t = 0; t < n; t++)
		out.thread_tpi[t] = job.iters ? reps_thread_median(out.reps, t) / (double)job.iters : 0;
}

/* The set an item runs on; false if the topology has none (then it is not planned). */
static bool item_set(const struct wl_ctx *ctx, enum item_kind k, uint32_t threads, uint32_t how, struct cpuset *s)
{
	switch (k) {
	case KIND_SWEEP:
		return place_set(ctx->topo, ctx->cpu_of_topo, (enum place_kind)how, threads, s);
	case KIND_BASE:
		s->n = 1;
		s->cpu[0] = ctx->cpu_of_topo[0];
		return true;
	case KIND_PAIR:
		return place_pair(ctx->topo, ctx->cpu_of_topo, (enum topo_rel)how, s);
	default:
		return false;
	}
}

static void pair_name(char *buf, size_t cap, enum topo_rel rel)
{
	fmt_snprintf(buf, cap, "pair-%s", topo_rel_name(rel));
}

/* The result record: statistics of the slowest thread, each thread, spread and slowdown. */
/* The measure of a counter result: ns per increment of the slowest thread. */
static struct report_measure tpi_measure(enum layout l)
{
	struct report_measure m = { "ns_per_increment", "ns/increment", report_ns_scale((double)job.iters), false,
				    l == SHARED_ATOMIC ? LIMIT_LOCKED_NS : LIMIT_INCREMENT_NS, 1 };
	return m;
}

static void report(const struct wl_ctx *ctx, const struct plan_item *it, enum layout l, const struct cpuset *s,
		   const char *placement, bool same, double base_tpi)
{
	struct rec *r = report_result_open("counter", layout_names[l], s);
	rec_obj_begin(r, "params");
	rec_u64(r, "iters", job.iters);
	if (l == SHARED_ATOMIC)
		rec_u64(r, "total_increments", job.iters * s->n);
	rec_str(r, "placement", placement);
	flushcheck_params(r, ctx->flush, 0);
	rec_obj_end(r);
	int node = pmm_node_of_ptr(cbuf); /* where the image's .bss (bare metal) or Linux put them */
	if (node >= 0)
		rec_u64(r, "counters_node", (uint64_t)node);
	else
		rec_null(r, "counters_node");
	if (same) { /* one measurement that both placements name */
		rec_arr_begin(r, "same_placements");
		rec_str(r, 0, place_name(PLACE_COMPACT));
		rec_str(r, 0, place_name(PLACE_SCATTER));
		rec_arr_end(r);
	}
	reps_report(r, out.reps);
	struct report_measure m = tpi_measure(l);
	report_measures(r, &m, 1);
	if (out.have)
		rec_f64(r, "ticks_per_increment", out.tpi, 3);
	else
		rec_null(r, "ticks_per_increment");
	rec_arr_begin(r, "thread_ticks_per_increment");
	double lo = 0, hi = 0;
	for (uint32_t t = 0; t < out.n; t++) {
		rec_f64(r, 0, out.thread_tpi[t], 3);
		lo = t ? MIN(lo, out.thread_tpi[t]) : out.thread_tpi[t];
		hi = t ? MAX(hi, out.thread_tpi[t]) : out.thread_tpi[t];
	}
	rec_arr_end(r);
	if (out.have)
		rec_f64(r, "spread_ticks_per_increment", hi - lo, 3);
	else
		rec_null(r, "spread_ticks_per_increment");
	if (base_tpi > 0 && out.have)
		rec_f64(r, "slowdown_pct", 100.0 * out.tpi / base_tpi, 1);
	else
		rec_null(r, "slowdown_pct");
	seq_item_report(r, it);
	report_result_close(r, out.ok ? "ok" : out.overrun ? "overrun" : "fail", out.ok ? 0 : out.why);
}

static void report_skipped(enum layout l, const char *placement, const char *why)
{
	struct rec *r = report_result_open("counter", layout_names[l], 0);
	rec_obj_begin(r, "params");
	rec_str(r, "placement", placement);
	rec_obj_end(r);
	report_result_close(r, "skipped", why);
	kprintf("  %-10s %-20s %-12s skipped: %s\n", "", layout_names[l], placement, why);
}

/* One line of the seed's table: the figure in ns per increment (ticks
 * without a TSC frequency), its slowdown, and "noisy" when the figure is all
 * repetitions because fewer than half were clean. */
static void table_row(const char *threads_or_pair, enum layout l, const char *placement, double base_tpi)
{
	const char *note = !out.ok ? (out.overrun ? "  OVERRUN" : "  CHECK FAILED") : out.reps->noisy ? "  noisy" : "";
	struct report_measure m = tpi_measure(l);
	double v = out.have ? report_measure_value(&m, out.tpi * (double)job.iters) : -1;
	if (!out.have)
		kprintf("  %-10s %-20s %-15s %10s %9s%s\n", threads_or_pair, layout_names[l], placement, "-", "-", note);
	else if (base_tpi > 0)
		kprintf("  %-10s %-20s %-15s %10.3f %8.0f%%%s\n", threads_or_pair, layout_names[l], placement,
			v >= 0 ? v : out.tpi, 100.0 * out.tpi / base_tpi, note);
	else
		kprintf("  %-10s %-20s %-15s %10.3f %9s%s\n", threads_or_pair, layout_names[l], placement,
			v >= 0 ? v : out.tpi, "-", note);
}

/* Seconds per unit of layout l on set s: short runs of it from `units`,
 * longer until the slowest thread's loop takes SEQ_CALIB_TARGET_S (or the
 * units reach max): a run too short for the clock, or for an emulator that
 * time-slices its CPUs, says little about a long one. *fixed: what each
 * repetition takes besides the loop (laying out, the flush, the barrier,
 * waking the CPUs), from the same repetitions' wall time. */
static double per_unit(const struct wl_ctx *ctx, enum layout l, const struct cpuset *s, uint64_t units,
		       uint64_t max, double *fixed, double *spread)
{
	*fixed = *spread = 0;
	double slowest = 0;
	uint64_t done = 0;
	for (int round = 0; round < CALIB_ROUNDS; round++) {
		measure(ctx, l, s, units, CALIB_REPS, 0);
		if (!out.ok)
			return 0;
		/* The median: a repetition the host preempted does not count twice. */
		slowest = seq_seconds((uint64_t)reps_stats(out.reps)->median);
		*fixed = MAX(0.0, out.wall_s - seq_seconds((uint64_t)reps_stats(out.reps)->mean));
		done = l == SHARED_ATOMIC ? job.iters * s->n : job.iters;
		if (slowest >= SEQ_CALIB_TARGET_S || units >= max)
			break;
		double grow = slowest > 0 ? SEQ_CALIB_TARGET_S / slowest * CALIB_GROW_MARGIN : CALIB_GROW_MAX;
		units = MIN(max, (uint64_t)((double)units * MIN(CALIB_GROW_MAX, MAX(2.0, grow))));
	}
	if (done) /* the timed repetitions' difference, per unit */
		*spread = seq_seconds((uint64_t)(reps_stats(out.reps)->max - reps_stats(out.reps)->min)) / (double)done;
	return done ? slowest / (double)done : 0;
}

/* One calibrated item: short runs of exactly this configuration. */
static void calibrate(const struct wl_ctx *ctx, struct plan_item *it, enum layout l, const struct cpuset *s,
		      uint64_t calib_units)
{
	it->unit_s = per_unit(ctx, l, s, calib_units, it->want_units, &it->rep_fixed_s, &it->unit_spread_s);
	if (!out.ok)
		console_error("counter", "calibration of %s failed: %s", it->name, out.why ? out.why : "?");
}

static uint64_t wanted_iters(const struct wl_ctx *ctx)
{
	return ctx->iters ? ctx->iters : ctx->quick ? QUICK_ITERS : FULL_ITERS;
}

static struct plan_item *add_item(const struct wl_ctx *ctx, const char *name, enum item_kind k, enum layout l,
				  uint32_t threads, uint32_t how)
{
	struct plan_item *it = plan_add(ctx->plan, ctx->index, name);
	if (!it)
		return 0;
	uint64_t want = wanted_iters(ctx);
	it->unit = PLAN_UNIT_ITERS;
	it->want_units = want;
	it->min_units = ctx->iters ? want : MIN(want, l == SHARED_ATOMIC ? MIN_ITERS * threads : MIN_ITERS);
	if (l == SHARED_ATOMIC)
		it->min_units = MIN(it->min_units, want);
	it->want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX);
	it->out_bytes = REC_BYTES + REC_BYTES_PER_THREAD * threads;
	it->param[0] = k;
	it->param[1] = l;
	it->param[2] = threads;
	it->param[3] = how;
	it->kind = k == KIND_SWEEP ? PK_SWEEP : PK_PAIRS;
	/* The least form: packed and padded at 1 and at all threads (compact),
	 * the pairs' base (the last pair is added to it by counter_plan). */
	it->essential = k == KIND_BASE || (k == KIND_SWEEP && (l == PACKED || l == PADDED) &&
					    (how & ~SAME_PLACEMENTS) == PLACE_COMPACT &&
					    (threads == 1 || threads == ctx->topo->ncpu));
	return it;
}

/* ---- Public Functions ----------------------------------------------------- */
bool counter_pair(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t iters, uint32_t reps,
		  const struct plan_item *it, double *tpi, bool *overrun)
{
	measure(ctx, PACKED, s, iters, reps, it);
	*tpi = out.tpi;
	*overrun = out.overrun;
	return out.ok;
}

double counter_pair_per_unit(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t units, uint64_t max,
			     double *fixed, double *spread)
{
	return per_unit(ctx, PACKED, s, units, max, fixed, spread);
}

static void counter_plan(const struct wl_ctx *ctx)
{
	uint32_t counts[MAX_COUNTS];
	uint32_t nc = place_thread_counts(ctx->topo->ncpu, counts, MAX_COUNTS);
	uint64_t calib = MIN(wanted_iters(ctx), CALIB_ITERS);
	char name[PLAN_NAME_LEN];
	bool same[MAX_COUNTS];
	plan_kind(ctx->plan, ctx->index, PK_SWEEP, "sweep");
	plan_kind(ctx->plan, ctx->index, PK_PAIRS, "pairs");
	plan_kind(ctx->plan, ctx->index, PK_MATRIX, "matrix");
	for (uint32_t i = 0; i < nc; i++)
		same[i] = place_scatter_is_compact(ctx->topo, ctx->cpu_of_topo, counts[i]);
	/* Once untimed: the first calibration ran several times slow (a cold
	 * process, caches and code; measured on the twin). */
	double ignored_fixed, ignored_spread;
	if (item_set(ctx, KIND_BASE, 1, 0, &set))
		(void)per_unit(ctx, PACKED, &set, calib, wanted_iters(ctx), &ignored_fixed, &ignored_spread);
	for (unsigned l = 0; l < N_LAYOUTS; l++)
		for (uint32_t i = 0; i < nc; i++)
			for (unsigned p = 0; p < (same[i] ? 1u : 2u); p++) {
				if (!item_set(ctx, KIND_SWEEP, counts[i], p, &set)) {
					console_error("counter", "no %s placement of %u threads",
						      place_name((enum place_kind)p), counts[i]);
					continue;
				}
				fmt_snprintf(name, sizeof(name), "%s %u threads %s", layout_names[l], counts[i],
					     same[i] ? "compact = scatter" : place_name((enum place_kind)p));
				struct plan_item *it = add_item(ctx, name, KIND_SWEEP, (enum layout)l, counts[i],
								p | (same[i] ? SAME_PLACEMENTS : 0));
				if (it)
					calibrate(ctx, it, (enum layout)l, &set,
						  l == SHARED_ATOMIC ? calib * counts[i] : calib);
			}
	item_set(ctx, KIND_BASE, 1, 0, &set);
	struct plan_item *it = add_item(ctx, "packed 1 thread (the pairs' base)", KIND_BASE, PACKED, 1, 0);
	if (it)
		calibrate(ctx, it, PACKED, &set, calib);
	struct plan_item *farthest = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(pair_rels); i++) {
		if (!item_set(ctx, KIND_PAIR, 2, pair_rels[i], &set))
			continue; /* no such pair here: reported as skipped by counter_run */
		char pn[24];
		pair_name(pn, sizeof(pn), pair_rels[i]);
		fmt_snprintf(name, sizeof(name), "packed %s", pn);
		it = add_item(ctx, name, KIND_PAIR, PACKED, 2, pair_rels[i]);
		if (it)
			calibrate(ctx, it, PACKED, &set, calib);
		farthest = it ? it : farthest;
	}
	if (farthest)
		farthest->essential = true; /* the pairs' least form: the base and the farthest pair */
	counter_matrix_plan(ctx, PK_MATRIX, wanted_iters(ctx));
}

static void counter_run(const struct wl_ctx *ctx)
{
	uint64_t iters = wanted_iters(ctx);
	uint32_t cursor = 0;
	struct plan_item *it;
	double base[N_LAYOUTS] = { 0 }, pair_base = 0;
	memset(cbuf, 0, sizeof(cbuf)); /* present before it is asked where it is */
	kprintf("counter: up to %llu increments per thread (shared-atomic: in all), repetitions as planned, flush=%s, "
		"counters on node %d\n", (unsigned long long)iters, wl_flush_name(ctx), pmm_node_of_ptr(cbuf));
	kprintf("  %-10s %-20s %-15s %10s %9s\n", "threads", "layout", "placement", tsc_hz() ? "ns/inc" : "ticks/inc",
		"slowdown");
	kprintf("  (each figure is the median of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	unsigned next_rel = 0;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
		enum item_kind k = (enum item_kind)it->param[0];
		enum layout l = (enum layout)it->param[1];
		uint32_t threads = it->param[2], how = it->param[3] & ~SAME_PLACEMENTS;
		bool same = k == KIND_SWEEP && (it->param[3] & SAME_PLACEMENTS);
		char placement[24];
		if (k == KIND_PAIR || k == KIND_MATRIX) {
			/* Relations this machine lacks come before the next planned pair. */
			while (next_rel < ARRAY_SIZE(pair_rels) && (k == KIND_MATRIX || pair_rels[next_rel] != how)) {
				pair_name(placement, sizeof(placement), pair_rels[next_rel]);
				report_skipped(PACKED, placement, place_pair_missing_reason(pair_rels[next_rel]));
				next_rel++;
			}
			if (k == KIND_PAIR)
				next_rel++;
		}
		seq_item_begin(ctx, it);
		if (k == KIND_MATRIX) {
			if (it->skip)
				kprintf("\n  core-to-core matrix skipped: %s\n", seq_skip_reason(it));
			else
				counter_matrix_run(ctx, it, iters);
			continue;
		}
		if (k == KIND_PAIR)
			pair_name(placement, sizeof(placement), (enum topo_rel)how);
		else
			fmt_snprintf(placement, sizeof(placement), "%s", k == KIND_BASE ? "compact" : place_name((enum place_kind)how));
		if (k == KIND_BASE)
			kprintf("\n  pairs, packed layout, 2 threads:\n");
		if (it->skip) {
			report_skipped(l, placement, seq_skip_reason(it));
			continue;
		}
		if (!item_set(ctx, k, threads, how, &set)) {
			report_skipped(l, placement, "the placement is gone (CPUs lost since the plan)");
			continue;
		}
		measure(ctx, l, &set, it->units, it->reps, it);
		if (k == KIND_SWEEP && threads == 1 && how == PLACE_COMPACT)
			base[l] = out.ok ? out.tpi : 0;
		if (k == KIND_BASE) {
			pair_base = out.ok ? out.tpi : 0;
			continue; /* the pairs' reference, as the seed's table: not a row of its own */
		}
		double b = k == KIND_PAIR ? pair_base : base[l];
		report(ctx, it, l, &set, placement, same, b);
		if (k == KIND_SWEEP && how == PLACE_COMPACT && b > 0 && out.ok && threads >= top_threads) {
			top_pct[l] = 100.0 * out.tpi / b;
			top_threads = threads;
		}
		char th[24];
		if (k == KIND_PAIR)
			fmt_snprintf(th, sizeof(th), "%u,%u", set.cpu[0], set.cpu[1]);
		else
			fmt_snprintf(th, sizeof(th), "%u", threads);
		table_row(th, l, same ? "compact=scatter" : placement, b);
	}
	/* Relations after the last planned pair (and all of them when no pair was planned). */
	while (next_rel < ARRAY_SIZE(pair_rels)) {
		char placement[24];
		pair_name(placement, sizeof(placement), pair_rels[next_rel]);
		report_skipped(PACKED, placement, place_pair_missing_reason(pair_rels[next_rel]));
		next_rel++;
	}
	console_summary("counter    %u threads vs 1: packed %.0f%%, padded %.0f%%, array-packed %.0f%%, "
			"array-header %.0f%%, array-header-padded %.0f%%, shared-atomic %.0f%%", top_threads,
			top_pct[PACKED], top_pct[PADDED], top_pct[ARRAY_PACKED], top_pct[ARRAY_HEADER],
			top_pct[ARRAY_HEADER_PADDED], top_pct[SHARED_ATOMIC]);
}

const struct workload wl_counter = {
	.name = "counter",
	.summary = "false sharing: per-CPU counters packed, padded, behind an array header, or shared",
	.counters = PMU_GOAL_COHERENCE,
	.measures_faults = false,
	.legacy_plan = counter_plan,
	.legacy_run = counter_run,
};
