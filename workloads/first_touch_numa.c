/* first_touch_numa.c - where first touch puts pages on a NUMA machine, after the comment on shared/seeds/003.
 *
 * (a) one CPU warms the whole buffer, as the seed's code does, so every page
 * lands on its node; (b) each CPU first-touches the part it will use, as the
 * seed's commenter recommends. Then every CPU sums its part and the two are
 * compared. A node x memory matrix gives latency (a dependent pointer chase)
 * and bandwidth (a sequential read) from a CPU on node i to memory on node j:
 * every memory node, with or without CPUs, and with sp_memory=on each node's
 * specific-purpose memory (numa_targets.c, which sets the firmware's claims
 * beside the measurements). */
#include "first_touch.h"
#include "console.h"
#include "demand.h"
#include "finish.h"
#include "lib.h"
#include "numa_targets.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FULL_NUMA_BYTES (1ull << 30)
#define QUICK_NUMA_BYTES (16ull << 20)
#define FULL_MATRIX_BYTES (256ull << 20)   /* well past any LLC */
#define QUICK_MATRIX_BYTES (2ull << 20)
#define CHASE_STEPS_QUICK 20000ull
#define CHASE_STEPS_FULL 2000000ull
#define LCG_MUL 6364136223846793005ull     /* Knuth, MMIX: the chase's shuffle */
#define LCG_ADD 1442695040888963407ull
#define LCG_OUT_SHIFT 33
#define TEXT_LEN 96

/* ---- Types ---------------------------------------------------------------- */
struct numa_job {
	volatile uint64_t *buf;
	uint64_t words;
	bool write;                 /* first touch by writing (index + 1), else sum */
	uint64_t sum[QB_MAX_CPUS][8];
	uint64_t ticks[QB_MAX_CPUS];
};

struct chase_job {
	uint64_t *buf;
	uint64_t lines, steps;
	uint64_t chase_ticks, read_ticks, sink;
};

/* ---- Private Variables ---------------------------------------------------- */
static struct numa_job job;
static struct chase_job chase;
static struct cpuset one, all;
static struct numa_matrix matrix;
static uint64_t node_memory[QB_MAX_NODES];   /* free bytes per node before the workload */

/* ---- Private Functions ---------------------------------------------------- */
static int node_of_cpu(const struct wl_ctx *ctx, uint32_t dense)
{
	for (uint32_t k = 0; k < ctx->topo->ncpu; k++)
		if (ctx->cpu_of_topo[k] == dense)
			return (int)ctx->topo->cpu[k].node;
	return 0;
}

static void part(uint64_t words, uint32_t n, uint32_t t, uint64_t *start, uint64_t *end)
{
	/* Page-aligned parts, so that each page has exactly one owner. */
	uint64_t per_page = FT_PAGE / sizeof(uint64_t), pages = words / per_page;
	*start = (pages * t / n) * per_page;
	*end = (pages * (t + 1) / n) * per_page;
}

static void numa_thread(const struct run_thread *t)
{
	struct numa_job *j = t->arg;
	uint64_t s, e;
	part(j->words, t->n, t->index, &s, &e);
	uint64_t t0 = tsc_start(), acc = 0;
	if (j->write)
		for (uint64_t i = s; i < e; i++)
			j->buf[i] = i + 1;
	else
		for (uint64_t i = s; i < e; i++)
			acc += j->buf[i];
	j->ticks[t->index] = tsc_end() - t0;
	j->sum[t->index][0] = acc;
}

