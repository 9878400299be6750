/* hostmachine.h - the Linux twin's machine: topology decoded by kernel/measure/topo.c from each CPU's CPUID, and the boot, memory, cpu and cache records with kernel/start/machine.c's field names (docs/records.md). */
#ifndef QB_TWIN_HOSTMACHINE_H
#define QB_TWIN_HOSTMACHINE_H

#include <stdint.h>
#include "topo.h"

/* Decode the online CPUs' snapshots (and sysfs NUMA nodes) with topo_decode. */
void hostmachine_decode_topology(void);


/* The records describing the machine and the run's start. */
void hostmachine_report_boot(const char *cmdline);
void hostmachine_report_memory(void);
void hostmachine_report_cpus(void);
void hostmachine_report_caches(void);

#endif
