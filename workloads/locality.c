/* locality.c - interleaved against blocked summing, after shared/seeds/002: why did foo beat bar?
 *
 * P threads sum one array of N 32-bit ints (values 0-99 from a fixed-seed
 * generator, the total known in advance) in three orders: `interleaved` (the
 * seed's foo), `blocked-strided` (the seed's bar) and `blocked` (the
 * sequential reference). Each runs with the seed's `shared-slot` accumulator
 * (the gist's `*r += num[i]`: the running sum stored to the thread's 32-bit
 * slot in s[P] every element, the slots sharing a line; locality_loops.c)
 * and with a `private` register accumulator. Reporting both separates the
 * seed's false sharing from the effect of the scan order on the shared L3.
 * Every pass starts `cold` (its data in memory) or `resident` (read just
 * before by the same threads, as in the gist's 64 Ki-int run): the cache sizes
 * from both, DRAM from a cold one (locality.h). The sizes and the plan are
 * in locality_plan.c; this file runs the plan and reports. On several NUMA
 * nodes each configuration's array is placed for its threads
 * (locality_mem.c: on their node, interleaved over their nodes, or
 * thread-local for the blocked variants), and its result says where every
 * page was. */
#include "registry.h"
#include "locality.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "lib.h"
#include "locality_loops.h"
#include "placement.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "stats.h"
#include "tsc.h"

/* ---- Private Variables ---------------------------------------------------- */
static uint32_t slot_line[QB_MAX_CPUS] __attribute__((aligned(64)));
static double summary[LOC_N_SIZES][LOC_N_STARTS][LOC_N_VARIANTS][LOC_N_ACCS]; /* median ticks at all CPUs, compact */
static bool summarised[LOC_N_SIZES][LOC_N_STARTS];    /* a column of the summary was run */
static double last_median;                              /* of the last configuration reported */
/* The run's own, from its set-up: the array on one node (phys, 0 when
 * placed per configuration), and each size's total. */
static uint64_t run_phys;
static bool run_placed;
static uint64_t size_total[LOC_N_SIZES];

/* ---- Public Variables (the workload's own, locality.h) --------------------- */
struct loc_job loc_job;
struct loc_sizes loc_sizes;
struct cpuset loc_set;
const char *const loc_variant_names[LOC_N_VARIANTS] = { "interleaved", "blocked-strided", "blocked" };
const char *const loc_acc_names[LOC_N_ACCS] = { "shared-slot", "private" };
const char *const loc_start_names[LOC_N_STARTS] = { "cold", "resident" };

/* ---- Private Functions ---------------------------------------------------- */
/* The "size", where it holds "size_role", and "start" params of a result. */
static void size_params(struct rec *r, const struct loc_cfg *f)
{
	rec_str(r, "size", f->size_name[0] ? f->size_name : "-");
	if (size_role_name((enum size_role)f->role))
		rec_str(r, "size_role", size_role_name((enum size_role)f->role));
	rec_str(r, "start", loc_start_names[f->start]);
}

static void loc_thread(const struct run_thread *t)
{
	struct loc_job *j = t->arg;
	uint32_t p = t->n, i = t->index;
	uint64_t s = tsc_start(), sum = 0;
	switch (j->acc == LOC_PRIVATE ? j->variant : j->variant + LOC_N_VARIANTS) {
	case LOC_INTERLEAVED: sum = loc_interleaved_private(j->a, j->n, p, i); break;
	case LOC_BLOCKED_STRIDED: sum = loc_blocked_strided_private(j->a, j->n, p, i); break;
	case LOC_BLOCKED: sum = loc_blocked_private(j->a, j->n, p, i); break;
	case LOC_N_VARIANTS + LOC_INTERLEAVED: loc_interleaved_shared(j->a, j->n, p, i, &j->slots[i]); break;
	case LOC_N_VARIANTS + LOC_BLOCKED_STRIDED: loc_blocked_strided_shared(j->a, j->n, p, i, &j->slots[i]); break;
	case LOC_N_VARIANTS + LOC_BLOCKED: loc_blocked_shared(j->a, j->n, p, i, &j->slots[i]); break;
	}
	uint64_t e = tsc_end();
	j->priv[i][0] = sum;
	j->ticks[i] = e - s;
	if (run_overdue(t)) /* a pass cannot stop halfway; one past the bound is an overrun */
		run_overran(t);
}

