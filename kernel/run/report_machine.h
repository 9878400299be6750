/* report_machine.h - the records and text lines that describe the machine (boot fields, cpu, cache), written once for the kernel and the Linux twin, which gather what goes in them each its own way.
 *
 * Layer: console. Includes console, measure (topo, cpuid_snap, tsc, timer)
 * and lib; included by run/machine.c and tools/twin/hostmachine.c. */
#ifndef QB_KERNEL_REPORT_MACHINE_H
#define QB_KERNEL_REPORT_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "record.h"
#include "topo.h"

/* The fields of the `boot` record that both platforms fill alike: cmdline,
 * cpu_vendor, cpu_model, hypervisor, hypervisor_vendor, hypervisor_name and
 * (under a hypervisor) virtual_note, of the boot CPU's snapshot s; the TSC's
 * fields and memory_bytes (ram). */
void report_boot_cpu(struct rec *r, const char *cmdline, const struct cpuid_snap *s, uint64_t ram);

/* The `boot` record's topology_source, and topology_note when the decoding
 * had to assume something (t->note). */
void report_boot_topology(struct rec *r, const struct topo *t);

/* The hypervisor's common name ("KVM", "QEMU TCG", ...; cpuid_hv_name) and
 * its signature text in sig, or NULL (sig "") on bare metal. */
const char *report_hypervisor(const struct cpuid_snap *s, char sig[CPUID_HV_SIG_LEN + 1]);

/* The "machine:", "virtual:" (under a hypervisor) and "tsc:" text lines of
 * the boot: CPU, CPUs online of those found and how long they took, RAM and
 * NUMA nodes; the hypervisor and what it means for the numbers; the TSC and
 * its timer. */
void report_machine_text(const struct cpuid_snap *s, uint32_t online, uint32_t found, uint64_t startup_us,
			 uint64_t ram, uint32_t nodes);

/* lava=on: the machine as LAVA test cases, so that a LAVA results export
 * alone describes it (tools/qb report reads them). Each has a measurement (a
 * LAVA server drops a monitor's case without one):
 *   machine.cpu.<vendor>.<model> pass <CPUs found> cpus   (spaces as '_')
 *   machine.cpus-online pass <n> cpus
 *   machine.numa-nodes pass <n> nodes
 *   machine.memory pass <MiB> MiB
 *   machine.tsc pass <MHz> MHz                            (left out when unknown)
 *   machine.hypervisor pass 1 <name>                      (spaces as '_'; bare metal: pass 0 none)
 * Says nothing before report_machine_text. */
void report_lava_machine(void);

/* What a `cpu` record says of one CPU slot; a platform that cannot tell a
 * field gives -1 (null in the record). */
struct report_cpu {
	uint32_t index;              /* the slot: cpu numbers in every other record */
	int64_t apic_id, acpi_uid;
	int64_t os_cpu;              /* the OS's CPU number; -1 on bare metal: left out */
	const struct topo_cpu *topo; /* null when it has no topology (not online) */
	int32_t node;
	bool online;
	const char *state;
	int64_t tsc_offset;          /* online CPUs only */
	uint64_t tsc_offset_err;
};

/* The `cpu` record of one CPU: its numbers, package, die, core, thread (and
 * hybrid core type, or nulls without a topology), node, state and TSC offset. */
void report_cpu(const struct report_cpu *c);

/* One `cache` record per cache instance (CPUs as dense numbers through
 * cpu_of_topo), and a text line per level for the BSP's caches. */
void report_caches(const struct topo *t, const uint32_t *cpu_of_topo);

#endif
