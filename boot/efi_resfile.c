/* efi_resfile.c - the stick's results files checked whole, then marked for this boot; see efi_resfile.h.
 *
 * Every check comes before the first write: a file that was replaced by the
 * other (results.prev copied over results.log), truncated, re-saved elsewhere
 * or left in pieces by a tool is refused with that reason and nothing on the
 * stick changes. The FAT is read through the partition's block I/O protocol
 * (UEFI 2.10 §13.9), since the file system protocol does not say where a
 * file's clusters are. The marks then go in through the file system
 * (§13.5), which is what makes the raw disk's copy of them proof that the
 * extents are these files' own. */
#include <efi.h>
#include <efilib.h>

#include "efi_resfile.h"
#include "fat.h"

/* ---- Constants ------------------------------------------------------------ */
#define N_FILES 2

/* ---- Types ---------------------------------------------------------------- */
struct one_file {
	CHAR16 *path;                    /* for the file system */
	const char *fat_path;            /* for boot/fat.c */
	const char *name;                /* what its header must say */
	EFI_FILE_HANDLE f;
	char hdr[RESFILE_HDR_BYTES];     /* its first and last sectors, read through the file system */
	char end[RESFILE_HDR_BYTES];
	struct resfile_hdr h;
	struct resfile_end e;
	uint64_t size;                   /* EFI_FILE_INFO.FileSize */
};

/* The partition's blocks, for boot/fat.c: one block read at a time into an aligned buffer. */
struct disk {
	EFI_BLOCK_IO *bio;
	uint32_t disk_bs;                /* the whole disk's block size: the kernel writes in these */
	uint8_t *block;                  /* two blocks, IoAlign-aligned: disk_read's, then one to compare in */
	EFI_LBA cached;                  /* the block in `block`, or ~0 */
};

/* ---- Private Functions ---------------------------------------------------- */
static void say(struct efi_resfile *out, const char *file, const char *prefix, const char *what)
{
	UINTN n = 0;
	out->file = file;
	for (UINTN i = 0; prefix[i] && n + 1 < sizeof(out->why); i++)
		out->why[n++] = prefix[i];
	for (UINTN i = 0; what[i] && n + 1 < sizeof(out->why); i++)
		out->why[n++] = what[i];
	out->why[n] = 0;
}

