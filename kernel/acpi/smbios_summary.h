/* smbios_summary.h - what SMBIOS says of memory, in the words people use: each populated memory device set against the NUMA nodes (types 19 and 20 against the SRAT), and the one-line memory configuration ("16 of 32 slots: 16 x 32 GiB DDR5-4800 RDIMM, ECC; 8 per node").
 *
 * Layer: acpi. Pure: the node of an address comes from the caller (the
 * SRAT's ranges on bare metal, /sys/devices/system/memory on the twin). */
#ifndef QB_KERNEL_SMBIOS_SUMMARY_H
#define QB_KERNEL_SMBIOS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qb_limits.h"
#include "smbios.h"

#define SMBIOS_WHY_LEN 128
#define SMBIOS_CONFIG_LEN 160          /* the memory_config line */
#define SMBIOS_CONFIG_GROUPS 6         /* kinds of module named; more are counted */

/* The node of a physical address, or -1 when no range covers it. */
typedef int (*smbios_node_of_fn)(void *ctx, uint64_t phys);

/* Each memory device's NUMA node. */
struct smbios_placement {
	bool known;                    /* every populated system-memory device has a node */
	uint32_t n_nodes;              /* nodes the machine has (1 without an SRAT) */
	int16_t node[SMBIOS_MAX_DEVICES]; /* per device: its node; -1 unknown, or an empty slot */
	uint32_t per_node[QB_MAX_NODES]; /* populated devices on each node */
	char why[SMBIOS_WHY_LEN];      /* when not known: why not */
};

/* True when the device is a slot of system memory: in an array whose Use is
 * System Memory, or one the table does not name. */
bool smbios_is_system_slot(const struct smbios_info *si, const struct smbios_device *d);

/* True when the device holds a module (Size neither 0 nor missing). */
bool smbios_is_populated(const struct smbios_device *d);

/* Set each populated system-memory device on a node: the nodes of its type 20
 * ranges, else of its array's type 19 ranges, must be one node. With one
 * node every device is on it. Never a guess: a device whose ranges are
 * missing, outside every node or on two nodes leaves the placement unknown,
 * and why says which and why. */
void smbios_place(const struct smbios_info *si, uint32_t n_nodes, smbios_node_of_fn node_of, void *ctx,
		  struct smbios_placement *out);

/* The memory configuration in one line into buf: slots populated of those
 * there are; each kind of module (size, type, configured speed, or the
 * rated one marked so, and module) with its count; the arrays' error
 * correction; with several nodes, the modules per node. False, with buf
 * saying why, when the table lists no memory device. */
bool smbios_memory_config(const struct smbios_info *si, const struct smbios_placement *pl, char *buf, size_t cap);

/* "32 GiB", "512 MiB", "1536 KiB": a size as the line writes it. */
void smbios_size_text(uint64_t bytes, char *buf, size_t cap);

#endif