/* Whether the threads' totals add up to the array's: the 32-bit slots
 * modulo 2^32 (the gist's int slots wrap where a thread's sum passes them). */
static bool totals_ok(uint64_t expect)
{
	uint64_t sum = 0;
	for (uint32_t t = 0; t < loc_set.n; t++)
		sum += loc_job.acc == LOC_PRIVATE ? loc_job.priv[t][0] : loc_job.slots[t];
	return loc_job.acc == LOC_PRIVATE ? sum == expect : (uint32_t)sum == (uint32_t)expect;
}

/* Warm-up, then the timed repetitions while the deadline allows; false
 * with the error and a reason on any failure. */
static bool measure(struct wl_item *c, uint64_t total, enum wl_err *err, const char **why, struct reps **out)
{
	struct reps *log = reps_begin(loc_set.n);
	*out = log;
	while (wl_rep(c)) {
		enum run_status st = loc_pass(wl_ctx(c), wl_bound_ms(c));
		if (st != RUN_OK) {
			*err = st == RUN_OVERRUN ? WL_ERR_OVERRUN : WL_ERR_FAIL;
			*why = st == RUN_OVERRUN ? "overrun: a pass passed the bound" : run_status_name(st);
			return false;
		}
		if (!totals_ok(total)) {
			*err = WL_ERR_FAIL;
			*why = "the thread totals do not add up to the array's total";
			return false;
		}
		if (wl_timed(c)) /* the first is an untimed warm-up */
			reps_add(log, loc_job.ticks, run_last()->instr);
	}
	return true;
}

/* The measures of a locality result: ns per element of the array and the
 * bytes summed per second, the figure's slowest thread timing the pass. */
static void loc_measures(struct report_measure m[2], uint32_t threads)
{
	uint64_t bytes = loc_job.n * sizeof(uint32_t);
	m[0] = (struct report_measure){ "ns_per_element", "ns/element", report_ns_scale((double)loc_job.n), false,
					LIMIT_NONE, 1 };
	m[1] = (struct report_measure){ "gb_per_s", "GB/s", report_gbps_scale((double)bytes), true, LIMIT_READ_GBPS,
					threads };
}

static void report(struct wl_item *c, const struct loc_cfg *f, const char *placement, enum wl_err err,
		   const char *why, struct reps *log)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	bool ok = err == WL_OK, same = f->same;
	struct stats st = *reps_figure(log);
	last_median = st.n ? st.median : -1;
	uint64_t bytes = loc_job.n * sizeof(uint32_t);
	struct rec *r = wl_result_open(c, loc_variant_names[loc_job.variant], &loc_set);
	rec_obj_begin(r, "params");
	rec_str(r, "accumulator", loc_acc_names[loc_job.acc]);
	size_params(r, f);
	rec_u64(r, "ints", loc_job.n);
	rec_u64(r, "bytes", bytes);
	rec_str(r, "placement", placement);
	loc_mem_params(r);
	flushcheck_params(r, ctx->flush && loc_job.start == LOC_COLD, 0);
	rec_obj_end(r);
	loc_mem_report(ctx, r);
	if (same) {
		rec_arr_begin(r, "same_placements");
		rec_str(r, 0, place_name(PLACE_COMPACT));
		rec_str(r, 0, place_name(PLACE_SCATTER));
		rec_arr_end(r);
	}
	reps_report(r, log);
	struct report_measure m[2];
	loc_measures(m, loc_set.n);
	report_measures(r, m, 2);
	if (st.n && st.median > 0)
		rec_f64(r, "bytes_per_tick", (double)bytes / st.median, 4);
	else
		rec_null(r, "bytes_per_tick");
	rec_arr_begin(r, "thread_ticks");
	double slowest = 0;
	uint32_t slowest_t = 0;
	for (uint32_t t = 0; t < loc_set.n; t++) {
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
	wl_result_close(c, r, err, why);
	double ns = st.n ? report_measure_value(&m[0], st.median) : -1, gbs = st.n ? report_measure_value(&m[1], st.median) : -1;
	char mem[96];
	loc_mem_line(ctx, mem, sizeof(mem));
	kprintf("  %-7s %10llu %-8s %3u %-15s %-16s %-12s %10.3f %8.2f%s%s%s\n", f->size_name,
		(unsigned long long)bytes, loc_start_names[loc_job.start], loc_set.n, same ? "compact=scatter" : placement,
		loc_variant_names[loc_job.variant], loc_acc_names[loc_job.acc], ns, gbs, mem, log->noisy ? "  noisy" : "",
		ok ? "" : "  CHECK FAILED");
}

