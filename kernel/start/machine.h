/* machine.h - what the run knows about the machine, decoded once and reported as boot, cpu, cache and memory records. */
#ifndef QB_KERNEL_MACHINE_H
#define QB_KERNEL_MACHINE_H

#include <stdint.h>
#include "acpi.h"
#include "boot_info.h"
#include "topo.h"

/* Decode the topology of the online CPUs from their CPUID snapshots and the SRAT. */
void machine_decode_topology(const struct acpi_info *ai);


/* The records describing the machine and the boot. */
void machine_report_boot(const struct boot_info *bi, const struct acpi_info *ai, const char *cmdline);
void machine_report_cpus(void);
void machine_report_caches(void);
void machine_report_memory(const struct boot_info *bi, const struct acpi_info *ai);

/* One `acpi_table` record per table with its bytes in hex (dump=acpi). */
void machine_dump_acpi(const struct acpi_info *ai);

/* Bytes of the kernel's own memory and of its stacks, for the boot record. */
uint64_t machine_kernel_bytes(const struct boot_info *bi);
uint64_t machine_stack_bytes(const struct boot_info *bi);

#endif
