/* counter.c - false sharing, after Joe Duffy's counter experiment (shared/seeds/004): P CPUs each increment their own counter.
 *
 * Layouts (variants), each named after the seed's case:
 *   packed               8-byte counters side by side, 8 per line (the plain struct)
 *   padded               one counter per 128-byte block (FieldOffset(128)), clear of the adjacent-line prefetcher
 *   array-header         padded counters, but each increment first reads a length word on counter 0's line (CLR array bounds check)
 *   array-header-padded  the same with the length word alone on its line (the seed's fix)
 *   shared-atomic        every CPU does LOCK XADD on one counter: true sharing, the reference
 * Thread counts 1, 2, 4, ... all; placements compact and scatter; one pair per
 * topology relation; and a core-to-core matrix of the packed pair cost. */
#include "workload.h"
#include "console.h"
#include "counter_loops.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "placement.h"
#include "report.h"
#include "reps.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FULL_ITERS ((1ull << 31) / 4) /* the seed's int.MaxValue / 4 */
#define QUICK_ITERS 20000ull
#define BLOCK_WORDS 16                /* 128 bytes: one padded block */
#define MATRIX_MAX_CPUS 64            /* above this the matrix samples CPUs evenly */
#define QUICK_MATRIX_REPS 2
#define MAX_COUNTS 16                 /* thread counts in a sweep (2^15 > QB_MAX_CPUS) */

enum layout { PACKED, PADDED, ARRAY_HEADER, ARRAY_HEADER_PADDED, SHARED_ATOMIC, N_LAYOUTS };

static const char *const layout_names[N_LAYOUTS] = {
	[PACKED] = "packed",
	[PADDED] = "padded",
	[ARRAY_HEADER] = "array-header",
	[ARRAY_HEADER_PADDED] = "array-header-padded",
	[SHARED_ATOMIC] = "shared-atomic",
};

/* ---- Types ---------------------------------------------------------------- */
struct counter_job {
	enum layout layout;
	uint64_t iters;
	volatile uint64_t *counter[QB_MAX_CPUS]; /* thread t's counter */
	volatile uint64_t *header;               /* array length word (array-header variants) */
	uint64_t index[QB_MAX_CPUS];             /* thread t's array index (array-header variants) */
	uint64_t ticks[QB_MAX_CPUS];             /* thread t's loop time, this repetition */
	uint64_t done[QB_MAX_CPUS];              /* increments thread t actually made */
};

/* One configuration's measurements. */
struct counter_outcome {
	bool ok;
	const char *why;
	uint32_t n;
	struct reps *reps;                       /* the repetitions: slowest thread, noise, counters */
	double tpi;                              /* median slowest ticks per increment */
	double thread_tpi[QB_MAX_CPUS];          /* median per thread, per increment */
};

/* ---- Private Variables ---------------------------------------------------- */
/* Counters live in their own aligned block of kernel data, well away from code. */
static uint64_t cbuf[(QB_MAX_CPUS + 2) * BLOCK_WORDS] __attribute__((aligned(4096)));
static struct counter_job job;
static struct counter_outcome out;
static struct run_result res;
static double top_pct[N_LAYOUTS];            /* slowdown at the most threads, compact */
static uint32_t top_threads;
static double matrix[MATRIX_MAX_CPUS][MATRIX_MAX_CPUS];
static struct cpuset set;

