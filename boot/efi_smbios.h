/* efi_smbios.h - the SMBIOS entry point from the UEFI configuration table (UEFI 2.10 §4.6, SMBIOS3_TABLE_GUID first), and a copy of its structure table in the loader's own memory. */
#ifndef QB_BOOT_EFI_SMBIOS_H
#define QB_BOOT_EFI_SMBIOS_H

#include <efi.h>
#include "boot_info.h"

/* Fill bi's smbios_* fields: the entry point's place and bytes, and a copy
 * of every structure up to End-of-Table in EfiLoaderData pages below 4 GiB
 * (the firmware's copy may sit in memory the kernel is given). Returns the
 * bytes allocated (for loader_bytes). Boot services must be up. */
uint64_t efi_smbios_copy(EFI_SYSTEM_TABLE *st, struct boot_info *bi);

#endif
