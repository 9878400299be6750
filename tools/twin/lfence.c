/* lfence.c - lfence.h on Linux: user code cannot write DE_CFG, and needs not: Linux sets DE_CFG[1] on every AMD CPU that has it (init_amd(), X86_FEATURE_LFENCE_RDTSC). */
#include "lfence.h"

/* ---- Public Functions ----------------------------------------------------- */
enum tsc_de_cfg lfence_make_serialising(void)
{
	return TSC_DE_CFG_BY_OS;
}