/* The memory placement a configuration has or would have had: NULL on one
 * node, or where its CPUs are gone. */
static const char *cfg_memory(const struct wl_ctx *ctx, const struct loc_cfg *f)
{
	static struct cpuset set;
	uint64_t nodes;
	if (!loc_mem_placed(ctx) || !place_set(ctx->topo, ctx->cpu_of_topo, (enum place_how)f->placement, f->threads, &set))
		return 0;
	return loc_mem_text(loc_mem_of(ctx, &set, f->thread_local, &nodes), nodes);
}

/* A skipped or absent result's params: the accumulator, size and start,
 * threads, placement and memory placement where it has them (a whole size
 * not measured: its size and start alone). */
static void skipped_params(const struct wl_ctx *ctx, const struct wl_cfg *cfg, struct rec *r)
{
	const struct loc_cfg *f = WL_OWN_CONST(cfg, struct loc_cfg);
	rec_obj_begin(r, "params");
	if (!f->whole_size)
		rec_str(r, "accumulator", loc_acc_names[f->acc]);
	size_params(r, f);
	if (!f->whole_size) {
		const char *memory = cfg_memory(ctx, f);
		rec_u64(r, "threads", f->threads);
		rec_str(r, "placement", place_name((enum place_how)f->placement));
		if (memory)
			rec_str(r, "memory_placement", memory);
	}
	rec_obj_end(r);
}

/* The seed's comparison: foo and bar in seconds (ticks without a known TSC
 * frequency), extended by the blocked reference, the private accumulator
 * and the starts, a column per size and start measured at every CPU. */
static void print_summary(uint32_t p)
{
	uint64_t hz = tsc_hz();
	kprintf("\n  the original comparison (foo interleaved, bar blocked), %u threads placed compact (%s; -1: failed):\n", p,
		hz ? "seconds" : "ticks");
	kprintf("  %-36s", "");
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
		for (unsigned st = 0; st < LOC_N_STARTS; st++)
			if (summarised[sz][st])
				kprintf(" %8s %-8s", loc_sizes.name[sz], loc_start_names[st]);
	kprintf("\n");
	for (unsigned v = 0; v < LOC_N_VARIANTS; v++) {
		for (unsigned ac = 0; ac < LOC_N_ACCS; ac++) {
			char label[40];
			fmt_snprintf(label, sizeof(label), "%s%s, %s", loc_variant_names[v],
				     v == LOC_INTERLEAVED ? " (foo)" : v == LOC_BLOCKED_STRIDED ? " (bar)" : "",
				     loc_acc_names[ac]);
			kprintf("  %-36s", label);
			for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
				for (unsigned st = 0; st < LOC_N_STARTS; st++) {
					if (!summarised[sz][st])
						continue;
					double t = summary[sz][st][v][ac];
					kprintf(" %17.6f", t < 0 ? -1.0 : hz ? t / (double)hz : t);
				}
			kprintf("\n");
		}
	}
}

