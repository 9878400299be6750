/* noise_run.c - how quiet each CPU is: every online CPU spins reading the TSC at once for a planned time, and each gap between two reads far longer than the loop's own minimum iteration is counted, timed and, when long, attributed (kernel/measure/gaps.h; after rtla's hwnoise and osnoise, and the FWQ/FTQ benchmarks).
 *
 * A plan unit is a millisecond of spinning: about a second in the quick
 * profile, a fair share of the budget in the full one (60 s asked, short
 * below 10 s). The calibration times GAPS_MIN_ITERS iterations on every
 * CPU; each CPU's minimum iteration is its own 1st percentile (of the
 * iterations that advanced the clock: a TSC that moves in steps reads the
 * same value twice, and an emulator's TSC now and then reads a tick apart),
 * and its threshold GAPS_FACTOR times it: a hybrid or mixed-clock machine's
 * slower CPUs are judged by their own loop, not the fastest CPU's. The
 * least of them is the run's histogram's base. Each CPU then times its own
 * bookkeeping (gaps_book_time) with its counters open, before it spins. */
#include "registry.h"
#include "noise_run.h"
#include "console.h"
#include "disturb.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "report.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define UNIT_S 0.001                   /* a plan unit: one millisecond of spinning */
#define QUICK_MS 1000                  /* the quick profile: about a second */
#define FULL_MS 60000                  /* the full profile asks a minute, and gets its share */
#define LEAST_MS 100                   /* the fit's least: a tenth of a second */
#define REC_BYTES_EXTRA 2500           /* the result record beyond WL_RESULT_BYTES (the twin's about 3300 bytes) and its lines */
#define REC_BYTES_PER_CPU 480          /* a noise_cpu record and its text line (the twin's about 450 bytes) */

/* ---- Types ---------------------------------------------------------------- */
struct job {
	struct noise_run *nr;
	bool min_only;                 /* calibration: only time the loop's iterations */
	uint64_t p1[QB_MAX_CPUS];      /* per thread, when min_only: the 1st percentile of its iterations */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct job job;
static struct noise_run the_run;
static uint64_t calib_min, calib_max;  /* the least and greatest CPU's minimum iteration (0: none), this run's */

/* ---- Private Functions ---------------------------------------------------- */
static void spin_fn(const struct run_thread *t)
{
	struct job *j = t->arg;
	struct gaps_ops ops = { 0, 0, 0, 0 };  /* the fenced TSC; counters below */
	if (j->min_only) {
		struct gaps_loop l;
		gaps_loop_time(&ops, GAPS_MIN_ITERS, &l);
		j->p1[t->index] = l.p1;
		return;
	}
	struct noise_run *nr = j->nr;
	struct gaps_cpu g;                     /* on this CPU's own stack: no line shared while it spins */
	struct gaps_cfg cfg = nr->cfg;
	gaps_setup_cpu(&cfg, j->p1[t->index]); /* this CPU's own minimum, from the calibration */
	ops.counts = disturb_read;
	ops.mask = disturb_open();
	gaps_book_time(&cfg, &ops);            /* its bookkeeping, with its counters open */
	cfg.end = MIN(tsc_start() + nr->ticks, t->deadline); /* never past the run's bound: ppm is per time observed */
	gaps_spin(&g, &cfg, &ops);
	disturb_close();
	nr->cpu[t->index] = g;
	nr->mask[t->index] = ops.mask;
	gaps_merge(nr->hist, &g, cfg.hist_n);
}

/* What each thread gets for n threads: pages of workload memory, or false. */
static bool alloc(struct noise_run *nr, uint32_t n, uint64_t *phys, uint64_t *pages)
{
	uint64_t bytes = (uint64_t)n * (sizeof(struct gaps_cpu) + sizeof(uint32_t) + 2 * sizeof(uint64_t));
	*pages = ALIGN_UP(bytes, PMM_PAGE) / PMM_PAGE;
	*phys = pmm_alloc(*pages, PMM_ANY_NODE, PMM_PAGE, 0, PMM_WORKLOAD);
	if (!*phys)
		return false;
	uint8_t *p = (uint8_t *)(uintptr_t)*phys;
	nr->cpu = (struct gaps_cpu *)p;
	nr->scratch = (uint64_t *)(p + (uint64_t)n * sizeof(struct gaps_cpu));
	nr->mask = (uint32_t *)(nr->scratch + 2 * (uint64_t)n);
	return true;
}

/* The run's settings from the calibration: attribution, rtla's thresholds, buckets. */
static void setup(struct noise_run *nr, const struct wl_ctx *ctx, uint64_t units)
{
	uint64_t hz = tsc_hz();
	nr->set = ctx->online;
	nr->seconds = (double)units * UNIT_S;
	nr->ticks = (uint64_t)(nr->seconds * (double)hz);
	nr->attr_ns = ctx->noise_attr_ns ? ctx->noise_attr_ns : GAPS_ATTR_NS_DEFAULT;
	gaps_setup(&nr->cfg, calib_min, nr->attr_ns, hz);
	memset(nr->hist, 0, sizeof(nr->hist));
}

/* Every CPU's minimum iteration (job.p1), the least and greatest of them;
 * false when the loop could not be timed. */
static bool time_minimum(const struct wl_ctx *ctx)
{
	job.min_only = true;
	calib_min = calib_max = 0;
	if (!tsc_hz() || run_on(ctx->online, spin_fn, &job, 0, WL_CALIB_TIMEOUT_MS, 0) != RUN_OK)
		return false;
	for (uint32_t t = 0; t < ctx->online->n; t++) {
		calib_min = t == 0 ? job.p1[t] : MIN(calib_min, job.p1[t]);
		calib_max = MAX(calib_max, job.p1[t]);
	}
	return calib_min > 0;
}

/* ---- The workload's table --------------------------------------------------- */
/* One configuration: every CPU spins for its share; the run's wall time is
 * what a run costs besides its loop. */
static void noise_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	struct wl_cfg cfg = { .name = "tsc-gaps, every CPU" };
	struct wl_cost cost = {
		.essential = true,
		.want_units = ctx->quick ? QUICK_MS : FULL_MS,
		.unit_s = UNIT_S, /* by construction: the loop stops at its planned TSC */
		.out_bytes = REC_BYTES_EXTRA + REC_BYTES_PER_CPU * ctx->online->n,
	};
	cost.min_units = MIN((uint64_t)LEAST_MS, cost.want_units);
	uint64_t t0 = tsc_read();
	if (!time_minimum(ctx))
		console_error("noise", "calibration failed: the loop's minimum iteration is unknown");
	else
		cost.rep_fixed_s = tsc_seconds(tsc_read() - t0); /* GAPS_MIN_ITERS iterations: microseconds of it */
	wl_add(p, 0, &cfg, &cost);
}

