/* test_sequence.c - host tests of the framework (kernel/bench): the sequence walks a fake two-workload table on an injected clock.
 *
 * The real sequence.c, seq_item.c and seq_report.c, with the real plan,
 * fit, deadlines and result records (kernel/run/report.c); the clock
 * (seq_run.clock) is this file's, and moves only when a fake workload "works":
 * each repetition of a configuration advances it by units x the
 * configuration's cost x the machine's slowness. Every record the run
 * emits is kept, so the tests read the results as tools would: their
 * order, variant, check, reason and plan fields. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "instr.h"
#include "lib.h"
#include "report.h"
#include "reps.h"
#include "run.h"
#include "sequence.h"
#include "tsc.h"
#include "workload.h"

#define HZ 1000000000ull             /* the fake TSC: one tick a nanosecond */
#define MAX_LINES 256

/* ---- The injected clock and the platform's stubs --------------------------- */
static uint64_t clock_ticks;
static double slowness = 1.0;        /* the machine, against what calibration saw */

static uint64_t fake_clock(void) { return clock_ticks; }
uint64_t tsc_hz(void) { return HZ; }
double tsc_seconds(uint64_t t) { return (double)t / HZ; }
static void work(double s) { clock_ticks += (uint64_t)(s * slowness * HZ); }

static char lines[MAX_LINES][4096];  /* every record emitted, in order */
static int n_lines, n_errors;
static char last_error[256];
static struct rec shared;
static char rec_buf[4096];

struct rec *console_rec_open(const char *kind)
{
	rec_begin(&shared, rec_buf, sizeof(rec_buf), kind);
	return &shared;
}
void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	if (n_lines < MAX_LINES)
		snprintf(lines[n_lines++], sizeof(lines[0]), "%s", line);
}
void kprintf(const char *fmt, ...) { (void)fmt; }
void console_status(const char *line) { (void)line; }
void console_summary(const char *fmt, ...) { (void)fmt; }
void console_summary_line(const char *line) { (void)line; }
unsigned long console_errors(void) { return (unsigned long)n_errors; }
void console_error(const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = (size_t)snprintf(last_error, sizeof(last_error), "%s: ", what);
	fmt_vsnprintf(last_error + n, sizeof(last_error) - n, fmt, ap);
	va_end(ap);
	n_errors++;
}
unsigned long finish_failures(void) { return 0; }
void finish_mark_failed(const char *why) { (void)why; }
void instr_goal(enum pmu_goal g) { (void)g; }
void reps_faults_measured(bool on) { (void)on; }
struct reps_tally reps_tally_take(void) { return (struct reps_tally){ 0 }; }
bool reps_samples_on(void) { return false; }
void reps_keep_samples(bool on) { (void)on; }
const uint64_t run_default_timeout_ms = 1000;
const char *memtype_result_type(const uint32_t *cpus, uint32_t n) { (void)cpus; (void)n; return "WB"; }
const char *flushcheck_run_flush(void) { return "wbinvd"; }
uint64_t tsc_to_us(uint64_t t) { return t / (HZ / 1000000); }
unsigned long console_records(void) { return (unsigned long)n_lines; }
void report_lava_machine(void) {}

/* ---- The fake workloads ---------------------------------------------------- */
enum { K_REPS, K_ONCE, K_STEPS, K_ROWS };
struct fake_cfg {
	double unit_s;                   /* one unit's cost, as calibrated */
	bool writes_nothing;             /* a run that forgets its result (a bug the walk must name) */
};

static bool once_setup_ok = true;
static int once_setups, once_teardowns, reps_teardowns, finishes;
static uint64_t units_seen[16];      /* what each configuration's run saw, by its own number */
static int n_seen;

static void run_reps(struct wl_item *c)
{
	const struct fake_cfg *f = WL_OWN_CONST(wl_cfg(c), struct fake_cfg);
	units_seen[n_seen++ % 16] = wl_units(c);
	while (wl_rep(c))
		work((double)wl_units(c) * f->unit_s);
	if (f->writes_nothing)
		return;
	struct rec *r = wl_result_open(c, wl_cfg(c)->variant, 0);
	wl_result_close(c, r, WL_OK, 0);
}

static void run_once(struct wl_item *c)
{
	const struct fake_cfg *f = WL_OWN_CONST(wl_cfg(c), struct fake_cfg);
	work(f->unit_s);
	struct rec *r = wl_result_open(c, wl_cfg(c)->variant, 0);
	wl_result_close(c, r, WL_OK, 0);
}

static void run_steps(struct wl_item *c)
{
	const struct fake_cfg *f = WL_OWN_CONST(wl_cfg(c), struct fake_cfg);
	for (uint64_t k = 0; k < wl_units(c) && wl_step(c); k++)
		work(f->unit_s);
	struct rec *r = wl_result_open(c, wl_cfg(c)->variant, 0);
	wl_result_close(c, r, WL_OK, 0);
}