/* Before a pass: the slots zeroed, and from a cold start they and a
 * cache-sized array evicted to memory on both platforms (then the run's flush). */
static void prepare_pass(const struct wl_ctx *ctx)
{
	memset(slot_line, 0, sizeof(slot_line));
	if (ctx->flush && loc_job.start == LOC_COLD) {
		run_evict_lines(slot_line, sizeof(slot_line));
		if (loc_job.n * sizeof(uint32_t) <= loc_sizes.bytes[LOC_LLC])
			run_evict_lines(loc_job.a, loc_job.n * sizeof(uint32_t));
	}
}

/* ---- Public Functions ----------------------------------------------------- */
enum run_status loc_pass(const struct wl_ctx *ctx, uint64_t timeout_ms)
{
	bool cold = ctx->flush && loc_job.start == LOC_COLD;
	loc_job.slots = slot_line;
	prepare_pass(ctx);
	return run_on(&loc_set, loc_thread, &loc_job, cold ? RUN_FLUSH : 0, timeout_ms, 0);
}

/* ---- The workload's table --------------------------------------------------- */
/* The run's sizes decided again (free memory now), the array (one node) or
 * the placements (several), each size's total, and the header. */
static bool locality_setup(const struct wl_ctx *ctx, const char **why)
{
	static char no_memory[96];
	run_placed = loc_mem_placed(ctx);
	run_phys = 0;
	if (!loc_decide_sizes(ctx, &run_phys)) {
		fmt_snprintf(no_memory, sizeof(no_memory), "no memory for the %llu-byte array",
			     (unsigned long long)MAX(loc_sizes.bytes[LOC_L2], loc_sizes.bytes[LOC_LLC]));
		console_error("locality", "%s", no_memory);
		finish_mark_failed("locality: out of memory");
		*why = no_memory;
		return false;
	}
	uint64_t want = loc_sizes.alloc;
	uint32_t *a = (uint32_t *)(uintptr_t)run_phys;
	if (!run_placed)
		loc_fill(a, want / sizeof(uint32_t));
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++) /* several nodes: each placement fills its own array */
		size_total[sz] = run_placed ? loc_fill_total(loc_sizes.bytes[sz] / sizeof(uint32_t))
					: loc_total(a, loc_sizes.bytes[sz] / sizeof(uint32_t));
	kprintf("locality: sizes %llu / %llu / %llu bytes, repetitions as planned, flush=%s, ",
		(unsigned long long)loc_sizes.bytes[LOC_L2], (unsigned long long)loc_sizes.bytes[LOC_LLC],
		loc_sizes.have_dram ? (unsigned long long)loc_sizes.bytes[LOC_DRAM] : 0ull, wl_flush_name(ctx));
	if (run_placed)
		kprintf("memory where the threads are (%u nodes):\n  on their node, else interleaved over their nodes; "
			"thread-local: each block on its thread's node (pages per node at the end of each line)\n",
			ctx->nodes);
	else
		kprintf("array on node %d\n", pmm_node_of(run_phys));
	kprintf("  (cold: the data starts in memory; resident: read just before by the same threads, nothing flushed)\n");
	kprintf("  %-7s %10s %-8s %3s %-15s %-16s %-12s %10s %8s%s\n", "size", "bytes", "start", "P", "placing", "variant",
		"accumulator", "ns/elt", "GB/s", run_placed ? "  memory node:pages" : "");
	kprintf("  (medians of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	for (unsigned i = 0; i < sizeof(summary) / sizeof(summary[0][0][0][0]); i++)
		(&summary[0][0][0][0])[i] = -1;
	memset(summarised, 0, sizeof(summarised));
	loc_job.a = a;
	return true;
}

