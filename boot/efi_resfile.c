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

/* boot/fat.c's reader: the partition's bytes, one block read at a time into the aligned buffer. */
static bool disk_read(void *ctx, uint64_t at, uint32_t len, void *buf)
{
	struct efi_resfile_vol *d = ctx;
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

/* The file on its own: header and end sector are its own, its size is the header's length. */
static const char *check_own(struct efi_resfile_file *o)
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

static const char *vol_open(struct efi_resfile_vol *v, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
			    const char **prefix)
{
	const char *why = 0;
	SetMem(v, sizeof(*v), 0);
	v->bio = bio;
	v->disk_bs = disk_bs;
	v->part_start = part_start;
	v->cached = ~(EFI_LBA)0;
	/* Two blocks: one for disk_read, one to compare in. */
	uint32_t bs = bio->Media->BlockSize, align = bio->Media->IoAlign > 1 ? bio->Media->IoAlign : 1;
	if (bs < RESFILE_HDR_BYTES || (bs & (bs - 1)) || disk_bs < RESFILE_HDR_BYTES || (disk_bs & (disk_bs - 1)))
		return "the disk's block size is not a power of two of 512 bytes or more";
	v->pool = AllocatePool(2 * bs + align);
	if (!v->pool)
		return "no memory to read the disk";
	v->block = (uint8_t *)(((uintptr_t)v->pool + align - 1) & ~(uintptr_t)(align - 1));
	if (!fat_open(&v->fat, disk_read, v, (bio->Media->LastBlock + 1) * bs, &why)) {
		*prefix = "the boot volume's FAT: ";
		return why;
	}
	return 0;
}

static const char *check_all(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
			     const char *mark, struct efi_resfile_file *files, struct efi_resfile_vol *vol,
			     const char **file, const char **prefix)
{
	const char *why = 0;
	for (int i = 0; i < N_FILES; i++) {
		*file = files[i].name;
		if ((why = efi_resfile_read(root, &files[i], true)))
			return why;
	}
	*file = "";
	if (CompareMem(files[0].h.id, files[1].h.id, RESFILE_ID_LEN))
		return "results.log and results.prev come from different images";
	if (files[0].h.offset < files[1].h.offset + files[1].h.length &&
	    files[1].h.offset < files[0].h.offset + files[0].h.length)
		return "results.log and results.prev name the same place on the disk (one was copied over the other: "
		       "rebuild the stick)";
	if ((why = vol_open(vol, bio, disk_bs, part_start, prefix)))
		return why;
	for (int i = 0; i < N_FILES; i++) {
		*file = files[i].name;
		if ((why = efi_resfile_prove(vol, &files[i], prefix)))
			return why;
	}
	/* Every check passed: the first writes, where the kernel will write. */
	for (int i = 0; i < N_FILES && mark; i++) {
		*file = files[i].name;
		if ((why = efi_resfile_mark(vol, &files[i], mark)))
			return why;
	}
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */
const char *efi_resfile_read(EFI_FILE_HANDLE root, struct efi_resfile_file *o, bool write)
{
	EFI_FILE_HANDLE f = NULL;
	o->f = NULL;
	if (EFI_ERROR(root->Open(root, &f, o->path, EFI_FILE_MODE_READ, 0)) || !f)
		return "not on the boot volume";
	if (write) {
		f->Close(f);
		f = NULL;
		if (EFI_ERROR(root->Open(root, &f, o->path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)) || !f)
			return "cannot be opened for writing (is the stick write-protected?)";
	}
	o->f = f;
	const char *why = 0;
	EFI_FILE_INFO *info = LibFileInfo(o->f);
	UINTN n = RESFILE_HDR_BYTES, m = RESFILE_HDR_BYTES;
	if (!info) {
		why = "its size cannot be read";
	} else {
		o->size = info->FileSize;
		FreePool(info);
		if (o->size < 2 * RESFILE_HDR_BYTES)
			why = "is too short to be a results file (truncated: rebuild the stick)";
		else if (EFI_ERROR(o->f->SetPosition(o->f, 0)) || EFI_ERROR(o->f->Read(o->f, &n, o->hdr)) ||
			 n != RESFILE_HDR_BYTES || EFI_ERROR(o->f->SetPosition(o->f, o->size - RESFILE_HDR_BYTES)) ||
			 EFI_ERROR(o->f->Read(o->f, &m, o->end)) || m != RESFILE_HDR_BYTES)
			why = "could not be read";
		else
			why = check_own(o);
	}
	if (!write)
		efi_resfile_close(o);
	return why;
}

const char *efi_resfile_prove(struct efi_resfile_vol *v, struct efi_resfile_file *o, const char **prefix)
{
	uint32_t bs = v->bio->Media->BlockSize, disk_bs = v->disk_bs;
	uint64_t part_bytes = (v->bio->Media->LastBlock + 1) * bs, part_start = v->part_start;
	struct fat_file ff;
	const char *why = 0;
	if (o->h.offset < part_start || o->h.offset - part_start + o->h.length > part_bytes)
		return "its header names an extent outside the boot partition";
	if (o->h.offset % disk_bs || o->h.length % disk_bs)
		return disk_bs == 4096 ? "does not start and end on the disk's 4096-byte blocks: rebuild the stick with "
				    "tools/mkimage --sector-size 4096"
				  : "does not start and end on the disk's blocks (the disk's block size is not 512: "
				    "rebuild the stick for it)";
	if (!fat_lookup(&v->fat, o->fat_path, &ff, &why)) {
		*prefix = "the FAT's directories: ";  /* the firmware found it, our walk did not */
		return why;
	}
	if (!fat_is_extent(&v->fat, &ff, o->h.offset - part_start, o->h.length, &why))
		return why;
	/* The raw disk shows what the file system read, before anything is written. */
	if (!disk_read(v, o->h.offset - part_start, RESFILE_HDR_BYTES, v->block + bs) ||
	    CompareMem(v->block + bs, o->hdr, RESFILE_HDR_BYTES) ||
	    !disk_read(v, o->h.offset - part_start + o->h.length - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, v->block + bs) ||
	    CompareMem(v->block + bs, o->end, RESFILE_HDR_BYTES))
		return "the raw disk does not hold what the file system reads at its extent (rebuild the stick)";
	return 0;
}

const char *efi_resfile_mark(struct efi_resfile_vol *v, struct efi_resfile_file *o, const char *mark)
{
	uint32_t bs = v->bio->Media->BlockSize;
	size_t at[2] = { resfile_boot_offset(o->hdr, RESFILE_HDR_BYTES), resfile_boot_offset(o->end, RESFILE_HDR_BYTES) };
	uint64_t base[2] = { 0, o->size - RESFILE_HDR_BYTES };
	char *copy[2] = { o->hdr, o->end };
	if (!o->f)
		return "could not be marked for this boot (not open for writing)";
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
	v->cached = ~(EFI_LBA)0;
	uint64_t first = o->h.offset - v->part_start, last = first + o->h.length - RESFILE_HDR_BYTES;
	if (!disk_read(v, first, RESFILE_HDR_BYTES, v->block + bs) || CompareMem(v->block + bs, o->hdr, RESFILE_HDR_BYTES))
		return "its header's mark for this boot is not on the raw disk at its extent (rebuild the stick)";
	if (!disk_read(v, last, RESFILE_HDR_BYTES, v->block + bs) || CompareMem(v->block + bs, o->end, RESFILE_HDR_BYTES))
		return "its end sector's mark for this boot is not on the raw disk at its extent (rebuild the stick)";
	return 0;
}

void efi_resfile_close(struct efi_resfile_file *o)
{
	if (o->f)
		o->f->Close(o->f);
	o->f = NULL;
}

void efi_resfile_vol_close(struct efi_resfile_vol *vol)
{
	if (vol->pool)
		FreePool(vol->pool);
	vol->pool = NULL;
	vol->block = NULL;
}

bool efi_resfile_check(EFI_FILE_HANDLE root, EFI_BLOCK_IO *bio, uint32_t disk_bs, uint64_t part_start,
		       const char *mark, struct efi_resfile *out, struct efi_resfile_vol *vol)
{
	static struct efi_resfile_file files[N_FILES] = {
		{ .path = L"\\quietbench\\results.log", .fat_path = "quietbench/results.log", .name = "results.log" },
		{ .path = L"\\quietbench\\results.prev", .fat_path = "quietbench/results.prev", .name = "results.prev" },
	};
	const char *file = "", *prefix = "";
	SetMem(out, sizeof(*out), 0);
	SetMem(vol, sizeof(*vol), 0);
	for (int i = 0; i < N_FILES; i++)
		files[i].f = NULL;
	const char *why = check_all(root, bio, disk_bs, part_start, mark, files, vol, &file, &prefix);
	for (int i = 0; i < N_FILES; i++)
		efi_resfile_close(&files[i]);
	if (why) {
		efi_resfile_vol_close(vol);
		say(out, file, prefix, why);
		return false;
	}
	out->file = "";
	out->log = files[0].h;
	out->prev = files[1].h;
	return true;
}
