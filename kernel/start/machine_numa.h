/* machine_numa.h - the firmware's NUMA claims as records: the SLIT's distances (`slit`) and the HMAT's every structure (`hmat`, one `hmat_lb` per latency and bandwidth structure). */
#ifndef QB_KERNEL_MACHINE_NUMA_H
#define QB_KERNEL_MACHINE_NUMA_H

#include "acpi.h"

/* The slit, hmat and hmat_lb records of the tables that were parsed (none
 * for a table the firmware does not give, or that was rejected), and a
 * line of text for people. */
void machine_report_numa_fw(const struct acpi_info *ai);

#endif