static bool same_text(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static bool disk_read(void *ctx, uint64_t at, uint32_t len, void *buf)
{
	struct disk *d = ctx;
	uint32_t bs = d->bio->Media->BlockSize;
	uint8_t *out = buf;
	while (len) {
		EFI_LBA lba = at / bs;
		uint32_t off = (uint32_t)(at % bs), k = bs - off < len ? bs - off : len;
		if (lba != d->cached) {
			d->cached = ~(EFI_LBA)0;
			if (lba > d->bio->Media->LastBlock ||
			    EFI_ERROR(d->bio->ReadBlocks(d->bio, d->bio->Media->MediaId, lba, bs, d->block)))
				return false;
			d->cached = lba;
		}
		CopyMem(out, d->block + off, k);
		out += k;
		at += k;
		len -= k;
	}
	return true;
}

/* Open the file for writing (nothing is written yet), read its size, first and last sectors. */
static const char *read_file(EFI_FILE_HANDLE root, struct one_file *o)
{
	EFI_FILE_HANDLE f = NULL;
	if (EFI_ERROR(root->Open(root, &f, o->path, EFI_FILE_MODE_READ, 0)) || !f)
		return "not on the boot volume";
	f->Close(f);
	if (EFI_ERROR(root->Open(root, &o->f, o->path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)) || !o->f)
		return "cannot be opened for writing (is the stick write-protected?)";
	EFI_FILE_INFO *info = LibFileInfo(o->f);
	if (!info)
		return "its size cannot be read";
	o->size = info->FileSize;
	FreePool(info);
	if (o->size < 2 * RESFILE_HDR_BYTES)
		return "is too short to be a results file (truncated: rebuild the stick)";
	UINTN n = RESFILE_HDR_BYTES, m = RESFILE_HDR_BYTES;
	if (EFI_ERROR(o->f->SetPosition(o->f, 0)) || EFI_ERROR(o->f->Read(o->f, &n, o->hdr)) || n != RESFILE_HDR_BYTES ||
	    EFI_ERROR(o->f->SetPosition(o->f, o->size - RESFILE_HDR_BYTES)) || EFI_ERROR(o->f->Read(o->f, &m, o->end)) ||
	    m != RESFILE_HDR_BYTES)
		return "could not be read";
	return 0;
}

/* The file on its own: header and end sector are its own, its size is the header's length. */
static const char *check_own(struct one_file *o)
{
	const char *why = 0;
	if (!resfile_parse(o->hdr, RESFILE_HDR_BYTES, &o->h, &why))
		return why;
	if (!same_text(o->h.file, o->name))
		return "its header is another file's (one results file was copied over the other: rebuild the stick)";
	if (!resfile_boot_offset(o->hdr, RESFILE_HDR_BYTES))
		return "has no boot line";
	if (o->size < o->h.length)
		return "is shorter than its header says (truncated or re-saved: rebuild the stick)";
	if (o->size > o->h.length)
		return "is longer than its header says (re-saved: rebuild the stick)";
	if (!resfile_end_parse(o->end, RESFILE_HDR_BYTES, &o->e, &why))
		return why;
	if (!same_text(o->e.file, o->name) || CompareMem(o->e.id, o->h.id, RESFILE_ID_LEN))
		return "its end sector is another file's (rebuild the stick)";
	return 0;
}

/* The file's extent against the disk's blocks, the partition, and the FAT. */
static const char *check_extent(struct fat_vol *v, struct disk *d, uint64_t part_start, struct one_file *o,
				const char **prefix)
{
	uint32_t bs = d->bio->Media->BlockSize, disk_bs = d->disk_bs;
	uint64_t part_bytes = (d->bio->Media->LastBlock + 1) * bs;
	struct fat_file ff;
	const char *why = 0;
	if (o->h.offset < part_start || o->h.offset - part_start + o->h.length > part_bytes)
		return "its header names an extent outside the boot partition";
	if (o->h.offset % disk_bs || o->h.length % disk_bs)
		return disk_bs == 4096 ? "does not start and end on the disk's 4096-byte blocks: rebuild the stick with "
				    "tools/mkimage --sector-size 4096"
				  : "does not start and end on the disk's blocks (the disk's block size is not 512: "
				    "rebuild the stick for it)";
	if (!fat_lookup(v, o->fat_path, &ff, &why)) {
		*prefix = "the FAT's directories: ";  /* the firmware found it, our walk did not */
		return why;
	}
	if (!fat_is_extent(v, &ff, o->h.offset - part_start, o->h.length, &why))
		return why;
	/* The raw disk shows what the file system read, before anything is written. */
	if (!disk_read(d, o->h.offset - part_start, RESFILE_HDR_BYTES, d->block + bs) ||
	    CompareMem(d->block + bs, o->hdr, RESFILE_HDR_BYTES) ||
	    !disk_read(d, o->h.offset - part_start + o->h.length - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, d->block + bs) ||
	    CompareMem(d->block + bs, o->end, RESFILE_HDR_BYTES))
		return "the raw disk does not hold what the file system reads at its extent (rebuild the stick)";
	return 0;
}

/* Write the mark into both sectors through the file system, then find them on the raw disk. */
static const char *mark_file(struct disk *d, uint64_t part_start, struct one_file *o, const char *mark)
{
	uint32_t bs = d->bio->Media->BlockSize;
	size_t at[2] = { resfile_boot_offset(o->hdr, RESFILE_HDR_BYTES), resfile_boot_offset(o->end, RESFILE_HDR_BYTES) };
	uint64_t base[2] = { 0, o->size - RESFILE_HDR_BYTES };
	char *copy[2] = { o->hdr, o->end };
	for (int i = 0; i < 2; i++) {
		UINTN k = RESFILE_ID_LEN;
		if (!at[i] || EFI_ERROR(o->f->SetPosition(o->f, base[i] + at[i])) ||
		    EFI_ERROR(o->f->Write(o->f, &k, (void *)mark)) || k != RESFILE_ID_LEN)
			return "could not be marked for this boot (is the stick write-protected?)";
		CopyMem(copy[i] + at[i], (void *)mark, RESFILE_ID_LEN);
	}
	if (EFI_ERROR(o->f->Flush(o->f)))
		return "could not be marked for this boot (is the stick write-protected?)";
	CopyMem(o->h.boot, (void *)mark, RESFILE_ID_LEN);
	d->cached = ~(EFI_LBA)0;
	uint64_t first = o->h.offset - part_start, last = first + o->h.length - RESFILE_HDR_BYTES;
	if (!disk_read(d, first, RESFILE_HDR_BYTES, d->block + bs) || CompareMem(d->block + bs, o->hdr, RESFILE_HDR_BYTES))
		return "its header's mark for this boot is not on the raw disk at its extent (rebuild the stick)";
	if (!disk_read(d, last, RESFILE_HDR_BYTES, d->block + bs) || CompareMem(d->block + bs, o->end, RESFILE_HDR_BYTES))
		return "its end sector's mark for this boot is not on the raw disk at its extent (rebuild the stick)";
	return 0;
}

/* The FAT, each file's extent in it and on the raw disk, then the marks. */
static const char *check_disk(struct disk *d, uint64_t part_start, const char *mark, struct one_file *files,
			      const char **file, const char **prefix)
{
	static struct fat_vol vol;
	const char *why = 0;
	uint32_t bs = d->bio->Media->BlockSize;
	if (!fat_open(&vol, disk_read, d, (d->bio->Media->LastBlock + 1) * bs, &why)) {
		*prefix = "the boot volume's FAT: ";
		return why;
	}
	for (int i = 0; i < N_FILES; i++) {
		*file = files[i].name;
		if ((why = check_extent(&vol, d, part_start, &files[i], prefix)))
			return why;
	}
	/* Every check passed: the first writes, where the kernel will write. */
	for (int i = 0; i < N_FILES && mark; i++) {
		*file = files[i].name;
		if ((why = mark_file(d, part_start, &files[i], mark)))
			return why;
	}
	return 0;
}

static const char *check_all(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
			     const char *mark, struct one_file *files, const char **file, const char **prefix)
{
	const char *why = 0;
	for (int i = 0; i < N_FILES; i++) {
		*file = files[i].name;
		if ((why = read_file(root, &files[i])) || (why = check_own(&files[i])))
			return why;
	}
	*file = "";
	if (CompareMem(files[0].h.id, files[1].h.id, RESFILE_ID_LEN))
		return "results.log and results.prev come from different images";
	if (files[0].h.offset < files[1].h.offset + files[1].h.length &&
	    files[1].h.offset < files[0].h.offset + files[0].h.length)
		return "results.log and results.prev name the same place on the disk (one was copied over the other: "
		       "rebuild the stick)";
	/* Two blocks: one for disk_read, one to compare in. */
	uint32_t bs = bio->Media->BlockSize, align = bio->Media->IoAlign > 1 ? bio->Media->IoAlign : 1;
	if (bs < RESFILE_HDR_BYTES || (bs & (bs - 1)) || disk_bs < RESFILE_HDR_BYTES || (disk_bs & (disk_bs - 1)))
		return "the disk's block size is not a power of two of 512 bytes or more";
	void *pool = AllocatePool(2 * bs + align);
	if (!pool)
		return "no memory to read the disk";
	struct disk d = { bio, disk_bs, (uint8_t *)(((uintptr_t)pool + align - 1) & ~(uintptr_t)(align - 1)), ~(EFI_LBA)0 };
	why = check_disk(&d, part_start, mark, files, file, prefix);
	FreePool(pool);
	return why;
}

/* ---- Public Functions ----------------------------------------------------- */
bool efi_resfile_check(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
		       const char *mark, struct efi_resfile *out)
{
	static struct one_file files[N_FILES] = {
		{ .path = L"\\quietbench\\results.log", .fat_path = "quietbench/results.log", .name = "results.log" },
		{ .path = L"\\quietbench\\results.prev", .fat_path = "quietbench/results.prev", .name = "results.prev" },
	};
	const char *file = "", *prefix = "";
	SetMem(out, sizeof(*out), 0);
	for (int i = 0; i < N_FILES; i++)
		files[i].f = NULL;
	const char *why = check_all(root, bio, disk_bs, part_start, mark, files, &file, &prefix);
	for (int i = 0; i < N_FILES; i++)
		if (files[i].f)
			files[i].f->Close(files[i].f);
	if (why) {
		say(out, file, prefix, why);
		return false;
	}
	out->file = "";
	out->log = files[0].h;
	out->prev = files[1].h;
	return true;
}
