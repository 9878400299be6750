/* flushcheck.c - the run's flushes tried and judged at the start, the fallback, and what the records say of them; see flushcheck.h. */
#include "flushcheck.h"
#include "chase.h"
#include "cold.h"
#include "console.h"
#include "evict.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"
#include "stats.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define LARGE_PAGE (2ull << 20)
#define SET_LLC_DIVISOR 8
#define MAX_ROWS 4
#define WHY_LEN 96
#define NAME_RUN_FLUSH_WBINVD "wbinvd"
#define NAME_RUN_FLUSH_EVICT "eviction-read"
#define NAME_RUN_FLUSH_FALLBACK "clflush+eviction-read"

/* ---- Types ---------------------------------------------------------------- */
/* One flush tried, and what it did to the set. */
struct row {
	const char *method;              /* "wbinvd-all", "wbinvd-per-domain", "eviction-read" */
	const char *used_for;            /* "the run's flush", "flush's wbinvd-per-domain", "the fallback" */
	struct flushcheck_how how;
	const struct cpuset *set;
	uint64_t warm[FLUSHCHECK_ROUNDS], cold[FLUSHCHECK_ROUNDS], after[FLUSHCHECK_ROUNDS], own[FLUSHCHECK_ROUNDS];
	struct stats s_warm, s_cold, s_after, s_own;
	struct cold_judgement j;
	const char *why;                 /* not checked: why (NULL when it was) */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct row rows[MAX_ROWS];
static uint32_t n_rows;
static struct {
	bool ran;
	uint64_t set_bytes;
	uint64_t took_ticks;             /* the check's own time, fallback included */
	const struct row *run_row;       /* the row of the flush the results get */
	const struct row *replaced;      /* after a fallback: the run's flush it replaced */
	const char *fallback_why;        /* no fallback although the run's flush was ineffective: why */
	bool has_wbinvd;
} fc;
static struct cpuset domains;
static uint64_t scratch[FLUSHCHECK_ROUNDS];
static char fallback_text[WHY_LEN], verdict_text[WHY_LEN];

/* Each CPU's own flush, timed from its release to its end. */
static struct {
	const struct flushcheck_how *how;
	uint64_t ticks[QB_MAX_CPUS];
	uint64_t sink[QB_MAX_CPUS][8];
} job;

/* ---- Private Functions ---------------------------------------------------- */
static void clflush_range(const volatile uint8_t *p, uint64_t bytes, bool opt)
{
	__asm__ volatile("mfence" ::: "memory");
	for (uint64_t off = 0; off < bytes; off += CHASE_LINE) {
		if (opt)
			__asm__ volatile("clflushopt %0" : "+m"(*(volatile uint8_t *)(p + off)));
		else
			__asm__ volatile("clflush %0" : "+m"(*(volatile uint8_t *)(p + off)));
	}
	__asm__ volatile("mfence" ::: "memory");
}

static void flush_thread(const struct run_thread *t)
{
	const struct flushcheck_how *h = job.how;
	uint64_t t0 = tsc_start();
	switch (h->kind) {
	case FLUSHCHECK_WAY:
		run_flush_here(h->way);
		break;
	case FLUSHCHECK_READ:
		job.sink[t->index][0] = evict_read(h->buf, h->bytes);
		break;
	case FLUSHCHECK_CLFLUSH:
		clflush_range((const volatile uint8_t *)h->buf, h->bytes, h->clflushopt);
		break;
	default:
		break;
	}
	job.ticks[t->index] = tsc_end() - t0;
}

static uint64_t less_overhead(uint64_t ticks)
{
	return ticks > tsc_overhead() ? ticks - tsc_overhead() : 0;
}

/* One round of every row: for each, the warm chase, CLFLUSH and the chase,
 * then its flush and the chase; each chase after a warming pass, so that
 * every one starts from the same warm set. A row whose flush's run failed
 * gets its own why and is left out of later rounds; the others go on.
 * False with *why on a failure that spoils every row. */
static bool round_of(volatile uint64_t *set, uint64_t lines, uint64_t bytes, uint32_t first, uint32_t k,
		     const char **why)
{
	uint64_t want = chase_want(lines), sum;
	for (uint32_t i = first; i < n_rows; i++) {
		struct row *r = &rows[i];
		for (int col = 0; col < 3 && !r->why; col++) {
			uint64_t own = 0;
			chase_pass(set, lines, &sum); /* warm it */
			if (col == 1)
				run_evict_lines(set, bytes);
			if (col == 2 && flushcheck_flush(r->set, &r->how, &own) != RUN_OK) {
				r->why = "not checked: the flush's run failed";
				break;
			}
			uint64_t t = less_overhead(chase_pass(set, lines, &sum));
			if (sum != want) {
				*why = "not checked: the chase read wrong data";
				return false;
			}
			uint64_t *to = col == 0 ? r->warm : col == 1 ? r->cold : r->after;
			to[k] = t;
			if (col == 2)
				r->own[k] = own;
		}
	}
	return true;
}

/* The rows from `first` on, measured over one working set: an untimed
 * round, then FLUSHCHECK_ROUNDS timed ones. */
static void measure(const struct flushcheck_cfg *cfg, uint32_t first)
{
	uint64_t pages, bytes = fc.set_bytes;
	uint64_t phys = flushcheck_alloc(bytes, (int)cfg->topo->cpu[0].node, &pages);
	if (!phys)
		phys = flushcheck_alloc(bytes, PMM_ANY_NODE, &pages);
	const char *why = 0;
	if (!phys)
		why = "not checked: no memory for the working set";
	volatile uint64_t *set = (volatile uint64_t *)(uintptr_t)phys;
	uint64_t lines = bytes / CHASE_LINE;
	if (set)
		chase_make(set, lines);
	for (uint32_t i = first; i < n_rows; i++)
		rows[i].why = 0;
	for (uint32_t k = 0; set && !why && k <= FLUSHCHECK_ROUNDS; k++)
		round_of(set, lines, bytes, first, k ? k - 1 : 0, &why); /* round 0 warms the code, and is measured again */
	for (uint32_t i = first; i < n_rows; i++) {
		struct row *r = &rows[i];
		if (why)
			r->why = why;
		if (r->why) {
			r->j.verdict = COLD_NOT_CHECKED;
			continue;
		}
		stats_compute(r->warm, FLUSHCHECK_ROUNDS, scratch, &r->s_warm);
		stats_compute(r->cold, FLUSHCHECK_ROUNDS, scratch, &r->s_cold);
		stats_compute(r->after, FLUSHCHECK_ROUNDS, scratch, &r->s_after);
		stats_compute(r->own, FLUSHCHECK_ROUNDS, scratch, &r->s_own);
		cold_judge(&r->s_warm, &r->s_cold, r->s_after.median, &r->j);
	}
	if (phys)
		pmm_free(phys, pages, PMM_WORKLOAD);
}

static struct row *add_row(const char *method, const char *used_for, enum run_flush_way way, const struct cpuset *set)
{
	if (n_rows >= MAX_ROWS)
		return 0;
	struct row *r = &rows[n_rows++];
	memset(r, 0, sizeof(*r));
	r->method = method;
	r->used_for = used_for;
	r->how.way = way;
	r->set = set;
	r->j.verdict = COLD_NOT_CHECKED;
	return r;
}

/* The verdict's words, with the reason where nothing was checked. */
static const char *verdict_of(const struct row *r)
{
	if (!r)
		return "not checked";
	return r->why ? r->why : cold_verdict_name(r->j.verdict);
}

static void say(const struct row *r)
{
	if (r->why || r->j.scale != COLD_SCALE_OK)
		kprintf("flush check: %-18s %s (%s)\n", r->method, verdict_of(r), r->used_for);
	else
		kprintf("flush check: %-18s %s: %.0f%% as cold as CLFLUSH of the set (%.0f / %.0f / %.0f ticks warm / "
			"clflush / after it; %s)\n", r->method, verdict_of(r), r->j.pct, r->s_warm.median,
			r->s_cold.median, r->s_after.median, r->used_for);
}

static void rec_row(struct rec *r, const struct row *w)
{
	rec_obj_begin(r, 0);
	rec_str(r, "method", w->method);
	rec_str(r, "used_for", w->used_for);
	rec_u64(r, "cpus", w->set ? w->set->n : 0);
	bool have = !w->why;
	if (have) {
		rec_f64(r, "warm_ticks", w->s_warm.median, 1);
		rec_f64(r, "clflush_ticks", w->s_cold.median, 1);
		rec_f64(r, "after_ticks", w->s_after.median, 1);
		rec_f64(r, "flush_ticks", w->s_own.median, 1);
	} else {
		rec_null(r, "warm_ticks");
		rec_null(r, "clflush_ticks");
		rec_null(r, "after_ticks");
		rec_null(r, "flush_ticks");
	}
	if (have && w->j.scale == COLD_SCALE_OK)
		rec_f64(r, "cold_pct", w->j.pct, 1);
	else
		rec_null(r, "cold_pct");
	rec_str(r, "verdict", verdict_of(w));
	rec_obj_end(r);
}

/* The check itself; flushcheck_run times it. */
static void check(const struct flushcheck_cfg *cfg)
{
	memset(&fc, 0, sizeof(fc));
	n_rows = 0;
	fc.ran = true;
	fc.has_wbinvd = cfg->has_wbinvd;
	fc.set_bytes = flushcheck_set_bytes(flushcheck_llc_bytes(cfg->topo), cfg->quick);
	run_flush_fallback(false);
	flushcheck_domains(cfg->topo, cfg->cpu_of_topo, cfg->online, &domains);
	struct row *run_row;
	if (cfg->has_wbinvd) {
		run_row = add_row("wbinvd-all", "the run's flush", RUN_FLUSH_PLATFORM, cfg->online);
		add_row("wbinvd-per-domain", "flush's wbinvd-per-domain", RUN_FLUSH_PLATFORM, &domains);
	} else {
		run_row = add_row("eviction-read", "the run's flush", RUN_FLUSH_PLATFORM, cfg->online);
	}
	kprintf("flush check: a chase over %llu bytes after each flush, against the warm chase and CLFLUSH of the set, "
		"%u rounds\n", (unsigned long long)fc.set_bytes, FLUSHCHECK_ROUNDS);
	measure(cfg, 0);
	for (uint32_t i = 0; i < n_rows; i++)
		say(&rows[i]);
	fc.run_row = run_row;
	if (run_row->j.verdict != COLD_INEFFECTIVE)
		return;
	/* Ineffective: the eviction read instead, wherever the run flushes. */
	if (!evict_setup(cfg->topo)) {
		fc.fallback_why = "none possible: no memory for the eviction buffer";
		kprintf("flush check: %s was ineffective, and there is no memory for the eviction buffer: the results "
			"say so\n", run_row->method);
		return;
	}
	uint32_t first = n_rows;
	struct row *fb = add_row("eviction-read", "the fallback", RUN_FLUSH_EVICTION, cfg->online);
	if (!fb)
		return;
	run_flush_fallback(true);
	fc.replaced = run_row;
	fc.run_row = fb;
	measure(cfg, first);
	say(fb);
	kprintf("flush check: %s was ineffective: the run's flush is now an eviction read of %llu MiB from every "
		"participating CPU, each workload's own data CLFLUSHed\n", run_row->method,
		(unsigned long long)(evict_bytes() >> 20));
}

/* ---- Public Functions ----------------------------------------------------- */
void flushcheck_run(const struct flushcheck_cfg *cfg)
{
	uint64_t t0 = tsc_read();
	check(cfg);
	fc.took_ticks = tsc_read() - t0;
	kprintf("flush check: %llu ms\n", (unsigned long long)tsc_to_us(fc.took_ticks) / 1000);
}

void flushcheck_rec(struct rec *r)
{
	rec_obj_begin(r, "flush_check");
	if (!fc.ran) {
		rec_str(r, "verdict", "not checked");
		rec_obj_end(r);
		return;
	}
	rec_u64(r, "set_bytes", fc.set_bytes);
	rec_u64(r, "rounds", FLUSHCHECK_ROUNDS);
	if (tsc_hz())
		rec_f64(r, "took_s", (double)fc.took_ticks / (double)tsc_hz(), 3);
	else
		rec_null(r, "took_s");
	rec_arr_begin(r, "methods");
	for (uint32_t i = 0; i < n_rows; i++)
		rec_row(r, &rows[i]);
	rec_arr_end(r);
	rec_str(r, "run_flush", flushcheck_run_flush());
	rec_str(r, "verdict", verdict_of(fc.run_row));
	if (fc.replaced) {
		fmt_snprintf(fallback_text, sizeof(fallback_text), "%s: %s was ineffective", NAME_RUN_FLUSH_FALLBACK,
			     fc.replaced->method);
		rec_str(r, "fallback", fallback_text);
	} else if (fc.fallback_why) {
		rec_str(r, "fallback", fc.fallback_why);
	} else {
		rec_null(r, "fallback");
	}
	if (fc.replaced)
		rec_u64(r, "evict_bytes", evict_bytes());
	rec_obj_end(r);
}

const char *flushcheck_run_flush(void)
{
	if (!fc.ran)
		return "unknown: not checked";
	if (run_flush_fell_back())
		return NAME_RUN_FLUSH_FALLBACK;
	return fc.has_wbinvd ? NAME_RUN_FLUSH_WBINVD : NAME_RUN_FLUSH_EVICT;
}

void flushcheck_params(struct rec *r, bool flushed, const char *suffix)
{
	if (!flushed) {
		rec_str(r, "flush", "none");
		return;
	}
	char name[WHY_LEN];
	fmt_snprintf(name, sizeof(name), "%s%s", flushcheck_run_flush(), suffix ? suffix : "");
	rec_str(r, "flush", name);
	rec_str(r, "flush_verdict", verdict_of(fc.ran ? fc.run_row : 0));
	if (fc.replaced) {
		fmt_snprintf(verdict_text, sizeof(verdict_text), "%s was ineffective", fc.replaced->method);
		rec_str(r, "flush_fallback", verdict_text);
	}
}

uint64_t flushcheck_llc_bytes(const struct topo *t)
{
	uint64_t llc = 0;
	uint8_t top = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		if (c->level > top || (c->level == top && c->size > llc)) {
			top = c->level;
			llc = c->size;
		}
	}
	return llc ? llc : FLUSHCHECK_FALLBACK_LLC;
}

