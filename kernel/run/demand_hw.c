/* demand_hw.c - the hardware side of demand-zero regions: the #PF hook, the CPU's identity, TLB flushes (Intel SDM vol. 3A §4.10.4). */
#include "demand.h"
#include "cpu.h"
#include "fault.h"
#include "paging.h"
#include "percpu.h"
#include "run.h"
#include "tsc.h"

#define VEC_PAGE_FAULT 14

uint32_t demand_hw_cpu(void) { return this_cpu()->index; }
int demand_hw_node(void) { return this_cpu()->node; }
uint64_t demand_hw_ticks(void) { return tsc_read(); }
void demand_hw_invlpg(uint64_t va) { cpu_invlpg(va); }
bool demand_hw_set_pml4(unsigned slot, uint64_t entry) { return paging_set_pml4(slot, entry); }
void *demand_hw_phys(uint64_t phys) { return (void *)(uintptr_t)phys; }
uint64_t demand_hw_nx_bit(void) { return paging_nx_bit(); }

static void reload_cr3(const struct run_thread *t)
{
	(void)t;
	write_cr3(read_cr3()); /* drops every non-global translation */
}

void demand_hw_flush_all_tlbs(void)
{
	static struct cpuset all;
	run_online_set(&all, 0);
	if (run_on(&all, reload_cr3, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		reload_cr3(0); /* at least this CPU; the lost ones were reported by run_on */
}

static bool page_fault_hook(struct fault_frame *f)
{
	return demand_fault(read_cr2(), f->error_code);
}

/* Route page faults in demand-zero regions to demand_fault (once, at boot). */
void demand_hw_init(void)
{
	fault_set_hook(VEC_PAGE_FAULT, page_fault_hook);
}
