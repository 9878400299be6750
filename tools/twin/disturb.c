/* disturb.c (twin) - disturb.h on Linux: a thread's interrupts (perf's irq tracepoints, perfirq.c), SMIs (perf's msr PMU, perfnoise.c), context switches and page faults (getrusage(2) RUSAGE_THREAD) and migrations (sched_getcpu(3)); a configuration's interrupts from /proc/interrupts where tracepoints are refused. */
#define _GNU_SOURCE
#include "disturb.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "hostcpu.h"
#include "perfirq.h"
#include "perfnoise.h"

/* ---- Constants ------------------------------------------------------------ */
#define RUSAGE_CAUSES ((1u << GAPS_SWITCH) | (1u << GAPS_MIGRATION) | (1u << GAPS_FAULT))
#define HOW_LEN (PERF_WHY_LEN + 96)

/* ---- Private Variables ---------------------------------------------------- */
static struct perfnoise_caps smi_caps;        /* perf's msr PMU, for its smi event only */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char how[HOW_LEN];

/* Each thread's counters, opened by the thread itself. */
static struct thread_counts {
	bool open;
	uint32_t mask;
	struct perfirq_group irq;
	struct perfnoise_group smi;
	int cpu;                               /* where it was at the last read */
	uint64_t migrations;
} th[QB_MAX_CPUS];

/* ---- Private Functions ---------------------------------------------------- */
static void detect(void)
{
	perfirq_system();
	perfnoise_detect(&smi_caps);
	smi_caps.freq = smi_caps.cycles = false; /* the clock is instr.c's; here only SMIs */
	snprintf(how, sizeof(how), "per configuration from /proc/interrupts on its CPUs, timed and untimed parts "
		 "together (%s)", perfirq_system()->why);
}

/* ---- Public Functions ----------------------------------------------------- */
uint32_t disturb_open(void)
{
	pthread_once(&once, detect);
	struct thread_counts *t = &th[hostcpu_self()];
	t->open = true;
	t->mask = RUSAGE_CAUSES;
	t->cpu = sched_getcpu();
	t->migrations = 0;
	perfnoise_init(&t->smi);
	if (perfirq_system()->ok && perfirq_open(perfirq_system(), &t->irq) == 0)
		t->mask |= 1u << GAPS_INTERRUPT;
	if (smi_caps.smi && perfnoise_open(&smi_caps, &t->smi) == 0)
		t->mask |= 1u << GAPS_SMI;
	return t->mask;
}

bool disturb_read(void *arg, uint64_t v[GAPS_CAUSES])
{
	(void)arg;
	struct thread_counts *t = &th[hostcpu_self()];
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru))
		return false;
	v[GAPS_SWITCH] = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	v[GAPS_FAULT] = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu != t->cpu) {
		t->migrations++;
		t->cpu = cpu;
	}
	v[GAPS_MIGRATION] = t->migrations;
	if (t->mask & (1u << GAPS_INTERRUPT) && !perfirq_read(&t->irq, &v[GAPS_INTERRUPT]))
		return false;
	struct noise_sample s;
	if (t->mask & (1u << GAPS_SMI)) {
		if (!perfnoise_sample(&t->smi, &s))
			return false;
		v[GAPS_SMI] = s.smi;
	}
	return true;
}

void disturb_close(void)
{
	struct thread_counts *t = &th[hostcpu_self()];
	if (!t->open)
		return;
	perfirq_close(&t->irq);
	perfnoise_close(&t->smi);
	t->mask = 0;
	t->open = false;
}

uint32_t disturb_causes(void)
{
	pthread_once(&once, detect);
	return RUSAGE_CAUSES | (perfirq_system()->ok ? 1u << GAPS_INTERRUPT : 0) | (smi_caps.smi ? 1u << GAPS_SMI : 0);
}

const char *disturb_why(enum gaps_cause k)
{
	pthread_once(&once, detect);
	switch (k) {
	case GAPS_SMI:
		return smi_caps.smi ? 0 : smi_caps.smi_why;
	case GAPS_INTERRUPT:
		return perfirq_system()->ok ? 0 : perfirq_system()->why;
	default:
		return 0;
	}
}

void disturb_config_begin(void)
{
	pthread_once(&once, detect);
	if (!perfirq_system()->ok)
		perfirq_config_begin();
}

bool disturb_config_interrupts(uint64_t *n, const char **how_out)
{
	if (perfirq_system()->ok || !perfirq_config_end(n))
		return false;
	*how_out = how;
	return true;
}
