/* flushprobe.c - a flush on chosen CPUs through the runner, and the probe rounds that warm, flush and chase each cache domain's set; see flushprobe.h. */
#include "flushprobe.h"
#include "chase.h"
#include "disturb.h"
#include "evict.h"
#include "lib.h"
#include "pmm.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define LARGE_PAGE (2ull << 20)
#define LINE 64
#define NO_DOMAIN (-1)
/* What disturbs a round when it moves: not interrupts, which come every
 * few milliseconds (a timer tick touches a few lines, not a set) and show
 * as a wait's gap when they last. */
#define DISTURBING ((1u << GAPS_SMI) | (1u << GAPS_SWITCH) | (1u << GAPS_MIGRATION) | (1u << GAPS_FAULT))

/* ---- Private Variables ---------------------------------------------------- */
/* Each CPU's own flush, timed from its release to its end (flushprobe_flush). */
static struct {
	const struct flushprobe_how *how;
	uint64_t ticks[QB_MAX_CPUS];
	uint64_t sink[QB_MAX_CPUS][8];
} job;

/* One probe round (flushprobe_round). */
static struct {
	struct flushprobe *p;
	const struct flushprobe_how *how;
	struct flushprobe_out *out;
	uint32_t n;                                  /* threads */
	uint8_t flusher[QB_MAX_CPUS];                /* by thread index */
	/* Where the members meet: the method's column (every member), then the
	 * references (the probes alone), each count on its own line. */
	volatile uint32_t warmed __attribute__((aligned(LINE)));
	volatile uint32_t flushed __attribute__((aligned(LINE)));
	volatile uint32_t ref[4] __attribute__((aligned(LINE)));
	volatile uint32_t failed __attribute__((aligned(LINE)));
	uint64_t own[QB_MAX_CPUS];                   /* by thread index: its flush, from the meeting to its end */
} col;
static struct cpuset members;
static int16_t dom_of_cpu[QB_MAX_CPUS];         /* dense CPU -> its domain in the probe set up, or NO_DOMAIN */
static struct flushprobe *opened;               /* the probe whose counters the open/close jobs see */

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

static void flush_one(const struct flushprobe_how *h, uint32_t index)
{
	switch (h->kind) {
	case FLUSHPROBE_WAY:
		run_flush_here(h->way);
		break;
	case FLUSHPROBE_READ:
		job.sink[index][0] = evict_read(h->buf, h->bytes);
		break;
	case FLUSHPROBE_CLFLUSH:
		clflush_range((const volatile uint8_t *)h->buf, h->bytes, h->clflushopt);
		break;
	default:
		break;
	}
}

static void flush_thread(const struct run_thread *t)
{
	uint64_t t0 = tsc_start();
	flush_one(job.how, t->index);
	job.ticks[t->index] = tsc_end() - t0;
}

static uint64_t less_overhead(uint64_t ticks)
{
	return ticks > tsc_overhead() ? ticks - tsc_overhead() : 0;
}

static uint64_t ns_to_ticks(uint64_t ns)
{
	return tsc_hz() ? ns * (tsc_hz() / 1000000) / 1000 : ns * FLUSHPROBE_UNKNOWN_GHZ;
}

/* Wait until *at counts n; *longest keeps the longest gap between two of
 * this CPU's reads while it waited. False when the round failed: a member
 * did not come by the run's bound. */
static bool wait_for(volatile uint32_t *at, uint32_t n, const struct run_thread *t, uint64_t *longest)
{
	uint64_t prev = tsc_read();
	while (__atomic_load_n(at, __ATOMIC_ACQUIRE) < n) {
		uint64_t now = tsc_read();
		if (now > prev && now - prev > *longest)
			*longest = now - prev;
		prev = now;
		if (__atomic_load_n(&col.failed, __ATOMIC_ACQUIRE) || now >= t->deadline) {
			__atomic_store_n(&col.failed, 1, __ATOMIC_RELEASE);
			run_overran(t);
			return false;
		}
		__builtin_ia32_pause();
	}
	return true;
}

/* Count in at *at and wait for the others. */
static bool meet(volatile uint32_t *at, uint32_t n, const struct run_thread *t, uint64_t *longest)
{
	__atomic_add_fetch(at, 1, __ATOMIC_ACQ_REL);
	return wait_for(at, n, t, longest);
}

/* What moved among the probe's counted causes between a and b. */
static uint32_t moved(uint32_t counted, const uint64_t *a, const uint64_t *b)
{
	uint32_t m = 0;
	for (uint32_t k = 0; k < GAPS_CAUSES; k++)
		if ((counted >> k) & 1 && a[k] != b[k])
			m |= 1u << k;
	return m;
}

