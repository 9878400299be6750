/* efi_resfile.h - the UEFI loader's proof that the stick's two results files are whole and its own before it writes a byte: each read through the firmware's file system and in the FAT itself (boot/fat.h), then marked for this boot in its first and last sector and the marks found on the raw disk. */
#ifndef QB_BOOT_EFI_RESFILE_H
#define QB_BOOT_EFI_RESFILE_H

#include <efi.h>

#include "resfile.h"

#define EFI_RESFILE_WHY 160

/* What efi_resfile_check found, or why it refused. */
struct efi_resfile {
	struct resfile_hdr log, prev;    /* both headers, marked for this boot */
	const char *file;                /* the file a refusal is about ("" for both) */
	char why[EFI_RESFILE_WHY];       /* the refusal, "" when both files were proven and marked */
};

/* Check /quietbench/results.log and results.prev on the volume whose file
 * system is root and whose blocks are bio (the partition starts at disk byte
 * part_start; the disk's own blocks are disk_bs bytes, which bio's need not
 * be). Before anything is written, each file must: have a header and
 * an end sector naming that file, the other's id and its own extent apart
 * from the other's; be as large (EFI_FILE_INFO) as its header says; start
 * and end on the disk's blocks; and be, in the FAT, one run of clusters that
 * is exactly that extent. Then, unless mark is NULL (a disk the kernel will
 * not write), mark (the 16 hex digits at mark) both sectors of both files
 * through the file system and find each on the raw disk. False with
 * out->file and out->why, having written nothing unless the failure is in
 * finding the marks. */
bool efi_resfile_check(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
		       const char *mark, struct efi_resfile *out);

#endif
