/* memtype.c (twin) - kernel/mm/memtype.h for Linux: user space cannot read the MTRRs or the PAT, so the type of its pages is not known here. */
#include "memtype.h"

const char *memtype_result_type(const uint32_t *cpus, uint32_t n)
{
	(void)cpus;
	(void)n;
	return "unknown: user space cannot read the MTRRs or the PAT";
}