/* The loop's minimum on every CPU again, now (each CPU's threshold), and the per-CPU results' memory. */
static uint64_t results_phys, results_pages;
static bool loop_setup(const struct wl_ctx *ctx, const char **why)
{
	if (!time_minimum(ctx)) {
		*why = "the calibration could not time the loop";
		return false;
	}
	if (!alloc(&the_run, ctx->online->n, &results_phys, &results_pages)) {
		*why = "no memory for the per-CPU results";
		return false;
	}
	return true;
}

static void loop_teardown(const struct wl_ctx *ctx)
{
	(void)ctx;
	pmm_free(results_phys, results_pages, PMM_WORKLOAD);
}

static void loop_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	struct noise_run *nr = &the_run;
	setup(nr, ctx, wl_units(c));
	char mins[48];
	fmt_snprintf(mins, sizeof(mins), calib_min == calib_max ? "%llu ticks" : "%llu to %llu ticks",
		     (unsigned long long)calib_min, (unsigned long long)calib_max);
	kprintf("noise: %u CPUs spin reading the TSC for %.1f s; a gap is %u x the CPU's own fastest iteration (%s) or "
		"more; rtla's 1 us and 5 us are counted beside\n", ctx->online->n, nr->seconds, GAPS_FACTOR, mins);
	job.min_only = false;
	job.nr = nr;
	struct reps *log = reps_begin(ctx->online->n);
	enum run_status s = run_on(ctx->online, spin_fn, &job, 0, wl_bound_ms(c), 0);
	const struct run_result *res = run_last();
	if (s == RUN_OK) {
		uint64_t *ticks = nr->scratch;  /* free until the report: reps_add keeps its own copy */
		for (uint32_t t = 0; t < res->n; t++)
			ticks[t] = res->end[t] - res->start[t];
		reps_add(log, ticks, res->instr); /* the run's noise and clock, as one repetition */
	}
	noise_report(c, nr, log, s == RUN_OK, s == RUN_OK ? 0 : run_status_name(s));
}

/* A loop that did not run: the run's last line says why. */
static void loop_skipped(const struct wl_ctx *ctx, const struct wl_cfg *cfg, const char *why)
{
	(void)ctx;
	(void)cfg;
	noise_not_measured(why);
}

static const char *const loop_variants[] = { "tsc-gaps", 0 };
static const struct wl_kind noise_kinds[] = {
	{ .name = "tsc-gaps", .measures = "every CPU spins reading the TSC: each gap, how long, what caused it",
	  .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_ONCE, .variants = loop_variants, .all_cpus = true,
	  .run = loop_run, .setup = loop_setup, .teardown = loop_teardown, .skipped = loop_skipped },
};
const struct workload wl_noise = {
	.name = "noise",
	.summary = "every CPU spins reading the TSC: each gap, the time lost, the longest, what caused it",
	.counters = PMU_GOAL_COUNT,
	.kinds = noise_kinds,
	.n_kinds = ARRAY_SIZE(noise_kinds),
	.plan = noise_plan,
};
