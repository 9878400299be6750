/* smp.h - bring-up of every enabled MADT CPU with INIT-SIPI-SIPI, bounded (Intel SDM vol. 3A §9.4.4; MP spec B.4). */
#ifndef QB_KERNEL_SMP_H
#define QB_KERNEL_SMP_H

#include <stdint.h>
#include "acpi.h"
#include "boot_info.h"

/* Fill percpu[] from the MADT (BSP first, then enabled CPUs in table order),
 * set up the BSP's own slot, and start the APs that run (up to max_cpus in
 * all if non-zero). Waits at most timeout_ms for them; a CPU that does not
 * check in gets an error record and is left out. Then every other enabled
 * CPU is started into the park loop (interrupts off, HLT, QuietBench's own
 * IDT), so that none is left running firmware code. */
void smp_init(const struct boot_info *bi, const struct acpi_info *ai, uint32_t max_cpus,
	      uint64_t timeout_ms);

/* Debug (selftest=ap-silent / ap-late / ap-dawdle): the last AP started never
 * checks in, or checks in only after the bound, or checks in and reaches its
 * mailbox loop only after the BSP posted it the first job (as a vCPU the host
 * descheduled right there would). Call before smp_init. */
enum smp_debug { SMP_DEBUG_NONE, SMP_DEBUG_AP_SILENT, SMP_DEBUG_AP_LATE, SMP_DEBUG_AP_DAWDLE };
void smp_set_debug(enum smp_debug d);

/* Counts for the done record: CPUs listed as enabled in the MADT, and online now. */
uint32_t smp_cpus_found(void);
uint32_t smp_cpus_online(void);
uint32_t smp_cpus_lost(void);      /* came online, then stopped answering and were stopped */

/* Microseconds from the first INIT to the last check-in (0 if no APs). */
uint64_t smp_startup_us(void);

/* Bytes of AP stacks and exception (IST) stacks allocated. */
uint64_t smp_stack_bytes(void);

/* Slots used in percpu[] (online or not), for the cpu records. */
uint32_t smp_cpu_slots(void);

/* Measure every online AP's TSC offset against the BSP (percpu[].tsc_offset). */
void smp_measure_tsc_offsets(void);

/* Park every AP (at the end of the run). */
void smp_park_aps(void);

/* CPUs the run does not use (cpus=, no memory for their stacks, or given up
 * on), started once and halted in QuietBench's park loop. */
uint32_t smp_cpus_parked(void);

/* Every CPU found, counted once: online, parked, not started, lost (smp_slot.h's smp_count). */
struct report_cpus;
void smp_cpu_counts(struct report_cpus *c);

/* Stop every other CPU that QuietBench started and that is still online,
 * one NMI each by APIC ID (never a shorthand: CPUs we did not start must not
 * be touched). Returns how many were sent. For the fault path. */
uint32_t smp_stop_others(void);

#endif
