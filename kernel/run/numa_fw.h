/* numa_fw.h - what the firmware says of the NUMA nodes, for the workloads to set beside what they measure: each node as the SRAT describes it, the SLIT's distances and the HMAT's claims for memory, by dense node number.
 *
 * A platform service (platform.h): the bare-metal kernel answers from the
 * ACPI tables (kernel/run/numa_fw.c, after numa_fw_set), the Linux twin
 * from /sys/devices/system/node (tools/twin/numa_fw.c). A claim is a
 * statement of the firmware, not a measurement: under a hypervisor it is
 * whatever the virtual machine was configured with. */
#ifndef QB_KERNEL_NUMA_FW_H
#define QB_KERNEL_NUMA_FW_H

#include <stdbool.h>
#include <stdint.h>

/* One node as the firmware describes it. */
struct numa_fw_node {
	bool known;                    /* the firmware described it (an SRAT domain, a /sys node) */
	uint32_t domain;               /* proximity domain (the twin: the OS's node number) */
	uint32_t cpus;                 /* processors on it, as the firmware lists them */
	uint64_t mem_bytes;            /* memory on it, as the firmware lists it */
	bool flags_known;              /* hot_pluggable and non_volatile mean something */
	bool hot_pluggable;            /* some of its memory may be added or removed while running */
	bool non_volatile;             /* some of its memory is persistent */
};

struct acpi_info;

/* Bare metal only: answer from these parsed tables (kept, not copied). */
void numa_fw_set(const struct acpi_info *ai);

/* Where the description came from: "acpi" or "linux sysfs"; NULL: none. */
const char *numa_fw_source(void);

/* Node `node` (a dense node number); a node the firmware did not describe
 * comes back with known false. */
struct numa_fw_node numa_fw_node(uint32_t node);

/* The SLIT's distance from one node to another (10: itself), or -1. */
int numa_fw_distance(uint32_t from, uint32_t to);

/* The firmware's latency claim for memory on node `target` read from a CPU
 * on node `initiator`, in ns; negative when there is none. *kind (when not
 * NULL) says which claim it is: "read-latency", or "access-latency" where
 * the HMAT gives no read latency. */
double numa_fw_latency_ns(uint32_t initiator, uint32_t target, const char **kind);

/* The same for bandwidth, in MB/s: "read-bandwidth", else "access-bandwidth".
 * The HMAT's figure is for the initiator as a whole, not for one CPU. */
double numa_fw_bandwidth_mbs(uint32_t initiator, uint32_t target, const char **kind);

/* Why there are no latency or bandwidth claims at all (no HMAT, an HMAT of
 * a revision whose units are not known, ...); NULL when there may be some. */
const char *numa_fw_claims_note(void);

#endif
