/* efi_series.h - the UEFI loader's part in a series of boots (series=N, issue 37): the stick's /quietbench/series/ logs read, this boot's place in the series planned from their headers (kernel/lib/resseries.h), the logs the kernel will write proven and marked as results.log is (boot/efi_resfile.h), and a series under way continued with its own options. */
#ifndef QB_BOOT_EFI_SERIES_H
#define QB_BOOT_EFI_SERIES_H

#include <efi.h>

#include "boot_info.h"
#include "efi_resfile.h"

/* Fill bi->series for the stick whose file system is root and whose FAT is
 * vol (its results files already proven and marked with mark). Reads every
 * series log's header and end sector; writes nothing unless this boot is
 * part of a series: then the log it writes and the logs it empties are
 * proven, every one, before any is marked. Continuing a series under way,
 * bi->cmdline becomes the series' own options (the entry's are kept in
 * bi->series.entry_cmdline). Says on the console what it found. */
void efi_series_find(EFI_FILE_HANDLE root, struct efi_resfile_vol *vol, const char *mark, struct boot_info *bi);

#endif
