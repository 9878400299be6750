/* counter_matrix.c - counter's core-to-core matrix: the packed two-thread cost for every pair of an even sample of the CPUs; see counter.h. */
#include "counter.h"
#include "console.h"
#include "finish.h"
#include "lib.h"
#include "placement.h"
#include "pmm.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define MATRIX_ITERS (1ull << 18)     /* per pair: enough for a stable per-increment cost */
#define MATRIX_REPS 5
#define QUICK_MATRIX_REPS 2
#define MATRIX_MIN_CPUS 8             /* a sample smaller than this shows no structure */
#define MATRIX_INLINE_CPUS 64         /* larger matrices go out a row per record */
#define CALIB_ITERS 20000ull
#define MATRIX_BYTES_PER_PAIR 18      /* two numbers of the matrix and their share of text */

/* The matrix's configuration: increments per pair. */
struct matrix_cfg {
	uint64_t iters;
};

/* ---- Private Variables ---------------------------------------------------- */
static float small_matrix[MATRIX_INLINE_CPUS * MATRIX_INLINE_CPUS];
static struct cpuset set;

/* ---- Private Functions ---------------------------------------------------- */
/* The CPUs a matrix of `pairs` pairs covers: the most whose pairs fit. */
static uint32_t matrix_cpus(uint64_t pairs, uint32_t ncpu)
{
	uint32_t k = 2;
	while (k < ncpu && (uint64_t)(k + 1) * k / 2 <= pairs)
		k++;
	return MIN(k, ncpu);
}

static uint32_t matrix_reps(const struct wl_ctx *ctx)
{
	return ctx->quick ? MIN(ctx->reps, (uint32_t)QUICK_MATRIX_REPS) : MATRIX_REPS;
}

static uint64_t matrix_iters(uint64_t iters)
{
	return MIN(iters, MATRIX_ITERS);
}