static bool once_setup(const struct wl_ctx *x, const char **why)
{
	(void)x;
	once_setups++;
	*why = "no memory for the pages";
	return once_setup_ok;
}
static void once_teardown(const struct wl_ctx *x) { (void)x; once_teardowns++; }
static void reps_teardown(const struct wl_ctx *x) { (void)x; reps_teardowns++; }
static void alpha_finish(const struct wl_ctx *x) { (void)x; finishes++; }

static const struct wl_kind kinds[K_ROWS] = {
	[K_REPS] = { .name = "reps", .measures = "repetitions", .unit = PLAN_UNIT_ITERS, .stop = WL_STOP_REPS,
		     .run = run_reps, .teardown = reps_teardown },
	[K_ONCE] = { .name = "once", .measures = "one pass", .unit = PLAN_UNIT_PASSES, .stop = WL_STOP_ONCE,
		     .run = run_once, .setup = once_setup, .teardown = once_teardown },
	[K_STEPS] = { .name = "steps", .measures = "pairs", .unit = PLAN_UNIT_PAIRS, .stop = WL_STOP_STEPS,
		      .run = run_steps },
};
static const char *const groups[] = { "reps", "once", "steps", 0 };

static void add(struct wl_plan *p, unsigned kind, const char *variant, double unit_s, uint64_t units, uint32_t reps,
		bool essential, bool writes_nothing)
{
	struct wl_cfg cfg = { .variant = variant };
	snprintf(cfg.name, sizeof(cfg.name), "%s", variant);
	*WL_OWN(&cfg, struct fake_cfg) = (struct fake_cfg){ unit_s, writes_nothing };
	struct wl_cost cost = { .group = (uint8_t)kind, .essential = essential, .want_units = units,
				.min_units = kind == K_ONCE ? 1 : units / 10, .want_reps = reps, .unit_s = unit_s };
	wl_add(p, kind, &cfg, &cost);
}

static bool alpha_lacks_x;           /* plan: "x" is absent here, between a1 and a2 */
static bool beta_forgets;            /* beta's second configuration writes no result */

static void alpha_plan(const struct wl_ctx *x, struct wl_plan *p)
{
	(void)x;
	add(p, K_REPS, "a1", 1e-4, 1000, 5, true, false);   /* 0.1 s a repetition, 6 with the warm-up */
	if (alpha_lacks_x) {
		struct wl_cfg cfg = { .name = "x", .variant = "x" };
		wl_absent(p, K_REPS, &cfg, "the machine has no such thing");
	}
	add(p, K_REPS, "a2", 1e-4, 1000, 5, false, false);
	add(p, K_ONCE, "b1", 0.2, 1, 0, true, false);
	add(p, K_ONCE, "b2", 0.2, 1, 0, false, false);
	add(p, K_STEPS, "c1", 0.01, 20, 0, true, false);
}

static void beta_plan(const struct wl_ctx *x, struct wl_plan *p)
{
	(void)x;
	add(p, K_REPS, "d1", 1e-4, 1000, 5, true, false);
	add(p, K_REPS, "d2", 1e-4, 1000, 5, false, beta_forgets);
}

static const struct workload alpha = { .name = "alpha", .summary = "fake", .groups = groups, .kinds = kinds,
				       .n_kinds = K_ROWS, .plan = alpha_plan, .finish = alpha_finish };
static const struct workload beta = { .name = "beta", .summary = "fake", .groups = groups, .kinds = kinds,
				      .n_kinds = K_ROWS, .plan = beta_plan };
static const struct workload *const table[] = { &alpha, &beta };

/* ---- Reading the records back ---------------------------------------------- */
struct result {
	char variant[32], check[16], reason[200];
	bool planned;                    /* has planned_s and measured_s */
	bool reps_fields;                /* has reps_planned and reps_kept */
};
static struct result res[64];
static int n_res;

static void field(const char *line, const char *key, char *out, size_t cap)
{
	char pat[48];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(line, pat);
	out[0] = 0;
	if (!p)
		return;
	p += strlen(pat);
	size_t n = 0;
	while (p[n] && p[n] != '"' && n + 1 < cap)
		n++;
	memcpy(out, p, n);
	out[n] = 0;
}

static void read_results(void)
{
	n_res = 0;
	for (int i = 0; i < n_lines && n_res < 64; i++) {
		if (!strstr(lines[i], "\"kind\":\"result\""))
			continue;
		struct result *r = &res[n_res++];
		field(lines[i], "variant", r->variant, sizeof(r->variant));
		field(lines[i], "check", r->check, sizeof(r->check));
		field(lines[i], "reason", r->reason, sizeof(r->reason));
		r->planned = strstr(lines[i], "\"planned_s\":") && strstr(lines[i], "\"measured_s\":");
		r->reps_fields = strstr(lines[i], "\"reps_planned\":") && strstr(lines[i], "\"reps_kept\":");
	}
}

static int count_lines(const char *needle)
{
	int n = 0;
	for (int i = 0; i < n_lines; i++)
		n += strstr(lines[i], needle) != 0;
	return n;
}

static struct cpuset online = { .n = 2, .cpu = { 0, 1 } };

