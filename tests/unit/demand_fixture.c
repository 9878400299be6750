/* demand_fixture.c - the demand tests' arena and stubs; see demand_fixture.h. */
#include "demand_fixture.h"
#include <stdlib.h>
#include <string.h>
#include "pmm.h"

uint8_t *arena;
uint32_t cur_cpu;
int cur_node;
uint64_t ticks, flushes, invlpgs, last_invlpg;
uint64_t pml4[512];

uint32_t demand_hw_cpu(void) { return cur_cpu; }
int demand_hw_node(void) { return cur_node; }
uint64_t demand_hw_ticks(void) { return ticks += 10; }
void demand_hw_invlpg(uint64_t va) { invlpgs++; last_invlpg = va; }
void demand_hw_flush_all_tlbs(void) { flushes++; }
bool demand_hw_set_pml4(unsigned slot, uint64_t entry)
{
	if (slot >= 512 || (entry && pml4[slot]))
		return false;
	pml4[slot] = entry;
	return true;
}
uint64_t demand_hw_nx_bit(void) { return 1ull << 63; }

/* A fault taken inside the allocator: at reenter_at's first use, a fault at reenter_va. */
uint64_t reenter_at, reenter_va;
bool reentered_ok;
void *demand_hw_phys(uint64_t phys)
{
	if (reenter_at && phys == reenter_at) {
		reenter_at = 0;
		reentered_ok = demand_fault(reenter_va, 0x2);
	}
	return (void *)(uintptr_t)phys;
}

unsigned console_errors_seen;
void console_error(const char *what, const char *fmt, ...)
{
	(void)what;
	(void)fmt;
	console_errors_seen++;
}

void setup(void)
{
	if (!arena)
		arena = aligned_alloc(2 << 20, ARENA);
	memset(arena, 0xaa, ARENA); /* garbage, so zeroing is visible */
	memset(pml4, 0, sizeof(pml4));
	uint64_t base = (uint64_t)(uintptr_t)arena;
	struct pmm_node_range nodes[2] = { { base, base + ARENA / 2, 0 }, { base + ARENA / 2, base + ARENA, 1 } };
	pmm_reset(nodes, 2);
	pmm_add(base, ARENA);
	cur_cpu = 0;
	cur_node = 0;
	flushes = invlpgs = 0;
}

/* The leaf entry for va, walked from the stub PML4 like the MMU would. */
uint64_t walk(uint64_t va, bool large)
{
	uint64_t e = pml4[(va >> 39) & 511];
	if (!(e & PTE_P))
		return 0;
	e = ((uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull))[(va >> 30) & 511];
	if (!(e & PTE_P))
		return 0;
	e = ((uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull))[(va >> 21) & 511];
	if (large || !(e & PTE_P))
		return e;
	return ((uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull))[(va >> 12) & 511];
}

bool all_zero(uint64_t phys, uint64_t len)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)phys;
	for (uint64_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* The arena split into `n` equal nodes; node `empty` (or -1: none) gets no
 * range at all, as an SRAT node without memory. */
void setup_nodes(int n, int empty)
{
	setup();
	uint64_t base = (uint64_t)(uintptr_t)arena, part = ARENA / (uint64_t)n;
	struct pmm_node_range nodes[3];
	uint32_t k = 0;
	for (int i = 0; i < n; i++)
		if (i != empty)
			nodes[k++] = (struct pmm_node_range){ base + part * (uint64_t)i, base + part * (uint64_t)(i + 1), i };
	pmm_reset(nodes, k);
	/* The empty node's share of the arena stays out of the allocator. */
	for (int i = 0; i < n; i++)
		if (i != empty)
			pmm_add(base + part * (uint64_t)i, part);
}

uint64_t off_node_pages(const struct demand_region *r)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < QB_MAX_CPUS; c++)
		n += r->cpu[c].off_node;
	return n;
}
