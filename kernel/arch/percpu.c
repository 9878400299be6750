/* percpu.c - the per-CPU array and %gs setup; see percpu.h. */
#include "percpu.h"
#include "cpu.h"
#include "msr.h"

struct percpu percpu[QB_MAX_CPUS];

void percpu_install(uint32_t index)
{
	percpu[index].self = &percpu[index];
	percpu[index].index = index;
	wrmsr(MSR_IA32_GS_BASE, (uint64_t)(uintptr_t)&percpu[index]);
}