/* One run of the fake table: budget (0: none), how much slower than calibrated after the plan. */
static void go(double budget_s, double slow_after_plan)
{
	static struct seq_run s;
	n_lines = n_errors = n_seen = 0;
	once_setups = once_teardowns = reps_teardowns = finishes = 0;
	clock_ticks = HZ; /* a second after "boot" */
	slowness = 1.0;
	memset(&s, 0, sizeof(s));
	s.ctx.reps = 5;
	s.ctx.online = &online;
	s.ctx.platform = "test";
	s.table = table;
	s.n_table = ARRAY_SIZE(table);
	s.workloads = 3;
	s.budget_s = budget_s;
	s.start_tsc = 0;
	s.clock = fake_clock;
	(void)slow_after_plan;
	slowness = slow_after_plan; /* calibration is not timed here: the costs are the plan's own */
	seq_go(&s);
	read_results();
}

/* ---- Tests ----------------------------------------------------------------- */
/* No budget: every configuration runs, in plan order, with the absent one in its place; each result has the plan's fields. */
TEST(order_is_plan_order)
{
	alpha_lacks_x = true;
	beta_forgets = false;
	once_setup_ok = true;
	go(0, 1.0);
	static const char *const want[] = { "a1", "x", "a2", "b1", "b2", "c1", "d1", "d2" };
	CHECK_EQ_U(n_res, ARRAY_SIZE(want));
	for (unsigned i = 0; i < ARRAY_SIZE(want) && (int)i < n_res; i++)
		CHECK_STR(res[i].variant, want[i]);
	CHECK_STR(res[1].check, "skipped");
	CHECK_STR(res[1].reason, "the machine has no such thing");
	for (int i = 0; i < n_res; i++)
		if (i != 1) {
			CHECK_STR(res[i].check, "ok");
			CHECK(res[i].planned);
		}
	CHECK(res[0].reps_fields);
	CHECK(!res[3].reps_fields); /* a one-shot has no repetitions to count */
	CHECK_EQ_U(n_errors, 0);
	CHECK_EQ_U(once_setups, 1);         /* once for its kind, not per configuration */
	CHECK_EQ_U(once_teardowns, 1);
	CHECK_EQ_U(reps_teardowns, 2);      /* each workload's kind, after its last */
	CHECK_EQ_U(finishes, 1);
	CHECK_EQ_U(count_lines("\"kind\":\"workload\""), 2);
}

/* A kind whose set-up fails: exactly its configurations are skipped with the reason; the next kind runs its own. */
TEST(kind_setup_fails)
{
	alpha_lacks_x = false;
	beta_forgets = false;
	once_setup_ok = false;
	go(0, 1.0);
	static const char *const want[] = { "a1", "a2", "b1", "b2", "c1", "d1", "d2" };
	CHECK_EQ_U(n_res, ARRAY_SIZE(want));
	for (unsigned i = 0; i < ARRAY_SIZE(want) && (int)i < n_res; i++)
		CHECK_STR(res[i].variant, want[i]);
	CHECK_STR(res[2].check, "skipped");
	CHECK_STR(res[2].reason, "no memory for the pages");
	CHECK_STR(res[3].check, "skipped");
	CHECK_STR(res[4].check, "ok");       /* the steps after them: their own item, run */
	CHECK(res[4].planned);
	CHECK_EQ_U(once_setups, 1);          /* tried once, not again for b2 */
	CHECK_EQ_U(once_teardowns, 0);       /* never set up: never torn down */
	once_setup_ok = true;
}

/* A configuration that writes no result is named in an error record. */
TEST(no_result_is_reported)
{
	alpha_lacks_x = false;
	beta_forgets = true;
	go(0, 1.0);
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_error, "beta: d2 wrote no result") != 0);
	beta_forgets = false;
}

/* A machine that turns 4 times slower after the plan, with a budget: the
 * run refits inside a workload (the next configuration's units shrink after
 * its begin), repetitions stop at their deadlines (short or ok with fewer
 * kept, the reason said), a one-shot that no longer fits is skipped, and the
 * run ends within its budget. */
TEST(slow_machine_under_budget)
{
	alpha_lacks_x = false;
	go(6.0, 4.0);
	CHECK(clock_ticks <= (uint64_t)(6.0 * HZ));
	CHECK(count_lines("\"kind\":\"plan_refit\"") >= 1);
	bool shrunk = false, stopped = false, cut = false;
	for (int i = 0; i < n_seen; i++)
		shrunk |= units_seen[i] > 0 && units_seen[i] < 1000;
	for (int i = 0; i < n_res; i++) {
		CHECK(res[i].planned || !strcmp(res[i].check, "skipped"));
		stopped |= !strcmp(res[i].check, "short") || strstr(res[i].reason, "deadline") != 0;
		cut |= !strcmp(res[i].check, "skipped") && res[i].reason[0];
	}
	CHECK(shrunk);
	CHECK(stopped || cut);
	CHECK_EQ_U(n_res, 7);                /* every configuration says what became of it */
}

int main(void)
{
	RUN(order_is_plan_order);
	RUN(kind_setup_fails);
	RUN(no_result_is_reported);
	RUN(slow_machine_under_budget);
	return check_summary("sequence");
}
