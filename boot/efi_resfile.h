/* efi_resfile.h - the UEFI loader's proof that the stick's results files are whole and its own before it writes a byte: each read through the firmware's file system and in the FAT itself (boot/fat.h), then marked for this boot in its first and last sector and the marks found on the raw disk. The two files results.log and results.prev are proven together (efi_resfile_check); a series log (boot/efi_series.h) one at a time, with the same steps. */
#ifndef QB_BOOT_EFI_RESFILE_H
#define QB_BOOT_EFI_RESFILE_H

#include <efi.h>

#include "fat.h"
#include "resfile.h"

#define EFI_RESFILE_WHY 160
#define EFI_RESFILE_PATH 40

/* What efi_resfile_check found, or why it refused. */
struct efi_resfile {
	struct resfile_hdr log, prev;    /* both headers, marked for this boot */
	const char *file;                /* the file a refusal is about ("" for both) */
	char why[EFI_RESFILE_WHY];       /* the refusal, "" when both files were proven and marked */
};

/* One results file as the loader reads, proves and marks it. */
struct efi_resfile_file {
	CHAR16 path[EFI_RESFILE_PATH];   /* for the file system: L"\\quietbench\\results.log" */
	char fat_path[EFI_RESFILE_PATH]; /* for boot/fat.c: "quietbench/results.log" */
	char name[RESFILE_NAME_MAX + 1]; /* what its header must say: "results.log" */
	EFI_FILE_HANDLE f;               /* open while it is to be marked */
	char hdr[RESFILE_HDR_BYTES];     /* its first and last sectors, read through the file system */
	char end[RESFILE_HDR_BYTES];
	struct resfile_hdr h;
	struct resfile_end e;
	uint64_t size;                   /* EFI_FILE_INFO.FileSize */
};

/* The boot partition's blocks and its FAT, read by the loader itself. */
struct efi_resfile_vol {
	EFI_BLOCK_IO *bio;
	uint32_t disk_bs;                /* the whole disk's block size: the kernel writes in these */
	uint64_t part_start;             /* the partition's first byte on the disk */
	void *pool;                      /* the block buffer's allocation */
	uint8_t *block;                  /* two blocks, IoAlign-aligned: one read, one to compare in */
	EFI_LBA cached;                  /* the block in `block`, or ~0 */
	struct fat_vol fat;
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
 * finding the marks. True with *vol open (efi_resfile_vol_close), for the
 * series logs. */
bool efi_resfile_check(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
		       const char *mark, struct efi_resfile *out, struct efi_resfile_vol *vol);

void efi_resfile_vol_close(struct efi_resfile_vol *vol);

/* Read o (its path, fat_path and name set) through the file system: its
 * size, first and last sectors, each checked as its own (header and end
 * sector naming it, the size its header's length). Opened for writing
 * when `write` (and left open for efi_resfile_mark), else closed again.
 * 0, or why not. */
const char *efi_resfile_read(EFI_FILE_HANDLE root, struct efi_resfile_file *o, bool write);

/* o's extent against the disk's blocks, the partition and the FAT, and the
 * raw disk holding at it what the file system read. 0, or why not (*prefix
 * says where, when it is not the file itself). */
const char *efi_resfile_prove(struct efi_resfile_vol *v, struct efi_resfile_file *o, const char **prefix);

/* Write mark into o's header and end sector through the file system (o
 * opened for writing), then find both on the raw disk. 0, or why not. */
const char *efi_resfile_mark(struct efi_resfile_vol *v, struct efi_resfile_file *o, const char *mark);

/* Close o's handle, if open. */
void efi_resfile_close(struct efi_resfile_file *o);

#endif
