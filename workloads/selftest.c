/* selftest.c - the end-to-end proof of the workload API: every CPU increments its own padded slot.
 *
 * Each repetition flushes (WBINVD on each participant), releases all CPUs
 * from one barrier, and times each thread with the serialised TSC. The check
 * compares every slot with the count it must have reached. */
#include "registry.h"
#include "workload.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "report.h"
#include "reps.h"
#include "stats.h"
#include "tsc.h"

#define SLOT_BYTES 128            /* two lines: clear of the adjacent-line prefetcher */
#define QUICK_ITERS 1000000ull
#define FULL_ITERS 100000000ull
/* A lower-half address the kernel never maps (PML4 slot 254): reading it page-faults. */
#define UNMAPPED_ADDRESS 0x00007f0000000000ull
#define SELFTEST_HANG 3
#define HANG_BOUND_MS 2000
#define CHUNK 65536               /* increments between looks at the bound */
#define MIN_ITERS 10000ull        /* fewer would time the barrier more than the loop */
#define CALIB_ITERS 100000ull
#define REC_BYTES_PER_CPU 40      /* the CPU lists of its two results, per CPU */

struct slot {
	volatile uint64_t count;
	char pad[SLOT_BYTES - sizeof(uint64_t)];
} __attribute__((aligned(SLOT_BYTES)));

struct selftest_arg {
	bool hang;
	uint64_t iters;
	struct slot *slots;
};

static struct slot slots[QB_MAX_CPUS];
static uint64_t ticks[QB_MAX_CPUS], skew[REPS_MAX], scratch[REPS_MAX];

static void increment(const struct run_thread *t)
{
	struct selftest_arg *a = t->arg;
	if (a->hang && t->index == t->n - 1 && t->n > 1)
		for (;;) /* selftest=hang-ap: never finish; run_on's bound must stop this CPU */
			__asm__ volatile("pause");
	volatile uint64_t *c = &a->slots[t->index].count;
	for (uint64_t done = 0; done < a->iters; done += CHUNK) {
		uint64_t n = MIN(CHUNK, a->iters - done);
		for (uint64_t i = 0; i < n; i++)
			*c = *c + 1;
		if (run_overdue(t)) {
			run_overran(t);
			return;
		}
	}
}

/* One repetition; WL_OK, or what went wrong (why). */
static enum wl_err one_rep(const struct wl_ctx *ctx, struct selftest_arg *a, uint64_t timeout_ms, struct reps *log,
			   uint64_t *sk, const char **why)
{
	for (uint32_t t = 0; t < ctx->online->n; t++)
		slots[t].count = 0;
	if (ctx->flush) /* the slots start in memory on both platforms (docs/timing.md) */
		run_evict_lines(slots, ctx->online->n * sizeof(slots[0]));
	enum run_status s = run_on(ctx->online, increment, a, ctx->flush ? RUN_FLUSH : 0, timeout_ms, 0);
	if (s != RUN_OK) {
		if (s == RUN_OVERRUN) {
			static char reached[96];
			uint64_t least = a->iters;
			for (uint32_t t = 0; t < ctx->online->n; t++)
				least = MIN(least, slots[t].count);
			fmt_snprintf(reached, sizeof(reached), "overrun: stopped at the bound with %llu of %llu increments",
				     (unsigned long long)least, (unsigned long long)a->iters);
			*why = reached;
			return WL_ERR_OVERRUN;
		}
		*why = run_status_name(s);
		return WL_ERR_FAIL;
	}
	for (uint32_t t = 0; t < ctx->online->n; t++) {
		if (slots[t].count != a->iters) {
			*why = "a slot's count is not iters";
			return WL_ERR_FAIL;
		}
	}
	if (log) {
		const struct run_result *res = run_last();
		for (uint32_t t = 0; t < res->n; t++)
			ticks[t] = res->end[t] - res->start[t];
		reps_add(log, ticks, res->instr);
		*sk = res->start_skew;
	}
	return WL_OK;
}

static void touch_unmapped(const struct run_thread *t)
{
	(void)t;
	(void)*(volatile uint64_t *)(uintptr_t)UNMAPPED_ADDRESS;
}

