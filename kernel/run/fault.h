/* fault.h - exception handling: every unexpected exception ends the run with an error record, all cores stopped. */
#ifndef QB_KERNEL_FAULT_H
#define QB_KERNEL_FAULT_H

#include <stdbool.h>
#include "idt.h"

/* A handler that may resolve an exception (the first-touch workload's
 * demand-zero page faults). It returns true if the faulting instruction can
 * be restarted. Runs with interrupts off on the faulting CPU. */
typedef bool (*fault_hook_fn)(struct fault_frame *f);

/* Install (or with NULL remove) the hook for one vector. */
void fault_set_hook(unsigned vector, fault_hook_fn fn);

/* Called by isr.S for every exception. */
void fault_dispatch(struct fault_frame *f);

/* A broken invariant: report where and why, stop every core, end the run as failed. */
void panic(const char *where, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* Exceptions taken so far (for tests of the hooks). */
unsigned long fault_count(void);

/* #GPs at exception-table instructions resumed at their fixup (kernel/arch/extable.h). */
unsigned long fault_fixups(void);

#endif
