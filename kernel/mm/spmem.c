/* spmem.c - specific-purpose memory kept apart and lent one range at a time (UEFI 2.10 §7.2.3, EFI_MEMORY_SP); see spmem.h. */
#include "spmem.h"
#include "lib.h"
#include "memtype.h"
#include "paging.h"
#include "pmm.h"

/* ---- Types ---------------------------------------------------------------- */
struct sp_range {
	uint64_t base, len;
};

/* ---- Private Variables ---------------------------------------------------- */
static struct sp_range ranges[SPMEM_MAX_RANGES];
static uint32_t n_ranges;
static uint64_t lent;            /* the loan's base, 0: none */

/* ---- Public Functions ----------------------------------------------------- */
void spmem_reset(void)
{
	n_ranges = 0;
	lent = 0;
}

bool spmem_add(uint64_t base, uint64_t len)
{
	if (!len || base + len < base || n_ranges >= SPMEM_MAX_RANGES)
		return false;
	ranges[n_ranges++] = (struct sp_range){ base, len };
	return true;
}

uint64_t spmem_bytes(int node)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n_ranges; i++)
		if (node == PMM_ANY_NODE || pmm_node_of(ranges[i].base) == node)
			sum += ranges[i].len;
	return sum;
}

uint64_t spmem_borrow(int node, uint64_t bytes, uint64_t align, const char **why)
{
	*why = "no specific-purpose memory on this node";
	if (lent) {
		*why = "specific-purpose memory is lent already";
		return 0;
	}
	for (uint32_t i = 0; i < n_ranges; i++) {
		const struct sp_range *r = &ranges[i];
		uint64_t base = ALIGN_UP(r->base, align);
		if (pmm_node_of(r->base) != node)
			continue;
		if (base < r->base || base - r->base + bytes > r->len) {
			*why = "no specific-purpose range on this node is large enough";
			continue;
		}
		if (!memtype_write_back(base, bytes)) {
			*why = "its memory type is not write-back";
			continue;
		}
		if (paging_map_ram(base, bytes)) {
			*why = "it lies past what the kernel can map, or page tables ran out";
			continue;
		}
		lent = base;
		return base;
	}
	return 0;
}

void spmem_return(uint64_t base)
{
	if (base == lent)
		lent = 0;
}
