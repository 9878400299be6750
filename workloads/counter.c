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
 * Each of these is a configuration in the run's plan, of one of four kinds
 * (kernel/bench/workload.h): a sweep configuration, the pairs' base, a pair,
 * the matrix. counter_plan lists them and times a short run of each; the
 * sequence runs each with the iterations, repetitions and matrix sample the
 * plan chose. The matrix is in counter_matrix.c. */
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
#define QUICK_CALIB_REPS 1            /* the quick profile (no budget to keep): one, its plan an estimate */
#define REC_BYTES_PER_THREAD 12       /* a result's per-thread figures and CPU list */

enum layout { PACKED, PADDED, ARRAY_PACKED, ARRAY_HEADER, ARRAY_HEADER_PADDED, SHARED_ATOMIC, N_LAYOUTS };

static const char *const layout_names[N_LAYOUTS] = {
	[PACKED] = "packed",
	[PADDED] = "padded",
	[ARRAY_PACKED] = "array-packed",
	[ARRAY_HEADER] = "array-header",
	[ARRAY_HEADER_PADDED] = "array-header-padded",
	[SHARED_ATOMIC] = "shared-atomic",
};

/* The plan's fair-share groups: the sweep, the pairs (with their base), the matrix. */
enum counter_group { CG_SWEEP, CG_PAIRS, CG_MATRIX };
static const char *const counter_groups[] = { "sweep", "pairs", "matrix", 0 };

/* A configuration of any kind but the matrix: its layout, threads, and
 * placement (a sweep's enum place_how, a pair's enum topo_rel); same: the
 * two placements pick the same CPUs (run once, reported as both). */
struct counter_cfg {
	uint8_t row;                  /* enum counter_row */
	uint8_t layout;               /* enum layout */
	bool same;
	uint32_t threads;
	uint32_t how;
};

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

/* The warm-up and timed repetitions of one configuration on s, as far as c
 * allows (its deadline; a calibration's or a matrix pair's inner item:
 * their own count, no deadline); units per repetition from c. */
static void measure(struct wl_item *c, enum layout l, const struct cpuset *s)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	uint32_t n = s->n, r = 0;
	out.ok = true;
	out.overrun = false;
	out.why = 0;
	out.n = n;
	job.iters = per_thread(l, wl_units(c), n);
	out.reps = reps_begin(n);
	uint64_t wall = 0;
	while (wl_rep(c)) {
		uint64_t w0 = tsc_read();
		lay_out(l, n);
		if (ctx->flush) /* the counters start in memory on both platforms (docs/timing.md) */
			run_evict_lines(cbuf, (uint64_t)(n + 2) * BLOCK_WORDS * sizeof(cbuf[0]));
		enum run_status st = run_on(s, counter_thread, &job, ctx->flush ? RUN_FLUSH : 0, wl_bound_ms(c), 0);
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
		if (wl_timed(c)) { /* the first is an untimed warm-up */
			reps_add(out.reps, job.ticks, run_last()->instr);
			wall += tsc_read() - w0;
		}
		r++;
	}
	out.wall_s = out.reps->n ? tsc_seconds(wall) / out.reps->n : 0;
	const struct stats *fig = reps_figure(out.reps);
	out.have = fig->n && job.iters;
	out.tpi = out.have ? fig->median / (double)job.iters : 0;
	for (uint32_t t = 0; t < n; t++)
		out.thread_tpi[t] = job.iters ? reps_thread_median(out.reps, t) / (double)job.iters : 0;
}