/* selftest=fault-bsp / fault-ap: prove that a fault ends the run cleanly. */
static void raise_fault(const struct wl_ctx *ctx)
{
	static struct cpuset one;
	one.n = 1;
	one.cpu[0] = ctx->online->cpu[ctx->online->n - 1];
	if (ctx->selftest_fault == 1 || ctx->online->n < 2) {
		kprintf("selftest: page fault on the BSP, as asked\n");
		touch_unmapped(0);
	} else {
		kprintf("selftest: page fault on cpu %u, as asked\n", one.cpu[0]);
		run_on(&one, touch_unmapped, 0, 0, HANG_BOUND_MS, 0);
	}
	console_error("selftest", "the requested page fault did not happen");
}

static uint64_t wanted_iters(const struct wl_ctx *ctx)
{
	return ctx->selftest_iters ? ctx->selftest_iters : ctx->quick ? QUICK_ITERS : FULL_ITERS;
}

/* A calibration run (wl_calibrate's): an untimed warm-up, then one timed
 * repetition; its figure the slowest thread's loop, its wall time kept. */
struct calib {
	const struct wl_ctx *ctx;
	double wall_s;
};

static bool calib_run(void *arg, uint64_t units, double *loop_s)
{
	struct calib *cb = arg;
	struct selftest_arg a = { false, units, slots };
	const char *why = 0;
	uint64_t sk;
	struct reps *log = reps_begin(cb->ctx->online->n);
	if (one_rep(cb->ctx, &a, WL_CALIB_TIMEOUT_MS, 0, &sk, &why) != WL_OK) {
		console_error("selftest", "calibration failed: %s", why);
		return false;
	}
	uint64_t w0 = tsc_read();
	if (one_rep(cb->ctx, &a, WL_CALIB_TIMEOUT_MS, log, &sk, &why) != WL_OK) {
		console_error("selftest", "calibration failed: %s", why);
		return false;
	}
	cb->wall_s = tsc_seconds(tsc_read() - w0);
	*loop_s = tsc_seconds((uint64_t)reps_stats(log)->median);
	return true;
}

/* The one configuration: every CPU, wanted_iters increments a repetition. */
static void selftest_plan(const struct wl_ctx *ctx, struct wl_plan *p)
{
	uint64_t want = wanted_iters(ctx);
	struct wl_cfg cfg = { .name = "padded-increment, every CPU" };
	struct wl_cost cost = {
		.essential = true, /* one configuration: it is its own least form */
		.want_units = want,
		.min_units = ctx->selftest_iters ? want : MIN(want, MIN_ITERS), /* what the user set is kept */
		.want_reps = MIN(ctx->reps, (uint32_t)REPS_MAX),
		.out_bytes = REC_BYTES_PER_CPU * ctx->online->n,
	};
	if (ctx->selftest_fault == SELFTEST_HANG) {
		/* One CPU never finishes: nothing to calibrate, the bound is HANG_BOUND_MS. */
		cost.rep_fixed_s = HANG_BOUND_MS / 1000.0;
		wl_add(p, 0, &cfg, &cost);
		return;
	}
	/* Short runs, longer until one lasts WL_CALIB_TARGET_S. */
	struct calib cb = { ctx, 0 };
	double slowest;
	uint64_t units = wl_calibrate(MIN(want, CALIB_ITERS), want, calib_run, &cb, &slowest);
	if (units) {
		cost.unit_s = slowest / (double)units;
		cost.rep_fixed_s = MAX(0.0, cb.wall_s - slowest); /* the flush, barrier and wake-ups around the loop */
	}
	wl_add(p, 0, &cfg, &cost);
}