/* A timed chase of D's set, its longest piece kept; false if it read wrong data. */
static bool chase(const struct flushprobe_domain *D, uint64_t *ticks, uint64_t *longest)
{
	uint64_t sum, piece = 0;
	*ticks = less_overhead(chase_pass_pieces(D->set, D->lines, FLUSHPROBE_PIECE_LINES, &sum, &piece));
	*longest = MAX(*longest, piece);
	return sum == chase_want(D->lines);
}

/* A member that flushes and does not probe: it waits for the probes' sets to
 * be warm, flushes, and rests. */
static void flusher_thread(const struct run_thread *t)
{
	uint64_t gap = 0;
	if (!wait_for(&col.warmed, col.p->n, t, &gap))
		return;
	uint64_t t0 = tsc_start();
	flush_one(col.how, t->index);
	col.own[t->index] = less_overhead(tsc_end() - t0);
	__atomic_add_fetch(&col.flushed, 1, __ATOMIC_ACQ_REL);
}

/* A probing CPU: the method's column, then the warm and the cold references,
 * each warm first, then meet, flush (or not), meet, chase. */
static void probe_thread(const struct run_thread *t, uint32_t d)
{
	struct flushprobe_domain *D = &col.p->dom[d];
	struct flushprobe_out *o = &col.out[d];
	uint64_t before[GAPS_CAUSES] = { 0 }, after[GAPS_CAUSES] = { 0 }, sum = 0, gap = 0, piece = 0;
	const uint32_t probes = col.p->n;
	bool counted = D->counted && disturb_read(0, before), ok = true;

	chase_pass(D->set, D->lines, &sum);
	if (!meet(&col.warmed, probes, t, &gap))
		return;
	uint64_t t0 = tsc_start();
	if (col.flusher[t->index])
		flush_one(col.how, t->index);
	col.own[t->index] = less_overhead(tsc_end() - t0);
	if (!meet(&col.flushed, col.n, t, &gap))
		return;
	ok &= chase(D, &o->after, &piece);

	chase_pass(D->set, D->lines, &sum);
	if (!meet(&col.ref[0], probes, t, &gap) || !meet(&col.ref[1], probes, t, &gap))
		return;
	ok &= chase(D, &o->warm, &piece);

	chase_pass(D->set, D->lines, &sum);
	if (!meet(&col.ref[2], probes, t, &gap))
		return;
	run_evict_lines(D->set, D->lines * CHASE_LINE);
	if (!meet(&col.ref[3], probes, t, &gap))
		return;
	ok &= chase(D, &o->cold, &piece);

	o->wrong = !ok;
	o->longest_wait_gap = gap;
	o->longest_piece = piece;
	o->moved = counted && disturb_read(0, after) ? moved(D->counted, before, after) : 0;
	o->disturbed = o->moved || gap >= col.p->gap_ticks || piece > col.p->piece_ticks;
}

static void round_thread(const struct run_thread *t)
{
	int32_t d = dom_of_cpu[t->cpu];
	if (d == NO_DOMAIN)
		flusher_thread(t);
	else
		probe_thread(t, (uint32_t)d);
}

static void open_thread(const struct run_thread *t)
{
	int32_t d = dom_of_cpu[t->cpu];
	if (d != NO_DOMAIN)
		opened->dom[d].counted = disturb_open() & DISTURBING;
}

static void close_thread(const struct run_thread *t)
{
	(void)t;
	disturb_close();
}

/* The probes' CPUs, in domain order. */
static void probe_cpus(const struct flushprobe *p, struct cpuset *out)
{
	out->n = p->n;
	for (uint32_t d = 0; d < p->n; d++)
		out->cpu[d] = p->dom[d].cpu;
}

/* ---- Public Functions ----------------------------------------------------- */
enum run_status flushprobe_flush(const struct cpuset *set, const struct flushprobe_how *how, uint64_t *slowest)
{
	job.how = how;
	*slowest = 0;
	enum run_status s = run_on(set, flush_thread, &job, 0, run_default_timeout_ms, 0);
	for (uint32_t k = 0; s == RUN_OK && k < set->n; k++)
		*slowest = MAX(*slowest, less_overhead(job.ticks[k]));
	return s;
}

uint64_t flushprobe_alloc(uint64_t bytes, int node, uint64_t *pages)
{
	*pages = ALIGN_UP(bytes, LARGE_PAGE) / PMM_PAGE;
	uint64_t phys = pmm_alloc(*pages, node, LARGE_PAGE, 0, PMM_WORKLOAD);
	if (!phys) {
		*pages = ALIGN_UP(bytes, PMM_PAGE) / PMM_PAGE;
		phys = pmm_alloc(*pages, node, PMM_PAGE, 0, PMM_WORKLOAD);
	}
	return phys;
}