static void locality_teardown(const struct wl_ctx *ctx)
{
	const struct topo *tp = ctx->topo;
	print_summary(tp->ncpu);
	unsigned big = loc_sizes.have_dram ? LOC_DRAM : LOC_LLC, st = ctx->flush ? LOC_COLD : LOC_RESIDENT;
	double foo = summary[big][st][LOC_INTERLEAVED][LOC_SHARED_SLOT];
	double bar = summary[big][st][LOC_BLOCKED_STRIDED][LOC_SHARED_SLOT];
	double foo_p = summary[big][st][LOC_INTERLEAVED][LOC_PRIVATE], bar_p = summary[big][st][LOC_BLOCKED_STRIDED][LOC_PRIVATE];
	console_summary("locality   %s %s, %u threads: bar/foo %.2fx with shared result slots (as the original), %.2fx private",
			loc_sizes.name[big], loc_start_names[st], tp->ncpu, foo > 0 ? bar / foo : 0,
			foo_p > 0 ? bar_p / foo_p : 0);
	if (run_placed)
		loc_mem_end();
	else
		pmm_free(run_phys, loc_sizes.held, PMM_WORKLOAD);
}

/* One configuration: its array where its threads are (several nodes), its passes, its result. */
static void pass_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	const struct topo *tp = ctx->topo;
	const struct loc_cfg *f = WL_OWN_CONST(wl_cfg(c), struct loc_cfg);
	unsigned sz = f->size;
	const char *placement = place_name((enum place_how)f->placement);
	loc_job.variant = (enum loc_variant)f->variant;
	loc_job.acc = (enum loc_acc)f->acc;
	loc_job.start = (enum loc_start)f->start;
	loc_job.n = f->bytes / sizeof(uint32_t);
	if (f->bytes != loc_sizes.bytes[sz]) { /* free memory changed between the plan and the run */
		wl_result_skip(c, loc_variant_names[f->variant], "the size planned no longer fits the memory free now");
		return;
	}
	const char *why = "the placement is gone";
	bool there = place_set(tp, ctx->cpu_of_topo, (enum place_how)f->placement, f->threads, &loc_set);
	double placed_s; /* the plan priced it (once_s) */
	if (there && run_placed) {
		uint64_t nodes = 0;
		enum loc_mem mem = loc_mem_of(ctx, &loc_set, f->thread_local, &nodes);
		there = loc_mem_place(mem, nodes, f->bytes, wl_bound_ms(c), &placed_s, &why);
	}
	if (!there) {
		wl_result_skip(c, loc_variant_names[f->variant], why);
		return;
	}
	struct reps *log = 0;
	enum wl_err err = WL_OK;
	why = 0;
	measure(c, size_total[sz], &err, &why, &log);
	const char *where_why = 0;
	if (run_placed && !loc_mem_read_back(ctx, f->bytes, &where_why) && err == WL_OK) {
		err = WL_ERR_FAIL;
		why = where_why;
	}
	report(c, f, placement, err, why, log);
	if (f->threads == tp->ncpu && f->placement == PLACE_COMPACT && !f->thread_local) {
		summary[sz][loc_job.start][loc_job.variant][loc_job.acc] = err == WL_OK ? last_median : -1;
		summarised[sz][loc_job.start] = true;
	}
}

static const struct wl_kind loc_kinds[LOC_ROWS] = {
	[LOC_PASS] = { .name = "pass", .measures = "P threads sum one array in one order with one accumulator, from one start",
		       .unit = PLAN_UNIT_PASSES, .stop = WL_STOP_REPS, .run = pass_run, .params = skipped_params },
};
const struct workload wl_locality = {
	.name = "locality",
	.summary = "interleaved vs blocked summing, shared-slot vs private accumulators, L2 to DRAM sizes, cold and resident",
	.counters = PMU_GOAL_LLC,
	.kinds = loc_kinds,
	.n_kinds = LOC_ROWS,
	.plan = locality_plan,
	.setup = locality_setup,
	.teardown = locality_teardown,
};
