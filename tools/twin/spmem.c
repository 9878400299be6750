/* spmem.c - the Linux twin's half of kernel/mm/spmem.h: nothing to lend, for Linux gives specific-purpose memory to a device-DAX driver (or onlines it as a memory-only node, which the matrix then measures as any node). */
#include "spmem.h"
#include "pmm.h"

/* ---- Public Functions ----------------------------------------------------- */
void spmem_reset(void)
{
}

bool spmem_add(uint64_t base, uint64_t len)
{
	(void)base;
	(void)len;
	return false;
}

uint64_t spmem_bytes(int node)
{
	(void)node;
	return 0;
}

uint64_t spmem_borrow(int node, uint64_t bytes, uint64_t align, const char **why)
{
	(void)node;
	(void)bytes;
	(void)align;
	*why = "on Linux specific-purpose memory belongs to device DAX (or is a memory-only node, measured as one)";
	return 0;
}

void spmem_return(uint64_t base)
{
	(void)base;
}
