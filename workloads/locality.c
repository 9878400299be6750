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
#include "sequence.h"
#include "stats.h"
#include "tsc.h"

/* ---- Private Variables ---------------------------------------------------- */
static uint32_t slot_line[QB_MAX_CPUS] __attribute__((aligned(64)));
static double summary[LOC_N_SIZES][LOC_N_STARTS][LOC_N_VARIANTS][LOC_N_ACCS]; /* median ticks at all CPUs, compact */
static bool summarised[LOC_N_SIZES][LOC_N_STARTS];    /* a column of the summary was run */
static double last_median;                              /* of the last configuration reported */

/* ---- Public Variables (the workload's own, locality.h) --------------------- */
struct loc_job loc_job;
struct loc_sizes loc_sizes;
struct cpuset loc_set;
const char *const loc_variant_names[LOC_N_VARIANTS] = { "interleaved", "blocked-strided", "blocked" };
const char *const loc_acc_names[LOC_N_ACCS] = { "shared-slot", "private" };
const char *const loc_start_names[LOC_N_STARTS] = { "cold", "resident" };

/* ---- Private Functions ---------------------------------------------------- */
/* The "size", where it holds "size_role", and "start" params of a result. */
static void size_params(struct rec *r, unsigned sz, unsigned st)
{
	rec_str(r, "size", loc_sizes.name[sz][0] ? loc_sizes.name[sz] : "-");
	if (size_role_name(loc_sizes.role[sz]))
		rec_str(r, "size_role", size_role_name(loc_sizes.role[sz]));
	rec_str(r, "start", loc_start_names[st]);
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

/* Warm-up, then reps timed repetitions while the deadline allows; false
 * with a reason on any failure. */
static bool measure(const struct wl_ctx *ctx, const struct plan_item *it, uint64_t expect, const char **why,
		    struct reps **out)
{
	struct reps *log = reps_begin(loc_set.n);
	*out = log;
	for (uint32_t r = 0; r <= it->reps && seq_rep_fits(); r++) {
		enum run_status st = loc_pass(ctx, seq_timeout_ms(it));
		seq_tick();
		if (st != RUN_OK) {
			*why = st == RUN_OVERRUN ? "overrun: a pass passed the bound" : run_status_name(st);
			return false;
		}
		if (!totals_ok(expect)) {
			*why = "the thread totals do not add up to the array's total";
			return false;
		}
		if (r > 0) /* the first is an untimed warm-up */
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

static void report(const struct wl_ctx *ctx, const struct plan_item *it, unsigned sz, const char *placement,
		   bool same, bool ok, const char *why, struct reps *log)
{
	struct stats st = *reps_figure(log);
	last_median = st.n ? st.median : -1;
	uint64_t bytes = loc_job.n * sizeof(uint32_t);
	struct rec *r = report_result_open("locality", loc_variant_names[loc_job.variant], &loc_set);
	rec_obj_begin(r, "params");
	rec_str(r, "accumulator", loc_acc_names[loc_job.acc]);
	size_params(r, sz, loc_job.start);
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
	seq_item_report(r, it);
	bool overrun = !ok && why && !strncmp(why, "overrun", 7);
	report_result_close(r, ok ? "ok" : overrun ? "overrun" : "fail", ok ? 0 : why);
	double ns = st.n ? report_measure_value(&m[0], st.median) : -1, gbs = st.n ? report_measure_value(&m[1], st.median) : -1;
	char mem[96];
	loc_mem_line(ctx, mem, sizeof(mem));
	kprintf("  %-7s %10llu %-8s %3u %-15s %-16s %-12s %10.3f %8.2f%s%s%s\n", loc_sizes.name[sz],
		(unsigned long long)bytes, loc_start_names[loc_job.start], loc_set.n, same ? "compact=scatter" : placement,
		loc_variant_names[loc_job.variant], loc_acc_names[loc_job.acc], ns, gbs, mem, log->noisy ? "  noisy" : "",
		ok ? "" : "  CHECK FAILED");
}

/* A skipped result of one configuration (threads, placement and memory
 * placement when it has them). */
static void report_skipped(unsigned sz, unsigned st, unsigned v, int ac, uint32_t threads, const char *placement,
			   const char *memory, const char *why)
{
	struct rec *r = report_result_open("locality", loc_variant_names[v], 0);
	rec_obj_begin(r, "params");
	if (ac >= 0)
		rec_str(r, "accumulator", loc_acc_names[ac]);
	size_params(r, sz, st);
	if (threads)
		rec_u64(r, "threads", threads);
	if (placement)
		rec_str(r, "placement", placement);
	if (memory)
		rec_str(r, "memory_placement", memory);
	rec_obj_end(r);
	report_result_close(r, "skipped", why);
}

/* The memory placement a planned configuration has or would have had: NULL
 * on one node, or where its CPUs are gone. */
static const char *item_memory(const struct wl_ctx *ctx, const struct plan_item *it)
{
	static struct cpuset set;
	uint64_t nodes;
	unsigned pl = it->param[2] & ~(LOC_SAME_PLACEMENTS | LOC_THREAD_LOCAL);
	if (!loc_mem_placed(ctx) || !place_set(ctx->topo, ctx->cpu_of_topo, (enum place_kind)pl, it->param[1], &set))
		return 0;
	return loc_mem_text(loc_mem_kind(ctx, &set, it->param[2] & LOC_THREAD_LOCAL, &nodes), nodes);
}

/* A size (and start) that is not measured at all: one skipped result per variant. */
static void skip_size(unsigned sz, unsigned st, const char *why)
{
	for (unsigned v = 0; v < LOC_N_VARIANTS; v++)
		report_skipped(sz, st, v, -1, 0, 0, 0, why);
	kprintf("  %-7s %-8s skipped: %s\n", loc_sizes.name[sz], loc_start_names[st], why);
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

/* The plan skipped the workload whole: every configuration says so, nothing is allocated. */
static void skip_all(const struct wl_ctx *ctx)
{
	uint32_t cursor = 0;
	struct plan_item *it;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
		seq_item_begin(ctx, it);
		report_skipped(it->param[0], it->param[3] >> 16, it->param[3] & 0xff, (int)((it->param[3] >> 8) & 0xff),
			       it->param[1],
			       place_name((enum place_kind)(it->param[2] & ~(LOC_SAME_PLACEMENTS | LOC_THREAD_LOCAL))),
			       item_memory(ctx, it), seq_skip_reason(it));
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

static void locality_run(const struct wl_ctx *ctx)
{
	const struct topo *tp = ctx->topo;
	if (seq_workload_skipped(ctx)) {
		skip_all(ctx);
		return;
	}
	bool placed = loc_mem_placed(ctx);
	uint64_t want = loc_sizes.alloc;
	uint64_t phys = want && !placed ? loc_alloc_array(want, (int)tp->cpu[0].node) : 0;
	if (!want || (!placed && !phys)) {
		console_error("locality", "no memory for the %llu-byte array planned", (unsigned long long)want);
		finish_mark_failed("locality: out of memory");
		return;
	}
	uint64_t expect[LOC_N_SIZES];
	uint32_t *a = (uint32_t *)(uintptr_t)phys;
	if (!placed)
		loc_fill(a, want / sizeof(uint32_t));
	for (unsigned sz = 0; sz < LOC_N_SIZES; sz++) /* several nodes: each placement fills its own array */
		expect[sz] = placed ? loc_fill_total(loc_sizes.bytes[sz] / sizeof(uint32_t))
				    : loc_total(a, loc_sizes.bytes[sz] / sizeof(uint32_t));

	kprintf("locality: sizes %llu / %llu / %llu bytes, repetitions as planned, flush=%s, ",
		(unsigned long long)loc_sizes.bytes[LOC_L2], (unsigned long long)loc_sizes.bytes[LOC_LLC],
		loc_sizes.have_dram ? (unsigned long long)loc_sizes.bytes[LOC_DRAM] : 0ull, wl_flush_name(ctx));
	if (placed)
		kprintf("memory where the threads are (%u nodes):\n  on their node, else interleaved over their nodes; "
			"thread-local: each block on its thread's node (pages per node at the end of each line)\n",
			ctx->nodes);
	else
		kprintf("array on node %d\n", pmm_node_of(phys));
	kprintf("  (cold: the data starts in memory; resident: read just before by the same threads, nothing flushed)\n");
	kprintf("  %-7s %10s %-8s %3s %-15s %-16s %-12s %10s %8s%s\n", "size", "bytes", "start", "P", "placing", "variant",
		"accumulator", "ns/elt", "GB/s", placed ? "  memory node:pages" : "");
	kprintf("  (medians of the clean repetitions; noisy: fewer than half were clean, the median of all)\n");
	for (unsigned i = 0; i < sizeof(summary) / sizeof(summary[0][0][0][0]); i++)
		(&summary[0][0][0][0])[i] = -1;
	memset(summarised, 0, sizeof(summarised));
	uint32_t cursor = 0;
	struct plan_item *it;
	loc_job.a = a;
	while ((it = plan_next(ctx->plan, ctx->index, &cursor))) {
		unsigned sz = it->param[0], pl = it->param[2] & ~(LOC_SAME_PLACEMENTS | LOC_THREAD_LOCAL);
		bool same = it->param[2] & LOC_SAME_PLACEMENTS, tl = it->param[2] & LOC_THREAD_LOCAL;
		uint32_t threads = it->param[1];
		loc_job.variant = (enum loc_variant)(it->param[3] & 0xff);
		loc_job.acc = (enum loc_acc)((it->param[3] >> 8) & 0xff);
		loc_job.start = (enum loc_start)(it->param[3] >> 16);
		loc_job.n = loc_sizes.bytes[sz] / sizeof(uint32_t);
		seq_item_begin(ctx, it);
		const char *why = it->skip ? seq_skip_reason(it) : "the placement is gone";
		bool there = !it->skip && place_set(tp, ctx->cpu_of_topo, (enum place_kind)pl, threads, &loc_set);
		uint64_t nodes = 0;
		enum loc_mem mem = LOC_MEM_NODE;
		double placed_s; /* the plan priced it (once_s) */
		if (there && placed) {
			mem = loc_mem_kind(ctx, &loc_set, tl, &nodes);
			there = loc_mem_place(mem, nodes, loc_sizes.bytes[sz], &placed_s, &why);
		}
		if (!there) {
			report_skipped(sz, loc_job.start, loc_job.variant, loc_job.acc, threads, place_name((enum place_kind)pl),
				       item_memory(ctx, it), why);
			continue;
		}
		struct reps *log = 0;
		why = 0;
		bool ok = measure(ctx, it, expect[sz], &why, &log);
		const char *where_why = 0;
		if (placed && !loc_mem_read_back(ctx, loc_sizes.bytes[sz], &where_why) && ok) {
			ok = false;
			why = where_why;
		}
		report(ctx, it, sz, place_name((enum place_kind)pl), same, ok, why, log);
		if (threads == tp->ncpu && pl == PLACE_COMPACT && !tl) {
			summary[sz][loc_job.start][loc_job.variant][loc_job.acc] = ok ? last_median : -1;
			summarised[sz][loc_job.start] = true;
		}
	}
	if (!ctx->flush) /* nothing can start cold: the cold configurations are not run */
		for (unsigned sz = 0; sz < LOC_N_SIZES; sz++)
			if (sz != LOC_DRAM || loc_sizes.have_dram)
				skip_size(sz, LOC_COLD, "flush=none: a cold start needs the flush");
	if (!loc_sizes.have_dram) {
		char why[96];
		fmt_snprintf(why, sizeof(why), "not enough free memory for %llu MiB (4x the largest L3)",
			     (unsigned long long)(loc_sizes.dram_min >> 20));
		skip_size(LOC_DRAM, ctx->flush ? LOC_COLD : LOC_RESIDENT, why);
	}
	print_summary(tp->ncpu);
	unsigned big = loc_sizes.have_dram ? LOC_DRAM : LOC_LLC, st = ctx->flush ? LOC_COLD : LOC_RESIDENT;
	double foo = summary[big][st][LOC_INTERLEAVED][LOC_SHARED_SLOT];
	double bar = summary[big][st][LOC_BLOCKED_STRIDED][LOC_SHARED_SLOT];
	double foo_p = summary[big][st][LOC_INTERLEAVED][LOC_PRIVATE], bar_p = summary[big][st][LOC_BLOCKED_STRIDED][LOC_PRIVATE];
	console_summary("locality   %s %s, %u threads: bar/foo %.2fx with shared result slots (as the original), %.2fx private",
			loc_sizes.name[big], loc_start_names[st], tp->ncpu, foo > 0 ? bar / foo : 0,
			foo_p > 0 ? bar_p / foo_p : 0);
	if (placed)
		loc_mem_end();
	else
		pmm_free(phys, loc_sizes.held, PMM_WORKLOAD);
}

const struct workload wl_locality = {
	.name = "locality",
	.summary = "interleaved vs blocked summing, shared-slot vs private accumulators, L2 to DRAM sizes, cold and resident",
	.counters = PMU_GOAL_LLC,
	.measures_faults = false,
	.legacy_plan = locality_plan,
	.legacy_run = locality_run,
};