/* The padded increments on every CPU, then the barrier's start skew. */
static void selftest_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	struct selftest_arg a = { ctx->selftest_fault == SELFTEST_HANG, wl_units(c), slots };
	uint32_t reps = wl_reps(c);
	const char *why = 0;
	enum wl_err err = WL_OK;
	uint32_t n = 0;

	kprintf("selftest: %u CPUs x %llu increments, %u repetitions\n", ctx->online->n,
		(unsigned long long)a.iters, reps);
	struct reps *log = reps_begin(ctx->online->n);
	while (err == WL_OK && wl_rep(c)) { /* the untimed warm-up, then each timed repetition that fits */
		/* selftest=hang-ap: the test should not wait long for the CPU that never finishes. */
		uint64_t bound = a.hang ? HANG_BOUND_MS : wl_bound_ms(c);
		if (wl_timed(c))
			kprintf("  repetition %u of %u\n", n + 1, reps);
		err = one_rep(ctx, &a, bound, wl_timed(c) ? log : 0, &skew[n], &why);
		if (err == WL_OK && wl_timed(c))
			n++;
	}
	struct stats st = *reps_figure(log);
	struct rec *rec = wl_result_open(c, "padded-increment", ctx->online);
	rec_obj_begin(rec, "params");
	rec_u64(rec, "iters", a.iters);
	flushcheck_params(rec, ctx->flush, 0);
	rec_obj_end(rec);
	reps_report(rec, log);
	struct report_measure inc = { "ns_per_increment", "ns/increment", report_ns_scale((double)a.iters), false,
				      LIMIT_INCREMENT_NS, 1 };
	report_measures(rec, &inc, 1);
	if (a.iters && st.n)
		rec_f64(rec, "ticks_per_increment", st.median / (double)a.iters, 3);
	else
		rec_null(rec, "ticks_per_increment");
	wl_result_close(c, rec, err, why);
	double slow_median = st.median;

	/* The barrier itself: how far apart the threads started. */
	stats_compute(skew, n, scratch, &st);
	rec = wl_result_open(c, "start-skew", ctx->online);
	report_stats(rec, "ticks", &st);
	reps_span_figure(rec, &st, 0); /* the skews of the repetitions above: their noise is said below */
	reps_span_samples(rec, skew, n);
	reps_report_noise(rec, log); /* first: its clock gives the measures' cycles */
	struct report_measure ns = { "ns", "ns", report_ns_scale(1), false, LIMIT_NONE, 1 };
	report_measures(rec, &ns, 1);
	wl_result_close(c, rec, err, why); /* the skews of the repetitions kept: short with them */
	bool ok = err == WL_OK;
	double inc_ns = report_measure_value(&inc, slow_median), skew_ns = report_measure_value(&ns, st.median);
	if (inc_ns >= 0 && skew_ns >= 0) {
		kprintf("selftest: %s, %.3f ns per increment (slowest thread), start skew median %.0f ns%s\n",
			ok ? "ok" : "FAIL", inc_ns, skew_ns, log->noisy ? " (noisy: fewer than half clean)" : "");
		console_summary("selftest   %u CPUs, %.2f ns/increment, start skew %.0f ns: %s", ctx->online->n, inc_ns,
				skew_ns, ok ? "ok" : "FAIL");
	} else {
		kprintf("selftest: %s, median %.0f ticks per thread, start skew median %.0f ticks\n",
			ok ? "ok" : "FAIL", slow_median, st.median);
		console_summary("selftest   %u CPUs, %.1f ticks/increment, start skew %.0f ticks: %s", ctx->online->n,
				a.iters ? slow_median / (double)a.iters : 0, st.median, ok ? "ok" : "FAIL");
	}
}

/* selftest=fault-bsp / fault-ap, last: the run must end cleanly after a fault. */
static void selftest_finish(const struct wl_ctx *ctx)
{
	if (ctx->selftest_fault && ctx->selftest_fault != SELFTEST_HANG)
		raise_fault(ctx);
}

/* ---- Public Variables ----------------------------------------------------- */
static const char *const selftest_variants[] = { "padded-increment", "start-skew", 0 };
static const struct wl_kind selftest_kinds[] = {
	{ .name = "padded-increment",
	  .measures = "every CPU increments its own 128-byte slot, released from one barrier; the barrier's start skew",
	  .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_REPS, .variants = selftest_variants, .all_cpus = true,
	  .run = selftest_run },
};
const struct workload wl_selftest = {
	.name = "selftest",
	.summary = "every CPU increments its own padded slot: proves the workload API",
	.counters = PMU_GOAL_CYCLES_INSNS,
	.kinds = selftest_kinds,
	.n_kinds = ARRAY_SIZE(selftest_kinds),
	.plan = selftest_plan,
	.finish = selftest_finish,
};