/* ---- Private Functions ---------------------------------------------------- */
static void counter_thread(const struct run_thread *t)
{
	struct counter_job *j = t->arg;
	volatile uint64_t *c = j->counter[t->index];
	uint64_t n = j->iters, made;
	uint64_t s = tsc_start();
	switch (j->layout) {
	case ARRAY_HEADER:
	case ARRAY_HEADER_PADDED:
		made = counter_inc_checked(j->header + 1, j->header, j->index[t->index], n);
		break;
	case SHARED_ATOMIC:
		made = counter_inc_atomic(c, n);
		break;
	default:
		made = counter_inc_plain(c, n);
		break;
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
	if (job.header)
		*job.header = (uint64_t)(n + 1) * BLOCK_WORDS; /* the array's length */
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

/* Warm-up plus reps timed repetitions of one configuration. */
static void measure(const struct wl_ctx *ctx, enum layout l, const struct cpuset *s, uint64_t iters,
		    uint32_t reps)
{
	uint32_t n = s->n;
	out.ok = true;
	out.why = 0;
	out.n = n;
	job.iters = iters;
	out.reps = reps_begin(n);
	reps = MIN(reps, (uint32_t)REPS_MAX);
	for (uint32_t r = 0; r <= reps; r++) {
		lay_out(l, n);
		enum run_status st = run_on(s, counter_thread, &job, ctx->flush ? RUN_FLUSH : 0,
					    ctx->timeout_ms, &res);
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
			reps_add(out.reps, job.ticks, res.instr);
	}
	out.tpi = iters ? reps_stats(out.reps)->median / (double)iters : 0;
	for (uint32_t t = 0; t < n; t++)
		out.thread_tpi[t] = iters ? reps_thread_median(out.reps, t) / (double)iters : 0;
}

/* The result record: statistics of the slowest thread, each thread, spread and slowdown. */
static void report(const struct wl_ctx *ctx, enum layout l, const struct cpuset *s, const char *placement,
		   uint64_t iters, double base_tpi)
{
	struct rec *r = report_result_open("counter", layout_names[l], s);
	rec_obj_begin(r, "params");
	rec_u64(r, "iters", iters);
	rec_str(r, "placement", placement);
	rec_str(r, "flush", wl_flush_name(ctx));
	rec_obj_end(r);
	reps_report(r, out.reps);
	rec_f64(r, "ticks_per_increment", out.tpi, 3);
	rec_arr_begin(r, "thread_ticks_per_increment");
	double lo = 0, hi = 0;
	for (uint32_t t = 0; t < out.n; t++) {
		rec_f64(r, 0, out.thread_tpi[t], 3);
		lo = t ? MIN(lo, out.thread_tpi[t]) : out.thread_tpi[t];
		hi = t ? MAX(hi, out.thread_tpi[t]) : out.thread_tpi[t];
	}
	rec_arr_end(r);
	rec_f64(r, "spread_ticks_per_increment", hi - lo, 3);
	if (base_tpi > 0)
		rec_f64(r, "slowdown_pct", 100.0 * out.tpi / base_tpi, 1);
	else
		rec_null(r, "slowdown_pct");
	report_result_close(r, out.ok ? "ok" : "fail", out.ok ? 0 : out.why);
}

static void table_row(const char *threads_or_pair, const char *layout, const char *placement, double base_tpi)
{
	if (base_tpi > 0)
		kprintf("  %-10s %-20s %-12s %10.3f %8.0f%%%s\n", threads_or_pair, layout, placement, out.tpi,
			100.0 * out.tpi / base_tpi, out.ok ? "" : "  CHECK FAILED");
	else
		kprintf("  %-10s %-20s %-12s %10.3f %9s%s\n", threads_or_pair, layout, placement, out.tpi, "-",
			out.ok ? "" : "  CHECK FAILED");
}

/* Layouts x thread counts x placements, as the seed's first two tables. */
static void sweep(const struct wl_ctx *ctx, uint64_t iters)
{
	uint32_t counts[MAX_COUNTS];
	uint32_t nc = place_thread_counts(ctx->topo->ncpu, counts, MAX_COUNTS);
	uint32_t total = N_LAYOUTS * nc * 2, k = 0;
	kprintf("  %-10s %-20s %-12s %10s %9s\n", "threads", "layout", "placement", "ticks/inc", "slowdown");
	for (unsigned l = 0; l < N_LAYOUTS; l++) {
		double base = 0;
		for (uint32_t i = 0; i < nc; i++) {
			for (unsigned p = 0; p < 2; p++) {
				k++;
				if (!place_set(ctx->topo, ctx->cpu_of_topo, (enum place_kind)p, counts[i], &set)) {
					console_error("counter", "no placement of %u threads", counts[i]);
					continue;
				}
				measure(ctx, (enum layout)l, &set, iters, ctx->reps);
				if (counts[i] == 1 && p == PLACE_COMPACT)
					base = out.tpi;
				report(ctx, (enum layout)l, &set, place_name((enum place_kind)p), iters, base);
				if (i == nc - 1 && p == PLACE_COMPACT && base > 0) {
					top_pct[l] = 100.0 * out.tpi / base;
					top_threads = counts[i];
				}
				char th[16];
				fmt_snprintf(th, sizeof(th), "%u", counts[i]);
				table_row(th, layout_names[l], place_name((enum place_kind)p), base);
			}
		}
		kprintf("  (configuration %u of %u)\n", k, total);
	}
}

/* The seed's "same L1 / same L2 / separate sockets" table: one packed pair per relation. */
static void pairs(const struct wl_ctx *ctx, uint64_t iters, double base_tpi)
{
	static const enum topo_rel rels[] = { TOPO_REL_SMT, TOPO_REL_L2, TOPO_REL_L3, TOPO_REL_PACKAGE,
					      TOPO_REL_REMOTE };
	kprintf("\n  pairs, packed layout, 2 threads:\n");
	for (unsigned i = 0; i < ARRAY_SIZE(rels); i++) {
		char placement[24];
		fmt_snprintf(placement, sizeof(placement), "pair-%s", topo_rel_name(rels[i]));
		if (!place_pair(ctx->topo, ctx->cpu_of_topo, rels[i], &set)) {
			struct rec *r = report_result_open("counter", "packed", 0);
			rec_obj_begin(r, "params");
			rec_str(r, "placement", placement);
			rec_obj_end(r);
			report_result_close(r, "skipped", place_pair_missing_reason(rels[i]));
			kprintf("  %-10s skipped: %s\n", placement, place_pair_missing_reason(rels[i]));
			continue;
		}
		measure(ctx, PACKED, &set, iters, ctx->reps);
		report(ctx, PACKED, &set, placement, iters, base_tpi);
		char cpus[24];
		fmt_snprintf(cpus, sizeof(cpus), "%u,%u", set.cpu[0], set.cpu[1]);
		table_row(cpus, "packed", placement, base_tpi);
	}
}

/* Core-to-core: the packed two-thread cost for every pair of (sampled) CPUs. */
static void core_to_core(const struct wl_ctx *ctx, uint64_t iters)
{
	uint32_t pick[MATRIX_MAX_CPUS];
	uint32_t n = place_sample(ctx->topo->ncpu, MATRIX_MAX_CPUS, pick);
	uint32_t reps = ctx->quick ? MIN(ctx->reps, (uint32_t)QUICK_MATRIX_REPS) : ctx->reps;
	bool ok = true;
	uint32_t pairs_total = n * (n - 1) / 2, k = 0;
	kprintf("\n  core-to-core matrix: %u CPUs, %u pairs\n", n, pairs_total);
	for (uint32_t i = 0; i < n; i++) {
		matrix[i][i] = -1;
		for (uint32_t j = i + 1; j < n; j++) {
			set.n = 2;
			set.cpu[0] = ctx->cpu_of_topo[pick[i]];
			set.cpu[1] = ctx->cpu_of_topo[pick[j]];
			measure(ctx, PACKED, &set, iters, reps);
			ok &= out.ok;
			matrix[i][j] = matrix[j][i] = out.ok ? out.tpi : -1;
			if (++k % 16 == 0 || k == pairs_total)
				kprintf("  (pair %u of %u)\n", k, pairs_total);
		}
	}
	struct rec *r = console_rec_open("matrix");
	rec_str(r, "workload", "counter");
	rec_str(r, "variant", "packed");
	rec_str(r, "unit", "ticks_per_increment");
	rec_u64(r, "iters", iters);
	rec_u64(r, "reps", reps);
	rec_arr_begin(r, "cpus");
	for (uint32_t i = 0; i < n; i++)
		rec_u64(r, 0, ctx->cpu_of_topo[pick[i]]);
	rec_arr_end(r);
	rec_arr_begin(r, "values");
	for (uint32_t i = 0; i < n; i++) {
		rec_arr_begin(r, 0);
		for (uint32_t j = 0; j < n; j++) {
			if (matrix[i][j] < 0)
				rec_null(r, 0);
			else
				rec_f64(r, 0, matrix[i][j], 3);
		}
		rec_arr_end(r);
	}
	rec_arr_end(r);
	rec_str(r, "check", ok ? "ok" : "fail");
	console_rec_emit(r);
	if (!ok)
		finish_mark_failed("counter: a matrix pair failed its check");
}

/* ---- Public Functions ----------------------------------------------------- */
void counter_run(const struct wl_ctx *ctx)
{
	uint64_t iters = ctx->iters ? ctx->iters : ctx->quick ? QUICK_ITERS : FULL_ITERS;
	kprintf("counter: %llu increments per thread, %u repetitions, flush=%s\n", (unsigned long long)iters,
		ctx->reps, wl_flush_name(ctx));
	sweep(ctx, iters);
	/* The pairs compare against one packed thread, as the seed's table does. */
	set.n = 1;
	set.cpu[0] = ctx->cpu_of_topo[0];
	measure(ctx, PACKED, &set, iters, ctx->reps);
	pairs(ctx, iters, out.tpi);
	if (ctx->topo->ncpu >= 2)
		core_to_core(ctx, iters);
	console_summary("counter    %u threads vs 1: packed %.0f%%, padded %.0f%%, array-header %.0f%%, "
			"array-header-padded %.0f%%, shared-atomic %.0f%%", top_threads, top_pct[PACKED],
			top_pct[PADDED], top_pct[ARRAY_HEADER], top_pct[ARRAY_HEADER_PADDED], top_pct[SHARED_ATOMIC]);
}
