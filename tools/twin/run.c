/* run.c - run.h on Linux: barrier-released runs on pinned threads through per-CPU mailboxes, as kernel/run/run.c, with futex(2) sleeps while idle. */
#define _GNU_SOURCE
#include "run.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "console.h"
#include "evict.h"
#include "hostcpu.h"
#include "lib.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define GO_WAIT 0
#define GO_RUN 1
#define GO_ABORT 2
/* A thread's state in a run: done only when fn ran, so that a thread that
 * never started is never reported with times of zero. */
#define T_PENDING 0
#define T_DONE 1
#define T_ABORTED 2           /* released with GO_ABORT, or missed the release: fn never ran */
/* An idle thread spins this long after its last job before it sleeps on its
 * mailbox: back-to-back repetitions find it awake, a long pause costs no CPU.
 * The barrier itself always spins, so sleeping never widens the start skew. */
#define IDLE_SPIN_MS 20

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
	volatile uint32_t arrived __attribute__((aligned(HOSTCPU_LINE)));
	volatile uint32_t go __attribute__((aligned(HOSTCPU_LINE)));
	volatile uint32_t finished __attribute__((aligned(HOSTCPU_LINE)));
	volatile uint8_t state[QB_MAX_CPUS] __attribute__((aligned(HOSTCPU_LINE)));
	uint32_t thread_of_cpu[QB_MAX_CPUS];
	/* Written by the threads and copied to the caller's result at the end, so
	 * that a lost thread finishing late never writes into a later run. */
	uint64_t start[QB_MAX_CPUS], end[QB_MAX_CPUS];
	volatile uint8_t overran[QB_MAX_CPUS];
	struct instr_thread instr[QB_MAX_CPUS];    /* per thread: noise (TSC only) and counters (none) */
};

/* ---- Private Variables ---------------------------------------------------- */
/* The current job; after a run loses a CPU it is left to that thread and a
 * fresh one is used (user space cannot stop the thread, as INIT does). */
static struct run_job *job;
static struct run_result scratch_res;
uint64_t run_default_timeout_ms = 60000;

/* ---- Private Functions ---------------------------------------------------- */
static void futex_wait(volatile uint32_t *w, uint32_t seen)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, 0, 0, 0);
}

static void futex_wake(volatile uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

static void participate(struct run_job *j, uint32_t t, uint32_t cpu, bool coordinator)
{
	if (j->flags & RUN_FLUSH)
		evict_run();
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
	int64_t off = hostcpu[cpu].tsc_offset;
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
		if (c >= QB_MAX_CPUS || seen[c] || hostcpu[c].state != HOSTCPU_ONLINE)
			return false;
		seen[c] = 1;
		if (c == 0)
			*bsp_thread = t;
	}
	return true;
}

/* A thread that missed a bound keeps running: report it and never give it work again. */
static void lose_cpu(uint32_t cpu, const char *why)
{
	hostcpu[cpu].state = HOSTCPU_LOST;
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "cpu lost");
	rec_str(r, "detail", why);
	rec_u64(r, "cpu", cpu);
	if (hostcpu[cpu].have_snap)
		rec_u64(r, "apic_id", cpuid_snap_apic_id(&hostcpu[cpu].snap));
	else
		rec_null(r, "apic_id");
	rec_u64(r, "os_cpu", hostcpu[cpu].os_cpu);
	rec_str(r, "note", "user space cannot stop a thread: it was left running");
	console_rec_emit(r);
}

/* ---- Public Functions ----------------------------------------------------- */
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
	if (!job && !(job = aligned_alloc(HOSTCPU_LINE, sizeof(*job)))) {
		console_error("run", "no memory for a job");
		return res->status = RUN_BAD_SET;
	}

	struct run_job *j = job;
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

	/* Post the job to each thread's mailbox; wake it if it sleeps. */
	for (uint32_t t = 0; t < set->n; t++) {
		uint32_t c = set->cpu[t];
		j->thread_of_cpu[c] = t;
		if (c == 0)
			continue;
		hostcpu[c].job = j;
		__atomic_add_fetch(&hostcpu[c].job_seq, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&hostcpu[c].sleeping, __ATOMIC_SEQ_CST))
			futex_wake(&hostcpu[c].job_seq);
	}

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
		lose_cpu(set->cpu[t], aborted ? "did not reach the barrier in time"
					      : "did not finish its work in time");
	}
	if (res->n_failed)
		job = 0; /* the lost threads keep this one (their mailbox still points at it) */
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

void run_online_set(struct cpuset *out, uint32_t limit)
{
	out->n = 0;
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++) {
		if (hostcpu[c].state != HOSTCPU_ONLINE)
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

/* A worker thread's mailbox: spin a while, then sleep on the futex, until a
 * job comes. A lost thread leaves after its late job; the others end with
 * the process (finish_now). */
void run_ap_loop(void)
{
	struct hostcpu *me = &hostcpu[hostcpu_self()];
	uint32_t seen = me->job_seq;
	for (;;) {
		uint64_t spin_until = tsc_deadline_ms(IDLE_SPIN_MS);
		while (__atomic_load_n(&me->job_seq, __ATOMIC_ACQUIRE) == seen) {
			if (tsc_read() < spin_until) {
				__builtin_ia32_pause();
				continue;
			}
			__atomic_store_n(&me->sleeping, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&me->job_seq, __ATOMIC_SEQ_CST) == seen)
				futex_wait(&me->job_seq, seen);
			__atomic_store_n(&me->sleeping, 0, __ATOMIC_SEQ_CST);
		}
		seen = me->job_seq;
		struct run_job *j = me->job;
		participate(j, j->thread_of_cpu[hostcpu_self()], hostcpu_self(), false);
		if (me->state == HOSTCPU_LOST)
			pthread_exit(0);
	}
}