bool flushprobe_setup(struct flushprobe *p, const struct cpuset *probes, const int *nodes, uint64_t set_bytes)
{
	memset(p, 0, sizeof(*p));
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++)
		dom_of_cpu[c] = NO_DOMAIN;
	p->set_bytes = set_bytes;
	p->gap_ticks = ns_to_ticks(FLUSHPROBE_GAP_NS);
	p->piece_ticks = ns_to_ticks((uint64_t)FLUSHPROBE_PIECE_LINES * FLUSHPROBE_LINE_MAX_NS) + p->gap_ticks;
	for (uint32_t i = 0; i < probes->n && p->n < FLUSHPROBE_MAX_DOMAINS; i++) {
		struct flushprobe_domain *D = &p->dom[p->n];
		D->cpu = probes->cpu[i];
		D->node = nodes ? nodes[i] : PMM_ANY_NODE;
		D->phys = flushprobe_alloc(set_bytes, D->node, &D->pages);
		if (!D->phys)
			D->phys = flushprobe_alloc(set_bytes, PMM_ANY_NODE, &D->pages);
		if (!D->phys) {
			p->why = "not checked: no memory for the working sets";
			flushprobe_teardown(p);
			return false;
		}
		D->set = (volatile uint64_t *)(uintptr_t)D->phys; /* RAM is identity-mapped; the twin's is its own */
		D->lines = set_bytes / CHASE_LINE;
		chase_make(D->set, D->lines);
		run_flush_partial_target(D->set, set_bytes);
		dom_of_cpu[D->cpu] = (int16_t)p->n;
		p->n++;
	}
	struct cpuset cpus;
	probe_cpus(p, &cpus);
	opened = p;
	if (run_on(&cpus, open_thread, 0, 0, run_default_timeout_ms, 0) != RUN_OK) {
		p->why = "not checked: the probing CPUs' run failed";
		flushprobe_teardown(p);
		return false;
	}
	return true;
}

void flushprobe_teardown(struct flushprobe *p)
{
	struct cpuset cpus;
	probe_cpus(p, &cpus);
	bool any_counted = false;
	for (uint32_t d = 0; d < p->n; d++)
		any_counted |= p->dom[d].counted != 0;
	if (cpus.n && any_counted)
		run_on(&cpus, close_thread, 0, 0, run_default_timeout_ms, 0);
	run_flush_partial_clear();
	for (uint32_t d = 0; d < p->n; d++) {
		if (p->dom[d].phys)
			pmm_free(p->dom[d].phys, p->dom[d].pages, PMM_WORKLOAD);
		dom_of_cpu[p->dom[d].cpu] = NO_DOMAIN;
	}
	p->n = 0;
	opened = 0;
}

enum run_status flushprobe_round(struct flushprobe *p, const struct cpuset *flushers, const struct flushprobe_how *how,
				 uint64_t timeout_ms, struct flushprobe_out *out, uint64_t *slowest)
{
	/* The members: the flushing CPUs, then every probe not among them. */
	static uint8_t in[QB_MAX_CPUS];
	memset(in, 0, sizeof(in));
	members.n = 0;
	for (uint32_t i = 0; i < flushers->n && members.n < QB_MAX_CPUS; i++) {
		if (flushers->cpu[i] >= QB_MAX_CPUS || in[flushers->cpu[i]])
			continue;
		in[flushers->cpu[i]] = 1;
		col.flusher[members.n] = 1;
		members.cpu[members.n++] = flushers->cpu[i];
	}
	for (uint32_t d = 0; d < p->n && members.n < QB_MAX_CPUS; d++) {
		if (in[p->dom[d].cpu])
			continue;
		in[p->dom[d].cpu] = 1;
		col.flusher[members.n] = 0;
		members.cpu[members.n++] = p->dom[d].cpu;
	}
	col.p = p;
	col.how = how;
	col.out = out;
	col.n = members.n;
	col.warmed = col.flushed = col.failed = 0;
	for (uint32_t k = 0; k < ARRAY_SIZE(col.ref); k++)
		col.ref[k] = 0;
	memset(out, 0, p->n * sizeof(*out));
	memset(col.own, 0, members.n * sizeof(col.own[0]));
	enum run_status s = run_on(&members, round_thread, 0, 0, timeout_ms, 0);
	*slowest = 0;
	for (uint32_t k = 0; s == RUN_OK && k < members.n; k++)
		if (col.flusher[k])
			*slowest = MAX(*slowest, col.own[k]);
	return s;
}
