/* run_hw.c - the runner's platform on bare metal (platform.h): per-CPU mailboxes woken by idle_kick, WBINVD, INIT for a lost CPU, and the APs' idle loop. */
#include "platform.h"
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "idle.h"
#include "lib.h"
#include "paging.h"
#include "percpu.h"
#include "pmm.h"
#include "record.h"
#include "run.h"

/* ---- Private Variables ---------------------------------------------------- */
/* One job, from the page allocator at the first run: a lost CPU is stopped
 * with INIT, so it can always be reused. */
static struct run_job *job;

/* ---- Public Functions ----------------------------------------------------- */
bool run_plat_cpu(uint32_t cpu, int64_t *tsc_offset)
{
	if (cpu >= QB_MAX_CPUS || percpu[cpu].state != CPU_ONLINE)
		return false;
	if (tsc_offset)
		*tsc_offset = percpu[cpu].tsc_offset;
	return true;
}

void run_plat_flush(void)
{
	cpu_wbinvd();
}

void run_plat_post(uint32_t cpu, struct run_job *j)
{
	percpu[cpu].job = j;
	__atomic_add_fetch(&percpu[cpu].job_seq, 1, __ATOMIC_RELEASE);
	idle_kick(cpu);
}

/* A CPU that missed a bound is stopped with INIT (it waits for a SIPI that never comes). */
void run_plat_lose(uint32_t cpu, struct rec *r)
{
	percpu[cpu].state = CPU_LOST;
	apic_send_init(percpu[cpu].apic_id);
	rec_u64(r, "apic_id", percpu[cpu].apic_id);
}

struct run_job *run_plat_job(void)
{
	paging_tlb_sync(0); /* every run starts here, on the BSP: no stale 1 GiB translation over workload memory */
	if (!job) {
		uint64_t p = pmm_alloc((run_job_bytes + PMM_PAGE - 1) / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
		job = p ? (struct run_job *)(uintptr_t)p : 0; /* RAM is identity-mapped */
	}
	return job;
}

void run_plat_job_lost(struct run_job *j)
{
	(void)j; /* the lost CPUs were stopped with INIT: it is free again */
}

void run_ap_loop(uint64_t seen)
{
	struct percpu *me = this_cpu();
	for (;;) {
		while (__atomic_load_n(&me->job_seq, __ATOMIC_ACQUIRE) == seen) {
			if (me->stop) {
				me->state = CPU_HALTED;
				cpu_halt_forever();
			}
			idle_wait(&me->job_seq, seen, &me->stop); /* MWAIT or HLT, never a spin */
		}
		seen = me->job_seq;
		paging_tlb_sync(me->index); /* a 1 GiB page split since this CPU's last job: drop its TLB */
		run_participate(me->job, me->index);
		me->job_done = seen;
	}
}
