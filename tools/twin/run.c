/* run.c (twin) - the runner's platform on Linux (kernel/run/platform.h): pinned threads whose mailboxes sleep on a futex, an eviction read for RUN_FLUSH, and lost threads left running (user space cannot stop them as INIT does). The runner itself is kernel/run/run.c, shared with the kernel. */
#define _GNU_SOURCE
#include "platform.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "console.h"
#include "cpuid_snap.h"
#include "evict.h"
#include "hostcpu.h"
#include "lib.h"
#include "record.h"
#include "run.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
/* An idle thread spins this long after its last job before it sleeps on its
 * mailbox: back-to-back repetitions find it awake, a long pause costs no CPU.
 * The barrier itself always spins, so sleeping never widens the start skew. */
#define IDLE_SPIN_MS 20

/* ---- Private Variables ---------------------------------------------------- */
/* The current job; after a run loses a CPU it is left to that thread and a
 * fresh one is used. */
static struct run_job *job;

/* ---- Private Functions ---------------------------------------------------- */
static void futex_wait(volatile uint32_t *w, uint32_t seen)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, 0, 0, 0);
}

static void futex_wake(volatile uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* ---- Public Functions ----------------------------------------------------- */
bool run_plat_cpu(uint32_t cpu, int64_t *tsc_offset)
{
	if (cpu >= QB_MAX_CPUS || hostcpu[cpu].state != HOSTCPU_ONLINE)
		return false;
	if (tsc_offset)
		*tsc_offset = hostcpu[cpu].tsc_offset;
	return true;
}

void run_plat_flush(void)
{
	evict_run();
}

void run_plat_post(uint32_t cpu, struct run_job *j)
{
	hostcpu[cpu].job = j;
	__atomic_add_fetch(&hostcpu[cpu].job_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&hostcpu[cpu].sleeping, __ATOMIC_SEQ_CST))
		futex_wake(&hostcpu[cpu].job_seq);
}

/* A thread that missed a bound keeps running: report it and never give it work again. */
void run_plat_lose(uint32_t cpu, struct rec *r)
{
	hostcpu[cpu].state = HOSTCPU_LOST;
	if (hostcpu[cpu].have_snap)
		rec_u64(r, "apic_id", cpuid_snap_apic_id(&hostcpu[cpu].snap));
	else
		rec_null(r, "apic_id");
	rec_u64(r, "os_cpu", hostcpu[cpu].os_cpu);
	rec_str(r, "note", "user space cannot stop a thread: it was left running");
}

struct run_job *run_plat_job(void)
{
	if (!job)
		job = aligned_alloc(HOSTCPU_LINE, (run_job_bytes + HOSTCPU_LINE - 1) / HOSTCPU_LINE * HOSTCPU_LINE);
	return job;
}

void run_plat_job_lost(struct run_job *j)
{
	if (j == job)
		job = 0; /* the lost threads keep this one (their mailbox still points at it) */
}

/* A worker thread's mailbox: spin a while, then sleep on the futex, until a
 * job comes. A lost thread leaves after its late job; the others end with
 * the process (finish_now). */
void run_ap_loop(uint64_t seen_at_checkin)
{
	struct hostcpu *me = &hostcpu[hostcpu_self()];
	uint32_t seen = (uint32_t)seen_at_checkin; /* the futex word is 32 bits */
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
		run_participate(me->job, hostcpu_self());
		if (me->state == HOSTCPU_LOST)
			pthread_exit(0);
	}
}
