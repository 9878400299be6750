/* test_fat.c - host tests for boot/fat.c against FAT12, FAT16 (512- and 4096-byte sectors) and FAT32 images that mkfs.fat and mtools make (tests/unit/fat_images.sh): each file is found by its long or short name, whatever the case; a file in one run is proven to be exactly its extent; a fragmented, truncated or moved file, a damaged chain and a damaged boot sector are each refused with their own reason. Where a file really is comes from its contents (every 512-byte block names its file and number), found in the image: an oracle that shares no code with fat.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fat.h"

#define BLOCK 512
#define FILE_BYTES (64u * 1024)
#define SHORT_BYTES (32u * 1024)
#define SMALL_BYTES (8u * 1024)

struct image {
	uint8_t *data;
	size_t size;
	unsigned reads;
};

static char dir[] = "/tmp/qb-fat-XXXXXX";
static bool have_images;

/* ---- Helpers -------------------------------------------------------------- */
static bool img_read(void *ctx, uint64_t at, uint32_t len, void *buf)
{
	struct image *im = ctx;
	im->reads++;
	if (at > im->size || len > im->size - at)
		return false;
	memcpy(buf, im->data + at, len);
	return true;
}

static void block_text(char *out, const char *name, unsigned i)
{
	memset(out, '.', BLOCK);
	int n = snprintf(out, BLOCK, "%s block %06u\n", name, i);
	out[n] = '.';
	out[BLOCK - 1] = '\n';
}

static bool write_pattern(const char *file, const char *name, unsigned bytes)
{
	char path[256], b[BLOCK];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	for (unsigned i = 0; i < bytes / BLOCK; i++) {
		block_text(b, name, i);
		fwrite(b, 1, BLOCK, f);
	}
	return fclose(f) == 0;
}

static bool load(const char *name, struct image *im)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	im->data = NULL;
	im->reads = 0;
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	im->size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	im->data = malloc(im->size);
	bool ok = im->data && fread(im->data, 1, im->size, f) == im->size;
	fclose(f);
	return ok;
}

/* Where block i of the file `name` is in the image: its n-th copy (0: the first); -1 if absent. */
static long where(const struct image *im, const char *name, unsigned i, int nth)
{
	char b[BLOCK];
	block_text(b, name, i);
	for (size_t at = 0; at + BLOCK <= im->size; at += BLOCK)
		if (!memcmp(im->data + at, b, BLOCK) && nth-- == 0)
			return (long)at;
	return -1;
}

/* True when the file's blocks 0 .. bytes/BLOCK-1 (first copy) lie one after another. */
static bool in_one_run(const struct image *im, const char *name, unsigned bytes)
{
	long first = where(im, name, 0, 0);
	for (unsigned i = 1; i < bytes / BLOCK; i++)
		if (where(im, name, i, 0) != first + (long)i * BLOCK)
			return false;
	return first >= 0;
}

static bool open_and_find(struct image *im, struct fat_vol *v, const char *path, struct fat_file *f)
{
	const char *why = NULL;
	if (!fat_open(v, img_read, im, im->size, &why)) {
		printf("  fat_open: %s\n", why);
		return false;
	}
	if (!fat_lookup(v, path, f, &why)) {
		printf("  fat_lookup %s: %s\n", path, why);
		return false;
	}
	return true;
}

