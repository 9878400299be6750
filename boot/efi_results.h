/* efi_results.h - the UEFI loader's search for the stick's results files (issue 17): where they are on the disk, and where the disk is on USB. */
#ifndef QB_BOOT_EFI_RESULTS_H
#define QB_BOOT_EFI_RESULTS_H

#include <efi.h>

#include "boot_info.h"

/* Fill bi->results for the volume image was loaded from: BOOT_RESULTS_FOUND
 * with both files' extents (proven whole, then marked for this boot:
 * efi_resfile.h), the controller's PCI address and the USB ports; NOT_USB
 * with the extents (proven, not marked) and what the disk is; or NONE with
 * why, having written nothing. On a USB stick whose files were proven, also
 * bi->series (boot/efi_series.h), which may replace bi->cmdline with a
 * series' own. Needs boot services. */
void efi_results_find(EFI_SYSTEM_TABLE *st, EFI_HANDLE image, struct boot_info *bi);

#endif
