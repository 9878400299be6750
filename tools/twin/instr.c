/* instr.c (twin) - kernel/instr.h for Linux: user space reads no MSRs, so every noise source but the TSC, and every counter, is unavailable. */
#include "instr.h"
#include "lib.h"
#include "tsc.h"

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

void instr_begin(struct instr_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->s.tsc = tsc_read();
}

void instr_end(const struct instr_mark *m, struct instr_thread *out)
{
	uint64_t now = tsc_read();
	memset(out, 0, sizeof(*out));
	out->noise.tsc_backwards = now < m->s.tsc;
	out->noise.tsc_ticks = out->noise.tsc_backwards ? 0 : now - m->s.tsc;
	out->noise.flags = out->noise.tsc_backwards ? NOISE_FLAG_TSC_BACKWARDS : 0;
	out->noise.flagged = out->noise.flags != 0;
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