/* ---- Tests ---------------------------------------------------------------- */
/* Each type: both files found, each exactly the extent its contents show. */
static void check_volume(const char *name, enum fat_type type, uint32_t sector_bytes)
{
	struct image im;
	struct fat_vol v;
	struct fat_file f;
	const char *why = NULL;
	CHECK(load(name, &im));
	if (!im.data)
		return;
	CHECK(open_and_find(&im, &v, "quietbench/results.log", &f));
	CHECK_EQ_U(v.type, type);
	CHECK_EQ_U(v.sector_bytes, sector_bytes);
	long at = where(&im, "results.log", 0, 0);
	CHECK(in_one_run(&im, "results.log", FILE_BYTES));
	CHECK_EQ_U(f.size, FILE_BYTES);
	CHECK_EQ_U(fat_cluster_at(&v, f.first_cluster), (uint64_t)at);
	CHECK(fat_is_extent(&v, &f, (uint64_t)at, FILE_BYTES, &why));
	/* One byte off, or one cluster short, is not the extent. */
	CHECK(!fat_is_extent(&v, &f, (uint64_t)at + BLOCK, FILE_BYTES, &why));
	CHECK(!fat_is_extent(&v, &f, (uint64_t)at, FILE_BYTES - v.cluster_bytes, &why));
	CHECK(why && strstr(why, "longer"));

	/* A long name (results.prev has one: its extension is 4 letters), in any case. */
	CHECK(fat_lookup(&v, "/QUIETBENCH/Results.Prev", &f, &why));
	at = where(&im, "results.prev", 0, 0);
	CHECK(in_one_run(&im, "results.prev", FILE_BYTES));
	CHECK(fat_is_extent(&v, &f, (uint64_t)at, FILE_BYTES, &why));
	CHECK(fat_lookup(&v, "quietbench/a-file-with-a-long-name.txt", &f, &why)); /* two long-name entries */
	CHECK_EQ_U(f.size, SMALL_BYTES);
	CHECK(fat_lookup(&v, "QUIETB~1/A-FILE~1.TXT", &f, &why));                  /* the 8.3 aliases */
	CHECK_EQ_U(f.size, SMALL_BYTES);
	CHECK(!fat_lookup(&v, "quietbench/results.lo", &f, &why));
	CHECK_STR(why, "not found");
	CHECK(!fat_lookup(&v, "quietbench/results.log/x", &f, &why));
	CHECK(!fat_lookup(&v, "quietbench/a-file-with-a-long-name.tx", &f, &why));
	free(im.data);
}

TEST(fat12_found_and_proven) { check_volume("fat12.img", FAT_TYPE_12, 512); }
TEST(fat16_found_and_proven) { check_volume("fat16.img", FAT_TYPE_16, 512); }
TEST(fat32_found_and_proven) { check_volume("fat32.img", FAT_TYPE_32, 512); }
TEST(fat16_4k_sectors_found_and_proven) { check_volume("fat16-4k.img", FAT_TYPE_16, 4096); }

/* FAT32's /quietbench holds 40 files before the results files: its entries span clusters; and the
 * results files lie past cluster 65535 (DIR_FstClusHI counts). */
TEST(fat32_directory_spans_clusters)
{
	struct image im;
	struct fat_vol v;
	struct fat_file d;
	const char *why;
	CHECK(load("fat32.img", &im));
	if (!im.data)
		return;
	CHECK(open_and_find(&im, &v, "quietbench", &d));
	uint32_t next = 0;
	CHECK(fat_next(&v, d.first_cluster, &next));
	CHECK(next >= 2 && next < 0x0ffffff8u); /* more than one cluster */
	struct fat_file f;
	CHECK(fat_lookup(&v, "quietbench/a-longer-name-number-19.txt", &f, &why));
	CHECK(fat_lookup(&v, "quietbench/f19", &f, &why));
	CHECK(fat_lookup(&v, "quietbench/results.log", &f, &why));
	CHECK(f.first_cluster > 0xffff);
	free(im.data);
}

TEST(fragmented_is_refused)
{
	struct image im;
	struct fat_vol v;
	struct fat_file f;
	const char *why = NULL;
	CHECK(load("frag.img", &im));
	if (!im.data)
		return;
	CHECK(open_and_find(&im, &v, "quietbench/results.log", &f));
	CHECK(!in_one_run(&im, "results.log", FILE_BYTES)); /* mtools really did split it */
	long at = where(&im, "results.log", 0, 0);
	CHECK_EQ_U(fat_cluster_at(&v, f.first_cluster), (uint64_t)at);
	CHECK(!fat_is_extent(&v, &f, (uint64_t)at, FILE_BYTES, &why));
	CHECK(why && strstr(why, "in pieces"));
	free(im.data);
}

TEST(truncated_is_refused)
{
	struct image before, im;
	struct fat_vol v;
	struct fat_file f;
	const char *why = NULL;
	CHECK(load("fat16.img", &before));
	CHECK(load("trunc.img", &im));
	if (!before.data || !im.data)
		return;
	long at = where(&before, "results.log", 0, 0);
	CHECK(open_and_find(&im, &v, "quietbench/results.log", &f));
	CHECK_EQ_U(f.size, SHORT_BYTES);
	CHECK_EQ_U(fat_cluster_at(&v, f.first_cluster), (uint64_t)at); /* its first cluster stayed put */
	CHECK(!fat_is_extent(&v, &f, (uint64_t)at, FILE_BYTES, &why));
	CHECK(why && strstr(why, "shorter"));
	CHECK(fat_is_extent(&v, &f, (uint64_t)at, SHORT_BYTES, &why)); /* what it is now is one run */
	free(before.data);
	free(im.data);
}