/* (a) or (b): warm, verify every page's node, then everyone sums its part. */
static void placement_case(struct wl_item *c, const char *variant, bool each_cpu, uint64_t bytes,
			   double *slowest_out)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	const char *why = 0, *fail = 0;
	struct demand_region *r = demand_create(bytes, DEMAND_PAGE_4K, DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB, 0, &why);
	if (!r) {
		wl_result_skip(c, variant, why);
		return;
	}
	job.buf = demand_base(r);
	job.words = r->size / sizeof(uint64_t);
	job.write = true;
	bool ok = run_on(each_cpu ? &all : &one, numa_thread, &job, 0, wl_bound_ms(c), 0) == RUN_OK;
	if (!ok)
		fail = "the warming run failed";
	/* Every page where the policy says, from the page tables and the allocator. */
	uint64_t misplaced = 0, fallback_pages = 0;
	for (uint32_t t = 0; ok && t < all.n; t++) {
		uint64_t s, e;
		part(job.words, all.n, t, &s, &e);
		int want = node_of_cpu(ctx, each_cpu ? all.cpu[t] : one.cpu[0]);
		/* A CPU on a node without memory gets pages from another node, as on
		 * any OS: then any node with memory is what the policy intends. */
		bool fallback = node_memory[want] == 0;
		for (uint64_t off = s * sizeof(uint64_t); off < e * sizeof(uint64_t); off += FT_PAGE) {
			int got = demand_node_at(r, off);
			misplaced += fallback ? got < 0 || node_memory[got] == 0 : got != want;
			fallback_pages += fallback;
		}
	}
	if (ok && misplaced) {
		ok = false;
		fail = "pages are not on the node the policy intended";
	}
	if (ok && demand_faults(r) != demand_present_pages(r)) {
		ok = false;
		fail = "the fault count is not the number of pages touched";
	}
	/* Everyone sums its own part, flushed first. */
	job.write = false;
	uint32_t reps = MIN(ctx->reps, (uint32_t)REPS_MAX);
	struct reps *log = reps_begin(all.n);
	for (uint32_t rep = 0; ok && rep <= reps; rep++) {
		if (ctx->flush) /* its own data in memory, whatever the flush does */
			run_evict_lines(job.buf, job.words * sizeof(uint64_t));
		if (run_on(&all, numa_thread, &job, ctx->flush ? RUN_FLUSH : 0, wl_bound_ms(c), 0) != RUN_OK) {
			ok = false;
			fail = "the summing run failed";
			break;
		}
		uint64_t total = 0;
		for (uint32_t t = 0; t < all.n; t++)
			total += job.sum[t][0];
		uint64_t n = job.words / (FT_PAGE / sizeof(uint64_t)) * (FT_PAGE / sizeof(uint64_t));
		if (total != n * (n + 1) / 2) {
			ok = false;
			fail = "the sums do not match what was written";
		}
		if (rep > 0) /* the first is an untimed warm-up */
			reps_add(log, job.ticks, run_last()->instr);
	}
	struct rec *rec = ft_result_open(c, variant, &all, r->size, ctx->flush, 0);
	reps_report(rec, log);
	/* Every CPU sums whole pages of its part: the bytes read in a repetition. */
	uint64_t summed = job.words / (FT_PAGE / sizeof(uint64_t)) * FT_PAGE;
	struct ft_measures fm;
	char text[TEXT_LEN];
	ft_measures_of(FT_M_SUM, FT_PAGE, summed, all.n, &fm);
	ft_write_measures(rec, &fm, text, sizeof(text));
	const struct stats *fig = report_figure(); /* derived fields come from the figure */
	double median = fig ? fig->median : 0;
	if (median > 0)
		rec_f64(rec, "bytes_per_tick", (double)summed / median, 4);
	else
		rec_null(rec, "bytes_per_tick");
	rec_arr_begin(rec, "pages_by_node");
	for (uint32_t n = 0; n < ctx->nodes && n < QB_MAX_NODES; n++)
		rec_u64(rec, 0, r->pages_by_node[n]);
	rec_arr_end(rec);
	rec_u64(rec, "misplaced_pages", misplaced);
	rec_u64(rec, "fallback_pages", fallback_pages); /* owned by CPUs on nodes without memory */
	wl_result_close(c, rec, ok ? WL_OK : WL_ERR_FAIL, fail);
	kprintf("  %-22s %s (all CPUs summing %llu MiB)%s\n", variant, text, (unsigned long long)(summed >> 20),
		ok ? "" : "  CHECK FAILED");
	*slowest_out = median;
	demand_destroy(r);
}

static void chase_thread(const struct run_thread *t)
{
	struct chase_job *c = t->arg;
	uint64_t idx = 0, sum = 0;
	uint64_t t0 = tsc_start();
	for (uint64_t i = 0; i < c->steps; i++)
		idx = c->buf[idx * (FT_LINE / sizeof(uint64_t))];
	uint64_t t1 = tsc_end();
	for (uint64_t i = 0; i < c->lines * (FT_LINE / sizeof(uint64_t)); i++)
		sum += c->buf[i];
	uint64_t t2 = tsc_end();
	c->chase_ticks = t1 - t0;
	c->read_ticks = t2 - t1;
	c->sink = idx + sum;
}

