/* machine_smbios.h - the SMBIOS table the loader copied (kernel/lib/boot_info.h), decoded once and reported as the `machine` record, the screen's third header line, and, with dump=smbios, its bytes. */
#ifndef QB_KERNEL_MACHINE_SMBIOS_H
#define QB_KERNEL_MACHINE_SMBIOS_H

#include <stdbool.h>
#include "acpi.h"
#include "boot_info.h"

/* Decode the loader's copy, set its devices against the SRAT's nodes, and
 * report: error records, `machine`, `memory_device`s, the header line. */
void machine_report_smbios(const struct boot_info *bi, const struct acpi_info *ai, bool serials);

/* dump=smbios: one `smbios_table` record with the entry point's and the
 * table's bytes in hex (tests/fixtures/smbios/import.py --from-log turns it into a dump file). */
void machine_dump_smbios(const struct boot_info *bi);

#endif
