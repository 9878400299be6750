/* hostdmi.h - the Linux twin's SMBIOS: the table itself from /sys/firmware/dmi/tables (smbios_entry_point and DMI, readable by root: Documentation/ABI/testing/sysfs-firmware-dmi-tables), decoded by kernel/acpi/smbios.c as the kernel decodes it; else what /sys/class/dmi/id shows anyone (Documentation/ABI/testing/sysfs-class-dmi-id); and which of the two, or neither, and why. */
#ifndef QB_TWIN_HOSTDMI_H
#define QB_TWIN_HOSTDMI_H

#include <stdbool.h>
#include "smbios.h"
#include "smbios_summary.h"

#define HOSTDMI_NOTE_LEN 200

/* What was read. */
struct hostdmi {
	const char *source;            /* "sysfs-tables", "sysfs-id" or "none" */
	char note[HOSTDMI_NOTE_LEN];   /* what could not be read and why ("" when the tables were read) */
	struct smbios_info info;       /* the table's decoding, or the few fields sysfs-id gives */
	struct smbios_placement place; /* devices on nodes (the tables only) */
};

/* Read under root ("" for the real /sys; the tests give a folder of their
 * own with sys/firmware/dmi/tables, sys/class/dmi/id and
 * sys/devices/system/memory under it), n_nodes the nodes Linux has. The
 * strings point into static buffers: one reading at a time. */
void hostdmi_read(const char *root, unsigned n_nodes, struct hostdmi *out);

/* Read the real /sys and report: the `machine` and `memory_device` records. */
void hostdmi_report(bool serials);

#endif