uint64_t flushcheck_set_bytes(uint64_t llc, bool quick)
{
	uint64_t b = ALIGN_DOWN(llc / SET_LLC_DIVISOR, PMM_PAGE);
	if (quick)
		b = MIN(b, FLUSHCHECK_QUICK_SET_MAX);
	return MAX(b, PMM_PAGE);
}

void flushcheck_domains(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
			struct cpuset *out)
{
	uint8_t top = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++)
		top = MAX(top, t->cache[i].level);
	out->n = 0;
	for (uint32_t i = 0; t && i < t->ncaches && out->n < QB_MAX_CPUS; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->level != top || c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		for (uint32_t k = 0; k < t->ncpu; k++) {
			if (topo_cpuset_has(&c->shared_by, k)) {
				out->cpu[out->n++] = cpu_of_topo[k];
				break;
			}
		}
	}
	if (!out->n) {
		out->n = 1;
		out->cpu[0] = online->cpu[0];
	}
}

uint64_t flushcheck_alloc(uint64_t bytes, int node, uint64_t *pages)
{
	*pages = ALIGN_UP(bytes, LARGE_PAGE) / PMM_PAGE;
	uint64_t phys = pmm_alloc(*pages, node, LARGE_PAGE, 0, PMM_WORKLOAD);
	if (!phys) {
		*pages = ALIGN_UP(bytes, PMM_PAGE) / PMM_PAGE;
		phys = pmm_alloc(*pages, node, PMM_PAGE, 0, PMM_WORKLOAD);
	}
	return phys;
}

enum run_status flushcheck_flush(const struct cpuset *set, const struct flushcheck_how *how, uint64_t *slowest)
{
	job.how = how;
	*slowest = 0;
	enum run_status s = run_on(set, flush_thread, &job, 0, run_default_timeout_ms, 0);
	for (uint32_t k = 0; s == RUN_OK && k < set->n; k++)
		*slowest = MAX(*slowest, less_overhead(job.ticks[k]));
	return s;
}