/* The set a configuration runs on; false if the topology has none (then it is absent). */
static bool item_set(const struct wl_ctx *ctx, enum counter_row k, uint32_t threads, uint32_t how, struct cpuset *s)
{
	switch (k) {
	case C_SWEEP:
		return place_set(ctx->topo, ctx->cpu_of_topo, (enum place_how)how, threads, s);
	case C_BASE:
		s->n = 1;
		s->cpu[0] = ctx->cpu_of_topo[0];
		return true;
	case C_PAIR:
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

static void report(struct wl_item *c, enum layout l, const struct cpuset *s, const char *placement, bool same,
		   double base_tpi)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	struct rec *r = wl_result_open(c, layout_names[l], s);
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
	wl_result_close(c, r, out.ok ? WL_OK : out.overrun ? WL_ERR_OVERRUN : WL_ERR_FAIL, out.why);
}

/* A configuration's placement as its result names it: compact or scatter, pair-<relation>. */
static void placement_of(const struct counter_cfg *f, char *buf, size_t cap)
{
	if (f->row == C_PAIR)
		pair_name(buf, cap, (enum topo_rel)f->how);
	else
		fmt_snprintf(buf, cap, "%s", f->row == C_BASE ? "compact" : place_name((enum place_how)f->how));
}

/* A skipped or absent configuration's params: its placement. */
static void placement_params(const struct wl_ctx *ctx, const struct wl_cfg *cfg, struct rec *r)
{
	(void)ctx;
	char placement[24];
	placement_of(WL_OWN_CONST(cfg, struct counter_cfg), placement, sizeof(placement));
	rec_obj_begin(r, "params");
	rec_str(r, "placement", placement);
	rec_obj_end(r);
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

/* A calibration run (wl_calibrate's): CALIB_REPS timed repetitions after a warm-up. */
struct calib {
	const struct wl_ctx *ctx;
	enum layout l;
	const struct cpuset *s;
};

static bool calib_run(void *arg, uint64_t units, double *loop_s)
{
	struct calib *cb = arg;
	measure(wl_inner(0, cb->ctx, units, cb->ctx->quick ? QUICK_CALIB_REPS : CALIB_REPS), cb->l, cb->s);
	/* The median: a repetition the host preempted does not count twice. */
	*loop_s = tsc_seconds((uint64_t)reps_stats(out.reps)->median);
	return out.ok;
}

/* Seconds per unit of layout l on set s: short runs of it from `units`,
 * longer until the slowest thread's loop takes WL_CALIB_TARGET_S (or the
 * units reach max). *fixed: what each repetition takes besides the loop
 * (laying out, the flush, the barrier, waking the CPUs), from the same
 * repetitions' wall time; *spread: their difference, per unit. */
static double per_unit(const struct wl_ctx *ctx, enum layout l, const struct cpuset *s, uint64_t units,
		       uint64_t max, double *fixed, double *spread)
{
	*fixed = *spread = 0;
	struct calib cb = { ctx, l, s };
	double slowest;
	if (!wl_calibrate(units, max, calib_run, &cb, &slowest))
		return 0;
	*fixed = MAX(0.0, out.wall_s - tsc_seconds((uint64_t)reps_stats(out.reps)->mean));
	uint64_t done = l == SHARED_ATOMIC ? job.iters * s->n : job.iters;
	if (!done)
		return 0;
	*spread = tsc_seconds((uint64_t)(reps_stats(out.reps)->max - reps_stats(out.reps)->min)) / (double)done;
	return slowest / (double)done;
}

/* One configuration's cost: short runs of exactly it. */
static void calibrate(const struct wl_ctx *ctx, const char *name, struct wl_cost *cost, enum layout l,
		      const struct cpuset *s, uint64_t calib_units)
{
	cost->unit_s = per_unit(ctx, l, s, calib_units, cost->want_units, &cost->rep_fixed_s, &cost->unit_spread_s);
	if (!out.ok)
		console_error("counter", "calibration of %s failed: %s", name, out.why ? out.why : "?");
}

static uint64_t wanted_iters(const struct wl_ctx *ctx)
{
	return ctx->iters ? ctx->iters : ctx->quick ? QUICK_ITERS : FULL_ITERS;
}

/* A configuration and its cost before calibration: iterations as asked, the
 * least form (packed and padded at 1 and at all threads, compact; the pairs'
 * base; the farthest pair, which counter_plan marks). */
static void cfg_of(const struct wl_ctx *ctx, enum counter_row k, enum layout l, uint32_t threads, uint32_t how,
		   bool same, const char *name, struct wl_cfg *cfg, struct wl_cost *cost)
{
	*cfg = (struct wl_cfg){ .variant = layout_names[l] };
	fmt_snprintf(cfg->name, sizeof(cfg->name), "%s", name);
	*WL_OWN(cfg, struct counter_cfg) = (struct counter_cfg){ (uint8_t)k, (uint8_t)l, same, threads, how };
	uint64_t want = wanted_iters(ctx);
	*cost = (struct wl_cost){
		.group = k == C_SWEEP ? CG_SWEEP : CG_PAIRS,
		.essential = k == C_BASE || (k == C_SWEEP && (l == PACKED || l == PADDED) && how == PLACE_COMPACT &&
					     (threads == 1 || threads == ctx->topo->ncpu)),
		.want_units = want,
		.min_units = ctx->iters ? want : MIN(want, l == SHARED_ATOMIC ? MIN_ITERS * threads : MIN_ITERS),
		.want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX),
		.out_bytes = REC_BYTES_PER_THREAD * threads,
	};
	if (l == SHARED_ATOMIC)
		cost->min_units = MIN(cost->min_units, want);
}

/* ---- The run's state: references and the summary ----------------------------- */
static double base[N_LAYOUTS], pair_base;

/* ---- Public Functions ----------------------------------------------------- */
bool counter_pair(struct wl_item *c, const struct cpuset *s, double *tpi, bool *overrun)
{
	measure(c, PACKED, s);
	*tpi = out.tpi;
	*overrun = out.overrun;
	return out.ok;
}

double counter_pair_per_unit(const struct wl_ctx *ctx, const struct cpuset *s, uint64_t units, uint64_t max,
			     double *fixed, double *spread)
{
	return per_unit(ctx, PACKED, s, units, max, fixed, spread);
}

/* ---- The workload's table --------------------------------------------------- */
static void counter_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	uint32_t counts[MAX_COUNTS];
	uint32_t nc = place_thread_counts(ctx->topo->ncpu, counts, MAX_COUNTS);
	uint64_t calib = MIN(wanted_iters(ctx), CALIB_ITERS);
	char name[PLAN_NAME_LEN];
	bool same[MAX_COUNTS];
	struct wl_cfg cfg;
	struct wl_cost cost;
	for (uint32_t i = 0; i < nc; i++)
		same[i] = place_scatter_is_compact(ctx->topo, ctx->cpu_of_topo, counts[i]);
	/* Once untimed: the first calibration ran several times slow (a cold
	 * process, caches and code; measured on the twin). */
	double ignored_fixed, ignored_spread;
	if (item_set(ctx, C_BASE, 1, 0, &set))
		(void)per_unit(ctx, PACKED, &set, calib, wanted_iters(ctx), &ignored_fixed, &ignored_spread);
	for (unsigned l = 0; l < N_LAYOUTS; l++)
		for (uint32_t i = 0; i < nc; i++)
			for (unsigned pl = 0; pl < (same[i] ? 1u : 2u); pl++) {
				if (!item_set(ctx, C_SWEEP, counts[i], pl, &set)) {
					console_error("counter", "no %s placement of %u threads",
						      place_name((enum place_how)pl), counts[i]);
					continue;
				}
				fmt_snprintf(name, sizeof(name), "%s %u threads %s", layout_names[l], counts[i],
					     same[i] ? "compact = scatter" : place_name((enum place_how)pl));
				cfg_of(ctx, C_SWEEP, (enum layout)l, counts[i], pl, same[i], name, &cfg, &cost);
				calibrate(ctx, name, &cost, (enum layout)l, &set, l == SHARED_ATOMIC ? calib * counts[i] : calib);
				wl_add(p, C_SWEEP, &cfg, &cost);
			}
	item_set(ctx, C_BASE, 1, 0, &set);
	cfg_of(ctx, C_BASE, PACKED, 1, 0, false, "packed 1 thread (the pairs' base)", &cfg, &cost);
	calibrate(ctx, cfg.name, &cost, PACKED, &set, calib);
	wl_add(p, C_BASE, &cfg, &cost);
	/* The pairs, each relation this machine lacks absent in its place; the
	 * farthest present one is in the least form. */
	int farthest = -1;
	for (unsigned i = 0; i < ARRAY_SIZE(pair_rels); i++)
		if (item_set(ctx, C_PAIR, 2, pair_rels[i], &set))
			farthest = (int)i;
	for (unsigned i = 0; i < ARRAY_SIZE(pair_rels); i++) {
		char pn[24];
		pair_name(pn, sizeof(pn), pair_rels[i]);
		fmt_snprintf(name, sizeof(name), "packed %s", pn);
		cfg_of(ctx, C_PAIR, PACKED, 2, pair_rels[i], false, name, &cfg, &cost);
		if (!item_set(ctx, C_PAIR, 2, pair_rels[i], &set)) {
			wl_absent(p, C_PAIR, &cfg, place_pair_missing_reason(pair_rels[i]));
			continue;
		}
		cost.essential = (int)i == farthest;
		calibrate(ctx, name, &cost, PACKED, &set, calib);
		wl_add(p, C_PAIR, &cfg, &cost);
	}
	counter_matrix_plan(ctx, p, C_MATRIX, CG_MATRIX, wanted_iters(ctx));
}

