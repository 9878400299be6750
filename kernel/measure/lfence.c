/* lfence.c - DE_CFG[1] set with MSR accesses that survive #GP (msr.h); see lfence.h. */
#include "lfence.h"
#include "msr.h"

/* ---- Public Functions ----------------------------------------------------- */
enum tsc_de_cfg lfence_make_serialising(void)
{
	uint64_t v;
	if (msr_read_safe(MSR_AMD64_DE_CFG, &v) != MSR_OK)
		return TSC_DE_CFG_FAILED;
	if (v & DE_CFG_LFENCE_SERIALIZE)
		return TSC_DE_CFG_SET;
	if (msr_write_safe(MSR_AMD64_DE_CFG, v | DE_CFG_LFENCE_SERIALIZE) != MSR_OK)
		return TSC_DE_CFG_FAILED;
	if (msr_read_safe(MSR_AMD64_DE_CFG, &v) != MSR_OK || !(v & DE_CFG_LFENCE_SERIALIZE))
		return TSC_DE_CFG_FAILED;
	return TSC_DE_CFG_SET;
}
