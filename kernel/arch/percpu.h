/* percpu.h - one cache-line-padded struct per CPU, indexed by a dense CPU number; %gs points at this CPU's. */
#ifndef QB_KERNEL_PERCPU_H
#define QB_KERNEL_PERCPU_H

#include <stdint.h>
#include "cpuid_snap.h"
#include "gdt.h"
#include "qb_limits.h"

#define CACHE_LINE 64

/* Life of a CPU slot. */
enum cpu_state {
	CPU_ABSENT = 0,      /* MADT entry not enabled, or beyond the cpus= limit */
	CPU_STARTING,        /* INIT-SIPI-SIPI sent */
	CPU_ONLINE,          /* checked in, idle in its mailbox loop */
	CPU_FAILED,          /* did not check in within the bound; left out */
	CPU_LOST,            /* stopped answering after it came online; left out */
	CPU_HALTED,          /* parked at the end of the run */
	CPU_EXCLUDED,        /* enabled, but left out (cpus=, no memory): to be parked */
	CPU_PARKED,          /* left out, started into the park loop (halted, our IDT) */
};

struct run_job;

struct percpu {
	/* Line 0: read by this CPU on every %gs access. */
	struct percpu *self;          /* %gs:0 */
	uint32_t index;               /* dense CPU number, 0 = BSP */
	uint32_t apic_id;             /* x2APIC ID (= xAPIC ID below 255) */
	uint32_t acpi_uid;            /* MADT processor UID */
	int32_t node;                 /* NUMA node from SRAT, 0 without one */
	uint64_t stack_top;           /* this CPU's kernel stack */
	uint32_t fault_depth;         /* nested exceptions on this CPU */

	/* Line 1: the mailbox, written by the coordinator, watched by this CPU
	 * (MONITOR/MWAIT arms on this line: kernel/run/idle.h). */
	struct run_job *volatile job __attribute__((aligned(CACHE_LINE)));
	volatile uint64_t job_seq;    /* bumped for each new job */
	volatile uint64_t job_done;   /* last job_seq finished */
	volatile uint32_t state;      /* enum cpu_state */
	volatile uint32_t stop;       /* 1: park at the next poll */

	/* Cold data. */
	uint64_t checkin_tsc __attribute__((aligned(CACHE_LINE)));
	int64_t tsc_offset;           /* this CPU's TSC minus the BSP's, ticks */
	uint64_t tsc_offset_err;      /* half the best round trip: the offset's uncertainty */
	struct tss64 tss;
	struct cpuid_snap snap;       /* CPUID as this CPU reported it at check-in */
} __attribute__((aligned(CACHE_LINE)));

extern struct percpu percpu[QB_MAX_CPUS];

#ifndef QB_HOST_TEST
/* This CPU's struct, through %gs (set by percpu_install). */
static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

/* Point %gs at percpu[index] on the calling CPU. */
void percpu_install(uint32_t index);
#else
struct percpu *this_cpu(void);  /* a host test's: the CPU it pretends to run on */
#endif

#endif