static bool counter_setup(const struct wl_ctx *ctx, const char **why)
{
	(void)why;
	memset(cbuf, 0, sizeof(cbuf)); /* present before it is asked where it is */
	memset(base, 0, sizeof(base));
	pair_base = 0;
	kprintf("counter: up to %llu increments per thread (shared-atomic: in all), repetitions as planned, flush=%s, "
		"counters on node %d\n", (unsigned long long)wanted_iters(ctx), wl_flush_name(ctx), pmm_node_of_ptr(cbuf));
	kprintf("  %-10s %-20s %-15s %10s %9s\n", "threads", "layout", "placement", tsc_hz() ? "ns/inc" : "ticks/inc",
		"slowdown");
	kprintf("  (each figure is the median of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	return true;
}

/* A sweep configuration, a pair, or the pairs' base (a reference: no result of its own). */
static void layout_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	const struct counter_cfg *f = WL_OWN_CONST(wl_cfg(c), struct counter_cfg);
	enum counter_row k = (enum counter_row)f->row;
	enum layout l = (enum layout)f->layout;
	char placement[24];
	placement_of(f, placement, sizeof(placement));
	if (k == C_BASE)
		kprintf("\n  pairs, packed layout, 2 threads:\n");
	if (!item_set(ctx, k, f->threads, f->how, &set)) {
		if (k != C_BASE)
			wl_result_skip(c, layout_names[l], "the placement is gone (CPUs lost since the plan)");
		return;
	}
	measure(c, l, &set);
	if (k == C_SWEEP && f->threads == 1 && f->how == PLACE_COMPACT)
		base[l] = out.ok ? out.tpi : 0;
	if (k == C_BASE) {
		pair_base = out.ok ? out.tpi : 0;
		return; /* the pairs' reference, as the seed's table: not a row of its own */
	}
	double b = k == C_PAIR ? pair_base : base[l];
	report(c, l, &set, placement, f->same, b);
	if (k == C_SWEEP && f->how == PLACE_COMPACT && b > 0 && out.ok && f->threads >= top_threads) {
		top_pct[l] = 100.0 * out.tpi / b;
		top_threads = f->threads;
	}
	char th[24];
	if (k == C_PAIR)
		fmt_snprintf(th, sizeof(th), "%u,%u", set.cpu[0], set.cpu[1]);
	else
		fmt_snprintf(th, sizeof(th), "%u", f->threads);
	table_row(th, l, f->same ? "compact=scatter" : placement, b);
}

