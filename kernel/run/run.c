/* run.c - barrier-released runs on chosen CPUs, with bounds, start skew and lost CPUs; see run.h.
 *
 * Written once for both platforms: the bare-metal kernel and the Linux twin
 * differ only in platform.h's hooks (kernel/run/run_hw.c,
 * tools/twin/run.c). Each thread writes its times into the job, and they
 * are copied to the caller's result at the end, so that a lost CPU that
 * finishes late never writes into a later run. */
#include "run.h"
#include "console.h"
#include "evict.h"
#include "lib.h"
#include "platform.h"
#include "tsc.h"

#define RUN_LINE 64 /* a cache line: the barrier's words each on its own */
#define PARTIAL_HASH 2654435761u /* Knuth's multiplicative hash: flush_partial's lines spread over the set */

/* ---- Constants ------------------------------------------------------------ */
#define GO_WAIT 0
#define GO_RUN 1
#define GO_ABORT 2
/* A thread's state in a run: done only when fn ran, so that a thread that
 * never started is never reported with times of zero. */
#define T_PENDING 0
#define T_DONE 1
#define T_ABORTED 2           /* released with GO_ABORT, or missed the release: fn never ran */

/* ---- Types ---------------------------------------------------------------- */
struct run_job {
	run_fn fn;
	void *arg;
	unsigned flags;
	uint32_t n;
	uint64_t deadline;                    /* TSC: nobody waits for the barrier past this */
	uint64_t start_deadline;              /* TSC: a participant gives up on the release (deadline + grace) */
	uint64_t work_ticks;                  /* the bound on the work, from the release */
	volatile uint64_t work_deadline;      /* TSC: release + work_ticks, set at the release */
	uint64_t release_tsc;
	volatile uint32_t arrived __attribute__((aligned(RUN_LINE)));
	volatile uint32_t go __attribute__((aligned(RUN_LINE)));
	volatile uint32_t finished __attribute__((aligned(RUN_LINE)));
	volatile uint8_t state[QB_MAX_CPUS] __attribute__((aligned(RUN_LINE)));
	uint32_t thread_of_cpu[QB_MAX_CPUS];
	/* Written by the threads and copied to the caller's result at the end, so
	 * that a lost thread finishing late never writes into a later run. */
	uint64_t start[QB_MAX_CPUS], end[QB_MAX_CPUS];
	volatile uint8_t overran[QB_MAX_CPUS];
	struct instr_thread instr[QB_MAX_CPUS];    /* per thread: noise (TSC only) and counters (none) */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct run_result scratch_res;
static bool flush_fallback, flush_noop;
static uint32_t flush_partial_pct, n_partial;
static struct { const volatile uint8_t *p; uint64_t bytes; } partial[RUN_PARTIAL_TARGETS];
const unsigned long run_job_bytes = sizeof(struct run_job);
const uint64_t run_default_timeout_ms = 60000;

/* ---- Private Functions ---------------------------------------------------- */
static void participate(struct run_job *j, uint32_t t, uint32_t cpu, bool coordinator)
{
	if (j->flags & RUN_FLUSH)
		run_flush_here(RUN_FLUSH_RUNS);
	instr_prepare();
	__atomic_add_fetch(&j->arrived, 1, __ATOMIC_ACQ_REL);
	if (coordinator) {
		while (j->arrived < j->n && tsc_read() < j->deadline)
			__builtin_ia32_pause();
		j->release_tsc = tsc_read();
		j->work_deadline = j->release_tsc + j->work_ticks;
		__atomic_store_n(&j->go, j->arrived == j->n ? GO_RUN : GO_ABORT, __ATOMIC_RELEASE);
	} else {
		/* The coordinator decides at j->deadline; wait a grace past it
		 * so that a late release is still seen as one. */
		while (__atomic_load_n(&j->go, __ATOMIC_ACQUIRE) == GO_WAIT && tsc_read() < j->start_deadline)
			__builtin_ia32_pause();
	}
	if (__atomic_load_n(&j->go, __ATOMIC_ACQUIRE) != GO_RUN) {
		j->state[t] = T_ABORTED;
		__atomic_add_fetch(&j->finished, 1, __ATOMIC_ACQ_REL);
		return;
	}
	int64_t off = 0;
	run_plat_cpu(cpu, &off);
	struct run_thread th = { t, cpu, j->n, j->arg, j->work_deadline + (uint64_t)off, &j->overran[t] };
	struct instr_mark mark;
	instr_begin(&mark);
	uint64_t s = tsc_start();
	j->fn(&th);
	uint64_t e = tsc_end();
	instr_end(&mark, &j->instr[t]);
	j->start[t] = s - (uint64_t)off;
	j->end[t] = e - (uint64_t)off;
	j->state[t] = T_DONE;
	__atomic_add_fetch(&j->finished, 1, __ATOMIC_ACQ_REL);
}

static bool valid_set(const struct cpuset *set, uint32_t *bsp_thread)
{
	static uint8_t seen[QB_MAX_CPUS];
	*bsp_thread = UINT32_MAX;
	if (set->n == 0 || set->n > QB_MAX_CPUS)
		return false;
	memset(seen, 0, sizeof(seen));
	for (uint32_t t = 0; t < set->n; t++) {
		uint32_t c = set->cpu[t];
		if (c >= QB_MAX_CPUS || seen[c] || !run_plat_cpu(c, 0))
			return false;
		seen[c] = 1;
		if (c == 0)
			*bsp_thread = t;
	}
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
const struct run_result *run_last(void)
{
	return &scratch_res;
}

enum run_status run_on(const struct cpuset *set, run_fn fn, void *arg, unsigned flags,
		       uint64_t timeout_ms, struct run_result *res)
{
	uint32_t bsp_t;
	if (!res)
		res = &scratch_res;
	res->n = set->n;
	res->n_failed = 0;
	res->n_overran = 0;
	res->start_skew = 0;
	if (!valid_set(set, &bsp_t))
		return res->status = RUN_BAD_SET;
	struct run_job *j = run_plat_job();
	if (!j) {
		console_error("run", "no memory for a job");
		return res->status = RUN_BAD_SET;
	}
	instr_run_set(set->cpu, set->n);
	j->fn = fn;
	j->arg = arg;
	j->flags = flags;
	j->n = set->n;
	/* The barrier has its own bound: waking, flushing and arriving are not the work. */
	j->deadline = tsc_deadline_ms(MAX(timeout_ms, (uint64_t)RUN_ARRIVAL_MIN_MS));
	j->work_ticks = tsc_deadline_ms(timeout_ms) - tsc_read();
	j->start_deadline = j->deadline + (tsc_deadline_ms(run_grace_ms(timeout_ms)) - tsc_read());
	j->work_deadline = ~0ull;
	j->arrived = 0;
	j->go = GO_WAIT;
	j->finished = 0;
	memset((void *)j->state, T_PENDING, set->n);
	memset((void *)j->overran, 0, set->n);
	memset(j->start, 0, set->n * sizeof(j->start[0]));
	memset(j->end, 0, set->n * sizeof(j->end[0]));

	/* Post the job to each CPU's mailbox; wake it if it rests. */
	for (uint32_t t = 0; t < set->n; t++)
		j->thread_of_cpu[set->cpu[t]] = t;
	for (uint32_t t = 0; t < set->n; t++)
		if (set->cpu[t] != 0)
			run_plat_post(set->cpu[t], j);

	if (bsp_t != UINT32_MAX) {
		participate(j, bsp_t, 0, true);
	} else {
		/* Coordinate from outside the set. */
		while (j->arrived < j->n && tsc_read() < j->deadline)
			__builtin_ia32_pause();
		j->release_tsc = tsc_read();
		j->work_deadline = j->release_tsc + j->work_ticks;
		__atomic_store_n(&j->go, j->arrived == j->n ? GO_RUN : GO_ABORT, __ATOMIC_RELEASE);
	}
	bool aborted = j->go != GO_RUN;
	uint32_t missed_start = 0;
	uint64_t give_up = (aborted ? tsc_read() : j->work_deadline) +
			   (tsc_deadline_ms(run_grace_ms(timeout_ms)) - tsc_read());
	while (j->finished < j->n && tsc_read() < give_up)
		__builtin_ia32_pause();
	instr_run_done();

	res->release_tsc = j->release_tsc;
	memcpy(res->start, j->start, set->n * sizeof(res->start[0]));
	memcpy(res->end, j->end, set->n * sizeof(res->end[0]));
	memcpy(res->instr, j->instr, set->n * sizeof(res->instr[0]));
	for (uint32_t t = 0; t < set->n; t++) {
		if (j->state[t] == T_DONE || (aborted && j->state[t] == T_ABORTED))
			continue;
		if (j->state[t] == T_ABORTED) {
			/* It gave up on the release that came after all: alive, but fn never ran. */
			res->failed[res->n_failed++] = set->cpu[t];
			missed_start++;
			console_error("run", "cpu %u missed the start of the run: aborted, not run", set->cpu[t]);
			continue;
		}
		res->failed[res->n_failed++] = set->cpu[t];
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "cpu lost");
		rec_str(r, "detail", aborted ? "did not reach the barrier in time" : "did not finish its work in time");
		rec_u64(r, "cpu", set->cpu[t]);
		run_plat_lose(set->cpu[t], r);
		console_rec_emit(r);
	}
	if (res->n_failed)
		run_plat_job_lost(j); /* the lost CPUs may still hold it */
	if (aborted || missed_start)
		return res->status = RUN_NO_START;
	if (res->n_failed)
		return res->status = RUN_TIMEOUT;
	for (uint32_t t = 0; t < set->n; t++)
		res->n_overran += j->overran[t];

	uint64_t lo = ~0ull, hi = 0;
	for (uint32_t t = 0; t < set->n; t++) {
		lo = MIN(lo, res->start[t]);
		hi = MAX(hi, res->start[t]);
	}
	res->start_skew = hi - lo;
	return res->status = res->n_overran ? RUN_OVERRUN : RUN_OK;
}

uint64_t run_grace_ms(uint64_t timeout_ms)
{
	return MAX((uint64_t)RUN_GRACE_MIN_MS, timeout_ms / 4);
}

static void flush_fn(const struct run_thread *t)
{
	(void)t; /* RUN_FLUSH already did the work */
}

enum run_status run_flush(const struct cpuset *set)
{
	return run_on(set, flush_fn, 0, RUN_FLUSH, run_default_timeout_ms, 0);
}

/* flush_partial's flush: CLFLUSH each line of every target whose number,
 * scrambled (Knuth's multiplicative hash), falls in the first pct of 100. */
static void flush_partly(void)
{
	__asm__ volatile("mfence" ::: "memory");
	for (uint32_t k = 0; k < n_partial; k++)
		for (uint64_t i = 0; i < partial[k].bytes / RUN_LINE; i++)
			if ((uint32_t)(i * PARTIAL_HASH) % 100 < flush_partial_pct)
				__asm__ volatile("clflush %0" : "+m"(*(volatile uint8_t *)(partial[k].p + i * RUN_LINE)));
	__asm__ volatile("mfence" ::: "memory");
}

void run_flush_here(enum run_flush_way w)
{
	if (w == RUN_FLUSH_EVICTION || (w == RUN_FLUSH_RUNS && flush_fallback))
		evict_fallback_run();
	else if (flush_partial_pct)
		flush_partly();
	else if (!flush_noop)
		run_plat_flush();
}

void run_flush_partial(uint32_t pct)
{
	flush_partial_pct = MIN(pct, 100u);
}

bool run_flush_partial_target(const volatile void *p, uint64_t bytes)
{
	if (n_partial >= RUN_PARTIAL_TARGETS)
		return false;
	partial[n_partial].p = p;
	partial[n_partial].bytes = bytes;
	__atomic_store_n(&n_partial, n_partial + 1, __ATOMIC_RELEASE);
	return true;
}

void run_flush_partial_clear(void)
{
	__atomic_store_n(&n_partial, 0, __ATOMIC_RELEASE);
}

void run_flush_fallback(bool on)
{
	flush_fallback = on;
}

bool run_flush_fell_back(void)
{
	return flush_fallback;
}

void run_flush_noop(bool on)
{
	flush_noop = on;
}

void run_evict_lines(const volatile void *p, uint64_t bytes)
{
	const volatile uint8_t *b = p;
	__asm__ volatile("mfence" ::: "memory");
	for (uint64_t off = 0; off < bytes; off += RUN_LINE)
		__asm__ volatile("clflush %0" : "+m"(*(volatile uint8_t *)(b + off)));
	if (bytes) /* the last line, when p is not line-aligned */
		__asm__ volatile("clflush %0" : "+m"(*(volatile uint8_t *)(b + bytes - 1)));
	__asm__ volatile("mfence" ::: "memory");
}

void run_online_set(struct cpuset *out, uint32_t limit)
{
	out->n = 0;
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++) {
		if (!run_plat_cpu(c, 0))
			continue;
		if (limit && out->n >= limit)
			break;
		out->cpu[out->n++] = c;
	}
}

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_OK: return "ok";
	case RUN_BAD_SET: return "bad cpu set";
	case RUN_NO_START: return "cpus did not start: the barrier or its release was missed";
	case RUN_TIMEOUT: return "cpus did not finish";
	case RUN_OVERRUN: return "overrun: the work passed its bound";
	}
	return "unknown";
}

void run_participate(struct run_job *j, uint32_t cpu)
{
	participate(j, j->thread_of_cpu[cpu], cpu, false);
}
