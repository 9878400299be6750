/* disturb.c - disturb.h on bare metal: with interrupts off, an SMI (MSR_SMI_COUNT, Intel SDM vol. 4, read through msr_read_safe) is the one event a CPU can count that takes it away. */
#include "disturb.h"
#include "cpu.h"
#include "instr.h"
#include "msr.h"
#include "noise.h"
#include "percpu.h"

/* ---- Private Variables ---------------------------------------------------- */
static bool smi_ok[QB_MAX_CPUS];   /* MSR_SMI_COUNT read on this CPU at disturb_open */

/* ---- Public Functions ----------------------------------------------------- */
uint32_t disturb_open(void)
{
	uint32_t c = this_cpu()->index;
	struct noise_caps caps = noise_detect(&percpu[c].snap);
	uint64_t v;
	smi_ok[c] = caps.smi && msr_read_safe(MSR_SMI_COUNT, &v) == MSR_OK;
	return smi_ok[c] ? 1u << GAPS_SMI : 0;
}

bool disturb_read(void *arg, uint64_t v[GAPS_CAUSES])
{
	(void)arg;
	uint64_t smi;
	if (!smi_ok[this_cpu()->index] || msr_read_safe(MSR_SMI_COUNT, &smi) != MSR_OK)
		return false;
	v[GAPS_SMI] = smi & SMI_COUNT_MASK;
	return true;
}

void disturb_close(void)
{
}

uint32_t disturb_causes(void)
{
	return disturb_why(GAPS_SMI) ? 0 : 1u << GAPS_SMI;
}

const char *disturb_why(enum gaps_cause k)
{
	struct noise_caps caps;
	switch (k) {
	case GAPS_SMI:
		caps = noise_detect(&percpu[0].snap);
		if (!caps.smi)
			return caps.smi_why ? caps.smi_why : "unavailable";
		return instr_source_why(INSTR_SRC_SMI); /* "unavailable: #GP on MSR 0x34", or NULL: counted */
	case GAPS_INTERRUPT:
		return "bare metal: interrupts are off during every run";
	case GAPS_SWITCH:
	case GAPS_MIGRATION:
		return "bare metal: no scheduler, each run is pinned to its CPU";
	case GAPS_FAULT:
		return "bare metal: nothing faults but first-touch's own demand-zero regions, by design";
	default:
		return "unavailable";
	}
}

void disturb_config_begin(void)
{
}

bool disturb_config_interrupts(uint64_t *n, const char **how)
{
	(void)n;
	(void)how;
	return false;
}
