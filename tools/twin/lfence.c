/* lfence.c - lfence.h on Linux: user code cannot read or write DE_CFG, and relies on Linux having set DE_CFG[1] (init_amd(), X86_FEATURE_LFENCE_RDTSC).
 *
 * Only asked where the shared decision needs the bit (tsc_choice_fence_need,
 * as in the kernel: not on Intel, nor where CPUID 8000_0021h:EAX[2] says
 * LFENCE always serialises, nor on AMD families 0Fh and 11h). The answer
 * TSC_DE_CFG_BY_OS makes the boot record say so: rdtsc_fence "lfence (DE_CFG
 * set by the OS)" and rdtsc_fence_why "by the OS: ..." (tsc_choice_fence_why). */
#include "lfence.h"

/* ---- Public Functions ----------------------------------------------------- */
enum tsc_de_cfg lfence_make_serialising(void)
{
	return TSC_DE_CFG_BY_OS;
}
