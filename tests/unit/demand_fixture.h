/* demand_fixture.h - the host arena, the demand_hw_* stubs and the helpers that the demand tests share (test_demand.c, test_demand_interleave.c): "physical" addresses are host pointers into an arena that the real kernel/mm/pmm.c hands out as two NUMA nodes (or n, one left without memory). */
#ifndef QB_TEST_DEMAND_FIXTURE_H
#define QB_TEST_DEMAND_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include "demand.h"

#define ARENA (48ull << 20)
#define PTE_P 1ull
#define PTE_PS (1ull << 7)

extern uint8_t *arena;
extern uint32_t cur_cpu;
extern int cur_node;
extern uint64_t ticks, flushes, invlpgs, last_invlpg;
extern uint64_t pml4[512];
extern uint64_t reenter_at, reenter_va; /* a fault taken inside the allocator: at reenter_at's first use, at reenter_va */
extern bool reentered_ok;
extern unsigned console_errors_seen;

/* The arena as two nodes, every stub reset. */
void setup(void);
/* The arena split into `n` equal nodes; node `empty` (or -1: none) gets no memory. */
void setup_nodes(int n, int empty);
/* The leaf entry for va, walked from the stub PML4 like the MMU would (large: stop at the PDE). */
uint64_t walk(uint64_t va, bool large);
bool all_zero(uint64_t phys, uint64_t len);
/* Pages a region's CPUs got from another node than they asked for. */
uint64_t off_node_pages(const struct demand_region *r);

#endif
