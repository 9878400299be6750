/* mb2_smbios.h - the SMBIOS entry point on the multiboot2 path: found by the legacy scan of 0xF0000-0xFFFFF (DSP0134 3.7 §5.2.1; Debian's GRUB 2.06 passes no SMBIOS tag), its table copied into pages marked as the loader's. */
#ifndef QB_BOOT_MB2_SMBIOS_H
#define QB_BOOT_MB2_SMBIOS_H

#include <stdint.h>
#include "boot_info.h"
#include "mb2_mem.h"

/* Scan the BIOS area (early identity map) for an entry point and fill bi's
 * smbios_* fields; then copy the table's structures, up to End-of-Table,
 * into free RAM below 4 GiB clear of the busy spans (and of the table
 * itself). Returns the span taken ({0, 0} when nothing was copied), for the
 * map the kernel is handed. */
struct mb2_span mb2_smbios_copy(struct boot_info *bi, const struct boot_mem_range *map, uint32_t n,
				const struct mb2_span *busy, uint32_t nbusy);

#endif