/* ---- Public Functions ----------------------------------------------------- */
void counter_matrix_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	uint64_t iters = WL_OWN_CONST(wl_cfg(c), struct matrix_cfg)->iters;
	static uint32_t pick[QB_MAX_CPUS];
	uint32_t ncpu = ctx->topo->ncpu;
	uint32_t n = place_sample(ncpu, matrix_cpus(wl_units(c), ncpu), pick);
	bool sampled = n < ncpu;
	uint32_t reps = matrix_reps(ctx);
	float *m = small_matrix;
	uint64_t bytes = (uint64_t)n * n * sizeof(float), phys = 0;
	if (n > MATRIX_INLINE_CPUS) {
		phys = pmm_alloc(ALIGN_UP(bytes, 4096) / 4096, PMM_ANY_NODE, 4096, 0, PMM_WORKLOAD);
		if (!phys) {
			console_error("counter", "no memory for a %u x %u matrix", n, n);
			return;
		}
		m = (float *)(uintptr_t)phys;
	}
	bool ok = true, more = true;
	uint32_t pairs_total = n * (n - 1) / 2, overruns = 0, measured = 0;
	kprintf("\n  core-to-core matrix: %u of %u CPUs%s, %u pairs, %llu increments x %u repetitions each\n", n,
		ncpu, sampled ? " (an even sample)" : "", pairs_total, (unsigned long long)iters, reps);
	for (uint32_t i = 0; i < n; i++) {
		m[i * n + i] = -1;
		for (uint32_t j = i + 1; j < n; j++) {
			m[i * n + j] = m[j * n + i] = -1;
			if (more && !wl_step(c))
				more = false; /* its deadline: the pairs left stay null */
			if (!more)
				continue;
			set.n = 2;
			set.cpu[0] = ctx->cpu_of_topo[pick[i]];
			set.cpu[1] = ctx->cpu_of_topo[pick[j]];
			double tpi;
			bool over;
			bool good = counter_pair(wl_inner(c, ctx, iters, reps), &set, &tpi, &over);
			ok &= good || over;
			overruns += over;
			measured++;
			m[i * n + j] = m[j * n + i] = good ? (float)tpi : -1;
		}
	}
	struct rec *r = console_rec_open("matrix");
	rec_str(r, "workload", "counter");
	rec_str(r, "variant", "packed");
	rec_str(r, "unit", "ticks_per_increment");
	rec_u64(r, "iters", iters);
	rec_u64(r, "reps", reps);
	rec_bool(r, "sampled", sampled);
	rec_u64(r, "cpus_in_machine", ncpu);
	rec_u64(r, "pairs", pairs_total);
	rec_u64(r, "pairs_measured", measured);
	if (overruns)
		rec_u64(r, "overrun_pairs", overruns);
	wl_fields(c, r); /* planned_s and measured_s */
	rec_arr_begin(r, "cpus");
	for (uint32_t i = 0; i < n; i++)
		rec_u64(r, 0, ctx->cpu_of_topo[pick[i]]);
	rec_arr_end(r);
	bool inline_values = n <= MATRIX_INLINE_CPUS;
	if (inline_values) {
		rec_arr_begin(r, "values");
		for (uint32_t i = 0; i < n; i++) {
			rec_arr_begin(r, 0);
			for (uint32_t j = 0; j < n; j++) {
				if (m[i * n + j] < 0)
					rec_null(r, 0);
				else
					rec_f64(r, 0, m[i * n + j], 3);
			}
			rec_arr_end(r);
		}
		rec_arr_end(r);
	} else {
		rec_u64(r, "rows", n); /* the values follow, one matrix_row record per row */
	}
	wl_record_close(c, r, ok ? WL_OK : WL_ERR_FAIL, ok ? 0 : "a pair failed its check");
	for (uint32_t i = 0; !inline_values && i < n; i++) {
		r = console_rec_open("matrix_row");
		rec_str(r, "workload", "counter");
		rec_str(r, "variant", "packed");
		rec_u64(r, "row", i);
		rec_arr_begin(r, "values");
		for (uint32_t j = 0; j < n; j++) {
			if (m[i * n + j] < 0)
				rec_null(r, 0);
			else
				rec_f64(r, 0, m[i * n + j], 3);
		}
		rec_arr_end(r);
		console_rec_emit(r);
	}
	if (phys)
		pmm_free(phys, ALIGN_UP(bytes, 4096) / 4096, PMM_WORKLOAD);
	if (!ok)
		finish_mark_failed("counter: a matrix pair failed its check");
}

void counter_matrix_plan(const struct wl_ctx *ctx, struct wl_plan *p, unsigned kind, uint8_t group,
			 uint64_t want_iters)
{
	uint32_t ncpu = ctx->topo->ncpu;
	if (ncpu < 2)
		return;
	/* The matrix: a unit is one pair, measured reps times with its own iterations.
	 * Timed on the machine's two farthest CPUs (the first and the last). */
	uint64_t mi = matrix_iters(want_iters);
	struct wl_cfg cfg = { .name = "core-to-core matrix, packed pairs" }; /* a matrix record: no result */
	WL_OWN(&cfg, struct matrix_cfg)->iters = mi;
	uint32_t kmin = MIN(ncpu, (uint32_t)MATRIX_MIN_CPUS);
	struct wl_cost cost = {
		.group = group,
		.want_units = (uint64_t)ncpu * (ncpu - 1) / 2,
		.min_units = (uint64_t)kmin * (kmin - 1) / 2,
		.out_bytes = WL_RESULT_BYTES, /* the matrix record is not a result: printed as one */
		.out_per_unit = MATRIX_BYTES_PER_PAIR,
	};
	set.n = 2;
	set.cpu[0] = ctx->cpu_of_topo[0];
	set.cpu[1] = ctx->cpu_of_topo[ncpu - 1];
	double fixed, spread;
	double per_inc = counter_pair_per_unit(ctx, &set, MIN(mi, CALIB_ITERS), mi, &fixed, &spread);
	cost.unit_s = (matrix_reps(ctx) + 1) * ((double)mi * per_inc + fixed);
	cost.unit_spread_s = (matrix_reps(ctx) + 1) * (double)mi * spread;
	wl_add(p, kind, &cfg, &cost);
}
