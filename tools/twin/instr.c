/* instr.c (twin) - kernel/run/instr.h for Linux: user space reads no MSRs, so the MSR noise sources and every counter are unavailable; what Linux itself does to a thread (context switches, migrations) is counted instead. */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/resource.h>

#include "instr.h"
#include "lib.h"
#include "tsc.h"

/* Context switches of the calling thread so far, voluntary and not. */
static uint64_t thread_switches(bool *ok)
{
	struct rusage ru;
	*ok = getrusage(RUSAGE_THREAD, &ru) == 0;
	return *ok ? (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw : 0;
}

void instr_init(enum instr_setting turbo, enum instr_setting prefetch, bool safe)
{
	(void)turbo;
	(void)prefetch;
	(void)safe;
}

void instr_state_apply(void) {}
void instr_state_restore(void) {}

void instr_goal(enum pmu_goal g)
{
	(void)g;
}

void instr_run_set(const uint32_t *cpus, uint32_t n)
{
	(void)cpus;
	(void)n;
}

void instr_run_done(void) {}

void instr_prepare(void) {}

void instr_begin(struct instr_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->switches = thread_switches(&m->sched_ok);
	m->cpu = sched_getcpu();
	m->s.tsc = tsc_read();
}

void instr_end(const struct instr_mark *m, struct instr_thread *out)
{
	uint64_t now = tsc_read();
	int cpu = sched_getcpu();
	bool ok;
	uint64_t sw = thread_switches(&ok);
	memset(out, 0, sizeof(*out));
	struct noise_rep *n = &out->noise;
	n->tsc_backwards = now < m->s.tsc;
	n->tsc_ticks = n->tsc_backwards ? 0 : now - m->s.tsc;
	n->flags = n->tsc_backwards ? NOISE_FLAG_TSC_BACKWARDS : 0;
	n->have_sched = ok && m->sched_ok && cpu >= 0 && m->cpu >= 0;
	if (n->have_sched) {
		n->switches = sw - m->switches;
		n->migrated = cpu != m->cpu;
		n->flags |= (n->switches ? NOISE_FLAG_SWITCH : 0) | (n->migrated ? NOISE_FLAG_MIGRATION : 0);
	}
	n->flagged = n->flags != 0;
}

const char *instr_therm_note(void)
{
	return 0;
}

uint32_t instr_pmu_events(void)
{
	return 0;
}

const char *instr_pmu_name(unsigned k)
{
	(void)k;
	return "?";
}

const char *instr_pmu_note(void)
{
	return 0;
}

const char *instr_pmu_why(void)
{
	return "user space: the Linux twin programs no counters";
}

uint64_t instr_msr_writes(void)
{
	return 0;
}

const char *instr_source_why(enum instr_source k)
{
	(void)k;
	return 0; /* "unavailable": user space reads no MSR */
}
