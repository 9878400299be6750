/* fat.h - a FAT12/16/32 volume read through a byte-reading callback, far enough to find a file's directory entry and prove its clusters are one run (Microsoft, "FAT: General Overview of On-Disk Format", v1.03, 2000; "FAT spec" below). Plain C: the UEFI loader reads the boot stick's FAT with it (UEFI does not expose cluster chains) and the host tests read images made by mkfs.fat and mtools. */
#ifndef QB_BOOT_FAT_H
#define QB_BOOT_FAT_H

#include <stdbool.h>
#include <stdint.h>

/* Read len bytes at byte `at` of the volume (its boot sector is byte 0) into
 * buf. False when the disk cannot be read. */
typedef bool (*fat_read_fn)(void *ctx, uint64_t at, uint32_t len, void *buf);

enum fat_type { FAT_TYPE_12 = 12, FAT_TYPE_16 = 16, FAT_TYPE_32 = 32 };

#define FAT_CACHE_BYTES 512              /* one window on the FAT: entries are read through it */

struct fat_vol {
	fat_read_fn read;
	void *ctx;
	enum fat_type type;
	uint32_t sector_bytes;           /* BPB_BytsPerSec */
	uint32_t cluster_bytes;          /* BPB_SecPerClus * BPB_BytsPerSec */
	uint32_t clusters;               /* CountofClusters: data clusters 2 .. clusters + 1 */
	uint64_t fat_at;                 /* the FAT the volume uses (BPB_ExtFlags on FAT32) */
	uint64_t root_at;                /* FAT12/16: the fixed root directory */
	uint32_t root_bytes;
	uint32_t root_cluster;           /* FAT32: BPB_RootClus */
	uint64_t data_at;                /* cluster 2's first byte */
	uint64_t cache_at;               /* the FAT's bytes in cache: [cache_at, + FAT_CACHE_BYTES) */
	bool cache_ok;
	uint8_t cache[FAT_CACHE_BYTES];
};

/* A file's directory entry (FAT spec, "FAT Directory Structure"). */
struct fat_file {
	uint32_t first_cluster;          /* 0 for an empty file */
	uint32_t size;                   /* DIR_FileSize */
	uint8_t attr;
	uint64_t entry_at;               /* byte of its short entry in the volume */
};

/* Read the boot sector (BPB) of a volume of vol_bytes and work out its type
 * and layout. False with *why when it is not a FAT this code reads. */
bool fat_open(struct fat_vol *v, fat_read_fn read, void *ctx, uint64_t vol_bytes, const char **why);

/* The entry at path ("quietbench/results.log": '/'-separated, from the
 * root; names matched without regard to ASCII case, long names or 8.3). */
bool fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f, const char **why);

/* The FAT entry of cluster c (the next cluster, or an end-of-chain mark). */
bool fat_next(struct fat_vol *v, uint32_t c, uint32_t *next);

/* The first byte of cluster c in the volume. */
uint64_t fat_cluster_at(const struct fat_vol *v, uint32_t c);

/* True when the file is exactly the volume's bytes [at, at + length): its
 * size is length, its first cluster starts at `at`, and its chain is the
 * clusters first .. first + n - 1 in order, then end-of-chain, n covering
 * length. Otherwise *why says how it differs (truncated or grown, moved,
 * in pieces, a damaged chain). */
bool fat_is_extent(struct fat_vol *v, const struct fat_file *f, uint64_t at, uint64_t length, const char **why);

#endif