/* A random cycle through every line of the buffer (Sattolo's shuffle). */
static void build_chase(uint64_t *buf, uint64_t lines)
{
	uint64_t per = FT_LINE / sizeof(uint64_t), x = lines;
	for (uint64_t i = 0; i < lines; i++)
		buf[i * per] = i;
	for (uint64_t i = lines - 1; i > 0; i--) {
		x = x * LCG_MUL + LCG_ADD;
		uint64_t j = (x >> LCG_OUT_SHIFT) % i;
		uint64_t tmp = buf[i * per];
		buf[i * per] = buf[j * per];
		buf[j * per] = tmp;
	}
}

static void node_matrix(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	struct numa_matrix *m = &matrix;
	uint64_t bytes = ctx->quick ? QUICK_MATRIX_BYTES : FULL_MATRIX_BYTES;
	numa_targets(ctx, m);
	kprintf("\n  node x memory: latency (ticks per dependent load) and bandwidth (bytes per tick)\n");
	for (uint32_t i = 0; i < m->rows; i++) {
		int cpu = m->cpu[i];
		for (uint32_t j = 0; j < m->n_targets && cpu >= 0; j++) {
			struct numa_target *t = &m->target[j];
			const char *why = 0;
			/* In whole 2 MiB pages, as the kernel maps RAM (the twin then asks
			 * for transparent huge pages): 4 KiB pages would add a page walk
			 * to the chase's loads on one platform only. */
			uint64_t phys = numa_target_alloc(t, bytes, DEMAND_PAGE_2M, &why);
			if (!phys) {
				t->why = why; /* a null column that says why */
				continue;
			}
			chase.buf = (uint64_t *)(uintptr_t)phys;
			chase.lines = bytes / FT_LINE;
			chase.steps = ctx->quick ? CHASE_STEPS_QUICK : CHASE_STEPS_FULL;
			build_chase(chase.buf, chase.lines);
			run_evict_lines(chase.buf, bytes); /* in memory on node j, whatever the flush does */
			one.n = 1;
			one.cpu[0] = (uint32_t)cpu;
			if (run_on(&one, chase_thread, &chase, RUN_FLUSH, wl_bound_ms(c), 0) == RUN_OK) {
				m->lat[i][j] = (double)chase.chase_ticks / (double)chase.steps;
				m->bw[i][j] = chase.read_ticks ? (double)bytes / (double)chase.read_ticks : 0;
			}
			numa_target_free(t, phys, bytes);
			kprintf("  cpu %3d node %u -> %-32s %9.1f ticks/load %8.3f bytes/tick\n", cpu, i, t->name,
				m->lat[i][j], m->bw[i][j]);
		}
	}
	numa_matrix_report(ctx, m);
}

/* ---- Public Functions ----------------------------------------------------- */
void ft_numa_run(struct wl_item *c)
{
	const struct wl_ctx *ctx = wl_ctx(c);
	kprintf("\n  NUMA first-touch placement:\n");
	for (uint32_t n = 0; n < QB_MAX_NODES; n++)
		node_memory[n] = n < ctx->nodes ? pmm_free_bytes((int)n) : 0;
	all = *ctx->online;
	one.n = 1;
	one.cpu[0] = ctx->online->cpu[0];
	uint64_t bytes = ctx->quick ? QUICK_NUMA_BYTES : FULL_NUMA_BYTES;
	bytes = MIN(bytes, ALIGN_DOWN(pmm_free_bytes(PMM_ANY_NODE) / 4, FT_PAGE));
	double a = 0, b = 0;
	placement_case(c, "numa-one-cpu-warms", false, bytes, &a);
	placement_case(c, "numa-each-cpu-touches", true, bytes, &b);
	if (a > 0 && b > 0)
		kprintf("  the parallel sum after one CPU warmed everything took %.2fx as long as after each CPU "
			"warmed its own part (%s)\n", a / b,
			a > b * 1.05 ? "one CPU's pages sit on one node: slower" :
			a < b * 0.95 ? "faster: no NUMA penalty shows here" : "about the same");
	node_matrix(c);
}