static void counter_finish(const struct wl_ctx *ctx)
{
	(void)ctx;
	console_summary("counter    %u threads vs 1: packed %.0f%%, padded %.0f%%, array-packed %.0f%%, "
			"array-header %.0f%%, array-header-padded %.0f%%, shared-atomic %.0f%%", top_threads,
			top_pct[PACKED], top_pct[PADDED], top_pct[ARRAY_PACKED], top_pct[ARRAY_HEADER],
			top_pct[ARRAY_HEADER_PADDED], top_pct[SHARED_ATOMIC]);
	memset(top_pct, 0, sizeof(top_pct));
	top_threads = 0;
}

static const struct wl_kind counter_kinds[C_ROWS] = {
	[C_SWEEP] = { .name = "sweep", .measures = "P threads increment their own counter in one layout, placed compact or scatter",
		      .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_REPS, .run = layout_run, .params = placement_params },
	[C_BASE] = { .name = "base", .measures = "packed, 1 thread: the pairs' reference (no result of its own)",
		     .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_REPS, .variants = WL_NO_RESULT, .run = layout_run },
	[C_PAIR] = { .name = "pair", .measures = "packed, 2 threads of one topology relation",
		     .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_REPS, .run = layout_run, .params = placement_params },
	[C_MATRIX] = { .name = "matrix", .measures = "the packed pair cost for every pair of a CPU sample",
		       .unit = PLAN_UNIT_PAIRS, .stop = WL_STOP_STEPS, .variants = WL_NO_RESULT, .run = counter_matrix_run },
};
const struct workload wl_counter = {
	.name = "counter",
	.summary = "false sharing: per-CPU counters packed, padded, behind an array header, or shared",
	.counters = PMU_GOAL_COHERENCE,
	.groups = counter_groups,
	.kinds = counter_kinds,
	.n_kinds = C_ROWS,
	.plan = counter_plan,
	.setup = counter_setup,
	.finish = counter_finish,
};