TEST(moved_is_refused)
{
	struct image before, im;
	struct fat_vol v;
	struct fat_file f;
	const char *why = NULL;
	CHECK(load("fat16.img", &before));
	CHECK(load("moved.img", &im));
	if (!before.data || !im.data)
		return;
	long old = where(&before, "results.log", 0, 0);
	CHECK_EQ_U(where(&im, "results.log", 0, 0), old); /* the old clusters still hold it */
	long copy = where(&im, "results.log", 0, 1);
	CHECK(copy > 0);
	CHECK(open_and_find(&im, &v, "quietbench/results.log", &f));
	CHECK(!fat_is_extent(&v, &f, (uint64_t)old, FILE_BYTES, &why));
	CHECK(why && strstr(why, "moved or copied"));
	CHECK(fat_is_extent(&v, &f, (uint64_t)copy, FILE_BYTES, &why));
	free(before.data);
	free(im.data);
}

/* A damaged FAT (the chain ends early, or runs on) in a copy of a real image. */
TEST(damaged_chain_is_refused)
{
	struct image im;
	struct fat_vol v;
	struct fat_file f;
	const char *why = NULL;
	CHECK(load("fat16.img", &im));
	if (!im.data)
		return;
	CHECK(open_and_find(&im, &v, "quietbench/results.log", &f));
	uint64_t at = fat_cluster_at(&v, f.first_cluster);
	uint32_t n = FILE_BYTES / v.cluster_bytes, c = f.first_cluster;
	uint8_t *mid = im.data + v.fat_at + 2 * (c + 1), *last = im.data + v.fat_at + 2 * (c + n - 1);
	uint8_t keep_mid[2] = { mid[0], mid[1] }, keep_last[2] = { last[0], last[1] };
	mid[0] = mid[1] = 0xff;                /* end of chain after two clusters */
	v.cache_ok = false;
	CHECK(!fat_is_extent(&v, &f, at, FILE_BYTES, &why));
	CHECK(why && strstr(why, "ends before"));
	memcpy(mid, keep_mid, 2);
	last[0] = (uint8_t)(c + n);            /* the last cluster points on */
	last[1] = (uint8_t)((c + n) >> 8);
	v.cache_ok = false;
	CHECK(!fat_is_extent(&v, &f, at, FILE_BYTES, &why));
	CHECK(why && strstr(why, "runs on"));
	memcpy(last, keep_last, 2);
	v.cache_ok = false;
	CHECK(fat_is_extent(&v, &f, at, FILE_BYTES, &why));
	free(im.data);
}

TEST(damaged_boot_sector_is_refused)
{
	struct image im;
	struct fat_vol v;
	const char *why = NULL;
	CHECK(load("fat16.img", &im));
	if (!im.data)
		return;
	CHECK(fat_open(&v, img_read, &im, im.size, &why));
	CHECK(!fat_open(&v, img_read, &im, im.size / 2, &why)); /* a partition smaller than its FAT */
	CHECK(why && strstr(why, "larger than its partition"));
	im.data[11] = 0;
	im.data[12] = 3;                       /* 768-byte sectors */
	CHECK(!fat_open(&v, img_read, &im, im.size, &why));
	CHECK(why && strstr(why, "not a FAT boot sector"));
	memset(im.data, 0, BLOCK);
	CHECK(!fat_open(&v, img_read, &im, im.size, &why));
	free(im.data);
}

int main(void)
{
	char cmd[512];
	if (!mkdtemp(dir))
		return 1;
	have_images = write_pattern("log.bin", "results.log", FILE_BYTES) &&
		      write_pattern("prev.bin", "results.prev", FILE_BYTES) &&
		      write_pattern("short.bin", "results.log", SHORT_BYTES) &&
		      write_pattern("small.bin", "small", SMALL_BYTES);
	snprintf(cmd, sizeof(cmd), "tests/unit/fat_images.sh %s", dir);
	have_images = have_images && system(cmd) == 0;
	if (!have_images)
		printf("  FAIL: tests/unit/fat_images.sh could not make the images (mkfs.fat and mtools: tools/deps)\n");
	RUN(fat12_found_and_proven);
	RUN(fat16_found_and_proven);
	RUN(fat32_found_and_proven);
	RUN(fat16_4k_sectors_found_and_proven);
	RUN(fat32_directory_spans_clusters);
	RUN(fragmented_is_refused);
	RUN(truncated_is_refused);
	RUN(moved_is_refused);
	RUN(damaged_chain_is_refused);
	RUN(damaged_boot_sector_is_refused);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("  could not remove %s\n", dir);
	return check_summary("fat") | !have_images;
}
