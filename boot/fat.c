/* fat.c - a FAT volume's boot sector, directories and cluster chains, read-only; see fat.h. Section names are those of Microsoft's "FAT: General Overview of On-Disk Format" v1.03 (the FAT spec). */
#include "fat.h"

#include <stddef.h>

/* ---- Constants ------------------------------------------------------------ */
#define FAT_DIR_ENTRY_BYTES 32
#define FAT_DIR_CHUNK 512                /* directory bytes read at a time: divides every sector */
#define FAT_NAME_BYTES 11                /* DIR_Name: 8 + 3, space-padded */
#define FAT_NAME_BASE 8                  /* the 8 before the extension */
#define FAT_LFN_CHARS 13                 /* UCS-2 characters in one long-name entry */
#define FAT_LFN_MAX 255                  /* characters in a long name ("FAT Long Directory Entries") */
#define FAT_LFN_ORD_MAX 20               /* entries a 255-character name needs */

/* DIR_Attr bits ("FAT Directory Structure"). */
#define FAT_ATTR_VOLUME_ID 0x08
#define FAT_ATTR_DIRECTORY 0x10
#define FAT_ATTR_LONG_NAME 0x0f          /* READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID */
#define FAT_ATTR_LONG_NAME_MASK 0x3f
#define FAT_LAST_LONG_ENTRY 0x40         /* LDIR_Ord: the first entry of a set holds its last piece */
#define FAT_LFN_ORD_MASK 0x1f

/* DIR_Name[0] ("FAT Directory Structure"). */
#define FAT_NAME_END 0x00                /* this entry and all after it are free */
#define FAT_NAME_FREE 0xe5
#define FAT_NAME_KANJI_E5 0x05           /* a name whose first byte really is 0xE5 */

/* "FAT Type Determination": by the count of data clusters, nothing else. */
#define FAT12_MAX_CLUSTERS 4084          /* CountofClusters < 4085 */
#define FAT16_MAX_CLUSTERS 65524         /* CountofClusters < 65525 */

/* Entry values ("FAT Data Structure"). */
#define FAT12_MASK 0xfffu
#define FAT16_MASK 0xffffu
#define FAT32_MASK 0x0fffffffu           /* the high 4 bits are reserved */
#define FAT12_EOC_MIN 0xff8u
#define FAT16_EOC_MIN 0xfff8u
#define FAT32_EOC_MIN 0x0ffffff8u
#define FAT_FIRST_CLUSTER 2
#define FAT_BOOT_SECTOR_BYTES 512        /* the BPB is in its first 90 bytes, whatever the sector size */
#define FAT_SECTOR_MIN 512               /* BPB_BytsPerSec: 512, 1024, 2048 or 4096 */
#define FAT_SECTOR_MAX 4096
#define FAT_LFN_END 0x0000               /* a long name ends at this character */
#define ASCII_FIRST_PRINTABLE 0x20
#define ASCII_DEL 0x7f

#define FAT32_EXT_NO_MIRROR 0x80         /* BPB_ExtFlags bit 7: only one FAT is active */
#define FAT32_EXT_ACTIVE_MASK 0x0f       /* BPB_ExtFlags bits 0-3: which one */
#define FAT_MAX_SEC_PER_CLUS 128

/* ---- Types ---------------------------------------------------------------- */
/* The BPB common to all three types ("Boot Sector and BPB"), from byte 0. */
struct fat_bpb {
	uint8_t jmp_boot[3];
	uint8_t oem_name[8];
	uint16_t bytes_per_sec;          /* 11: 512, 1024, 2048 or 4096 */
	uint8_t sec_per_clus;            /* 13: a power of two */
	uint16_t rsvd_sec_cnt;           /* 14 */
	uint8_t num_fats;                /* 16 */
	uint16_t root_ent_cnt;           /* 17: 0 on FAT32 */
	uint16_t tot_sec16;              /* 19 */
	uint8_t media;                   /* 21 */
	uint16_t fat_sz16;               /* 22: 0 on FAT32 */
	uint16_t sec_per_trk;            /* 24 */
	uint16_t num_heads;              /* 26 */
	uint32_t hidd_sec;               /* 28 */
	uint32_t tot_sec32;              /* 32 */
} __attribute__((packed));
_Static_assert(sizeof(struct fat_bpb) == 36, "FAT spec, Boot Sector and BPB: the common BPB is 36 bytes");

/* FAT32's BPB fields after the common ones ("FAT32 Structure Starting at Offset 36"). */
struct fat32_bpb {
	uint32_t fat_sz32;               /* 36 */
	uint16_t ext_flags;              /* 40 */
	uint16_t fs_ver;                 /* 42 */
	uint32_t root_clus;              /* 44 */
	uint16_t fs_info;                /* 48 */
	uint16_t bk_boot_sec;            /* 50 */
	uint8_t reserved[12];            /* 52 */
} __attribute__((packed));
_Static_assert(sizeof(struct fat32_bpb) == 28, "FAT spec: FAT32's BPB fields are bytes 36-63");

/* A short directory entry ("FAT Directory Structure"). */
struct fat_dirent {
	uint8_t name[FAT_NAME_BYTES];    /* 0 */
	uint8_t attr;                    /* 11 */
	uint8_t nt_res;                  /* 12 */
	uint8_t crt_time_tenth;          /* 13 */
	uint16_t crt_time;               /* 14 */
	uint16_t crt_date;               /* 16 */
	uint16_t lst_acc_date;           /* 18 */
	uint16_t fst_clus_hi;            /* 20: FAT32 only */
	uint16_t wrt_time;               /* 22 */
	uint16_t wrt_date;               /* 24 */
	uint16_t fst_clus_lo;            /* 26 */
	uint32_t file_size;              /* 28 */
} __attribute__((packed));
_Static_assert(sizeof(struct fat_dirent) == FAT_DIR_ENTRY_BYTES, "FAT spec: a directory entry is 32 bytes");

/* A long-name directory entry ("FAT Long Directory Entries"). */
struct fat_lfn {
	uint8_t ord;                     /* 0: order, FAT_LAST_LONG_ENTRY on the set's first */
	uint16_t name1[5];               /* 1 */
	uint8_t attr;                    /* 11: FAT_ATTR_LONG_NAME */
	uint8_t type;                    /* 12: 0 */
	uint8_t chksum;                  /* 13: of the short name that follows */
	uint16_t name2[6];               /* 14 */
	uint16_t fst_clus_lo;            /* 26: 0 */
	uint16_t name3[2];               /* 28 */
} __attribute__((packed));
_Static_assert(sizeof(struct fat_lfn) == FAT_DIR_ENTRY_BYTES, "FAT spec: a long-name entry is 32 bytes");

/* A long name being gathered from its entries, last piece first. */
struct lfn_state {
	uint8_t next;                    /* the ord expected next; 0 when none is pending */
	uint8_t chksum;
	bool done;                       /* the piece with ord 1 was seen: a short entry may follow */
	char name[FAT_LFN_ORD_MAX * FAT_LFN_CHARS + 1];
};

/* ---- Private Functions ---------------------------------------------------- */
static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool same_name(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (upper(a[i]) != upper(b[i]))
			return false;
	return true;
}

/* "FAT Long Directory Entries": the checksum of an 11-byte short name. */
static uint8_t short_checksum(const uint8_t *name)
{
	uint8_t sum = 0;
	for (int i = 0; i < FAT_NAME_BYTES; i++)
		sum = (uint8_t)(((sum & 1) ? 0x80 : 0) + (sum >> 1) + name[i]);
	return sum;
}

/* "NAME.EXT" from DIR_Name, padding dropped; returns its length. */
static size_t short_name(const uint8_t *raw, char *out)
{
	size_t n = 0;
	for (int i = 0; i < FAT_NAME_BASE && raw[i] != ' '; i++)
		out[n++] = (char)(i == 0 && raw[i] == FAT_NAME_KANJI_E5 ? FAT_NAME_FREE : raw[i]);
	if (raw[FAT_NAME_BASE] != ' ') {
		out[n++] = '.';
		for (int i = FAT_NAME_BASE; i < FAT_NAME_BYTES && raw[i] != ' '; i++)
			out[n++] = (char)raw[i];
	}
	out[n] = 0;
	return n;
}

/* One long-name entry into s; a piece out of order drops the set. */
static void lfn_take(struct lfn_state *s, const struct fat_lfn *e)
{
	uint8_t ord = e->ord & FAT_LFN_ORD_MASK;
	if (e->ord & FAT_LAST_LONG_ENTRY) {
		if (!ord || ord > FAT_LFN_ORD_MAX) {
			s->next = 0;
			s->done = false;
			return;
		}
		s->chksum = e->chksum;
		s->name[ord * FAT_LFN_CHARS] = 0;
	} else if (!s->next || ord != s->next || e->chksum != s->chksum) {
		s->next = 0;
		s->done = false;
		return;
	}
	uint16_t ch[FAT_LFN_CHARS];
	const uint8_t *pieces[3] = { (const uint8_t *)e->name1, (const uint8_t *)e->name2, (const uint8_t *)e->name3 };
	const size_t lens[3] = { sizeof(e->name1) / 2, sizeof(e->name2) / 2, sizeof(e->name3) / 2 };
	for (size_t p = 0, k = 0; p < 3; p++)
		for (size_t i = 0; i < lens[p]; i++)
			ch[k++] = le16(pieces[p] + 2 * i);
	char *out = s->name + (ord - 1) * FAT_LFN_CHARS;
	for (int i = 0; i < FAT_LFN_CHARS; i++) {
		if (ch[i] == FAT_LFN_END) {      /* the name ends here; 0xFFFF pads the rest */
			out[i] = 0;
			break;
		}
		/* Only ASCII is compared; anything else never matches. */
		out[i] = ch[i] >= ASCII_FIRST_PRINTABLE && ch[i] < ASCII_DEL ? (char)ch[i] : (char)ASCII_DEL;
	}
	s->next = (uint8_t)(ord - 1);
	s->done = ord == 1;
}

static bool is_eoc(const struct fat_vol *v, uint32_t x)
{
	return x >= (v->type == FAT_TYPE_12 ? FAT12_EOC_MIN : v->type == FAT_TYPE_16 ? FAT16_EOC_MIN : FAT32_EOC_MIN);
}

static bool valid_cluster(const struct fat_vol *v, uint32_t c)
{
	return c >= FAT_FIRST_CLUSTER && c - FAT_FIRST_CLUSTER < v->clusters;
}

static bool fat_byte(struct fat_vol *v, uint64_t off, uint8_t *out)
{
	if (!v->cache_ok || off < v->cache_at || off >= v->cache_at + FAT_CACHE_BYTES) {
		uint64_t at = off / FAT_CACHE_BYTES * FAT_CACHE_BYTES;
		if (!v->read(v->ctx, v->fat_at + at, FAT_CACHE_BYTES, v->cache))
			return false;
		v->cache_at = at;
		v->cache_ok = true;
	}
	*out = v->cache[off - v->cache_at];
	return true;
}

/* Look for name in the directory at cluster dir (0: FAT12/16's fixed root). */
static bool dir_find(struct fat_vol *v, uint32_t dir, const char *name, size_t len, struct fat_file *f,
		     const char **why)
{
	uint8_t buf[FAT_DIR_CHUNK];
	struct lfn_state lfn = { 0 };
	uint32_t c = dir, steps = 0;
	for (;;) {
		uint64_t at = c ? fat_cluster_at(v, c) : v->root_at;
		uint32_t bytes = c ? v->cluster_bytes : v->root_bytes;
		for (uint32_t off = 0; off < bytes; off += FAT_DIR_CHUNK) {
			if (!v->read(v->ctx, at + off, FAT_DIR_CHUNK, buf)) {
				*why = "a directory could not be read";
				return false;
			}
			for (uint32_t i = 0; i < FAT_DIR_CHUNK; i += FAT_DIR_ENTRY_BYTES) {
				const struct fat_dirent *e = (const struct fat_dirent *)(buf + i);
				if (e->name[0] == FAT_NAME_END) {
					*why = "not found";
					return false;
				}
				if (e->name[0] == FAT_NAME_FREE) {
					lfn.next = 0;
					lfn.done = false;
					continue;
				}
				if ((e->attr & FAT_ATTR_LONG_NAME_MASK) == FAT_ATTR_LONG_NAME) {
					lfn_take(&lfn, (const struct fat_lfn *)e);
					continue;
				}
				bool long_ok = lfn.done && lfn.chksum == short_checksum(e->name);
				lfn.next = 0;
				lfn.done = false;
				if (e->attr & FAT_ATTR_VOLUME_ID)
					continue;
				char sn[FAT_NAME_BYTES + 2];
				size_t sl = short_name(e->name, sn);
				size_t ll = 0;
				while (long_ok && lfn.name[ll])
					ll++;
				if ((long_ok && same_name(lfn.name, ll, name, len)) || same_name(sn, sl, name, len)) {
					f->attr = e->attr;
					f->size = e->file_size;
					f->first_cluster = e->fst_clus_lo | (v->type == FAT_TYPE_32 ? (uint32_t)e->fst_clus_hi << 16 : 0);
					f->entry_at = at + off + i;
					return true;
				}
			}
		}
		if (!c) {
			*why = "not found";
			return false;
		}
		uint32_t next;
		if (!fat_next(v, c, &next)) {
			*why = "the FAT could not be read";
			return false;
		}
		if (is_eoc(v, next)) {
			*why = "not found";
			return false;
		}
		if (!valid_cluster(v, next) || ++steps >= v->clusters) {
			*why = "a directory's cluster chain is damaged (run a disk check)";
			return false;
		}
		c = next;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
bool fat_open(struct fat_vol *v, fat_read_fn read, void *ctx, uint64_t vol_bytes, const char **why)
{
	uint8_t bs[FAT_BOOT_SECTOR_BYTES];
	const struct fat_bpb *bp = (const struct fat_bpb *)bs;
	const struct fat32_bpb *bp32 = (const struct fat32_bpb *)(bs + sizeof(*bp));
	*v = (struct fat_vol){ .read = read, .ctx = ctx };
	if (!read(ctx, 0, sizeof(bs), bs)) {
		*why = "its boot sector could not be read";
		return false;
	}
	const struct fat_bpb b = *bp;
	const struct fat32_bpb b32 = *bp32;
	uint32_t bps = b.bytes_per_sec, spc = b.sec_per_clus;
	if (bps < FAT_SECTOR_MIN || bps > FAT_SECTOR_MAX || (bps & (bps - 1)) || !spc || spc > FAT_MAX_SEC_PER_CLUS ||
	    (spc & (spc - 1)) || !b.rsvd_sec_cnt || !b.num_fats) {
		*why = "its boot sector is not a FAT boot sector";
		return false;
	}
	uint32_t fat_sz = b.fat_sz16 ? b.fat_sz16 : b32.fat_sz32;
	uint32_t tot = b.tot_sec16 ? b.tot_sec16 : b.tot_sec32;
	uint32_t root_sec = ((uint32_t)b.root_ent_cnt * FAT_DIR_ENTRY_BYTES + bps - 1) / bps;
	uint64_t meta = (uint64_t)b.rsvd_sec_cnt + (uint64_t)b.num_fats * fat_sz + root_sec;
	if (!fat_sz || !tot || meta >= tot) {
		*why = "its boot sector gives no room for data";
		return false;
	}
	if ((uint64_t)tot * bps > vol_bytes) {
		*why = "its boot sector says the volume is larger than its partition";
		return false;
	}
	v->sector_bytes = bps;
	v->cluster_bytes = bps * spc;
	v->clusters = (uint32_t)((tot - meta) / spc);
	v->type = v->clusters <= FAT12_MAX_CLUSTERS ? FAT_TYPE_12 : v->clusters <= FAT16_MAX_CLUSTERS ? FAT_TYPE_16
										     : FAT_TYPE_32;
	uint32_t active = 0;
	if (v->type == FAT_TYPE_32) {
		if (b.fat_sz16 || b.root_ent_cnt) {
			*why = "its boot sector mixes FAT32 and FAT12/16 fields";
			return false;
		}
		if (b32.ext_flags & FAT32_EXT_NO_MIRROR)
			active = b32.ext_flags & FAT32_EXT_ACTIVE_MASK;
		if (active >= b.num_fats || !valid_cluster(v, b32.root_clus)) {
			*why = "its FAT32 fields are damaged";
			return false;
		}
		v->root_cluster = b32.root_clus;
	} else if (!b.root_ent_cnt) {
		*why = "its FAT12/16 boot sector has no root directory";
		return false;
	}
	/* Bytes of FAT needed for every cluster's entry, 2 .. clusters + 1. */
	uint64_t need = (uint64_t)(v->clusters + FAT_FIRST_CLUSTER) * (uint32_t)v->type / 8 + 1;
	if ((uint64_t)fat_sz * bps < need) {
		*why = "its FAT is too small for its clusters";
		return false;
	}
	v->fat_at = ((uint64_t)b.rsvd_sec_cnt + (uint64_t)active * fat_sz) * bps;
	v->root_at = ((uint64_t)b.rsvd_sec_cnt + (uint64_t)b.num_fats * fat_sz) * bps;
	v->root_bytes = root_sec * bps;
	v->data_at = meta * bps;
	return true;
}

uint64_t fat_cluster_at(const struct fat_vol *v, uint32_t c)
{
	return v->data_at + (uint64_t)(c - FAT_FIRST_CLUSTER) * v->cluster_bytes;
}

bool fat_next(struct fat_vol *v, uint32_t c, uint32_t *next)
{
	uint8_t b[4] = { 0 };
	uint64_t off = v->type == FAT_TYPE_12 ? c + c / 2 : (uint64_t)c * ((uint32_t)v->type / 8);
	int n = v->type == FAT_TYPE_12 ? 2 : (int)v->type / 8;
	for (int i = 0; i < n; i++)
		if (!fat_byte(v, off + (uint64_t)i, &b[i]))
			return false;
	uint32_t x = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	if (v->type == FAT_TYPE_12)
		x = (c & 1 ? x >> 4 : x) & FAT12_MASK;
	else
		x &= v->type == FAT_TYPE_16 ? FAT16_MASK : FAT32_MASK;
	*next = x;
	return true;
}

bool fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f, const char **why)
{
	uint32_t dir = v->type == FAT_TYPE_32 ? v->root_cluster : 0;
	const char *p = path;
	for (;;) {
		while (*p == '/')
			p++;
		size_t len = 0;
		while (p[len] && p[len] != '/')
			len++;
		if (!len || len > FAT_LFN_MAX) {
			*why = "not a file name";
			return false;
		}
		if (!dir_find(v, dir, p, len, f, why))
			return false;
		p += len;
		while (*p == '/')
			p++;
		if (!*p)
			return true;
		if (!(f->attr & FAT_ATTR_DIRECTORY) || !valid_cluster(v, f->first_cluster)) {
			*why = "not found (a directory on its path is not one)";
			return false;
		}
		dir = f->first_cluster;
	}
}

bool fat_is_extent(struct fat_vol *v, const struct fat_file *f, uint64_t at, uint64_t length, const char **why)
{
	if (f->attr & FAT_ATTR_DIRECTORY) {
		*why = "is a directory";
		return false;
	}
	if (f->size < length) {
		*why = "is shorter than its header says (truncated or re-saved: rebuild the stick)";
		return false;
	}
	if (f->size > length) {
		*why = "is longer than its header says (re-saved: rebuild the stick)";
		return false;
	}
	if (!valid_cluster(v, f->first_cluster)) {
		*why = "has a damaged directory entry (its first cluster is outside the volume: run a disk check)";
		return false;
	}
	if (fat_cluster_at(v, f->first_cluster) != at) {
		*why = "does not start where its header says (the file was moved or copied: rebuild the stick)";
		return false;
	}
	uint64_t n = (length + v->cluster_bytes - 1) / v->cluster_bytes;
	if (f->first_cluster - FAT_FIRST_CLUSTER + n > v->clusters) {
		*why = "has a damaged directory entry (its size runs past the volume: run a disk check)";
		return false;
	}
	uint32_t c = f->first_cluster;
	for (uint64_t i = 0; i < n; i++, c++) {
		uint32_t next;
		if (!fat_next(v, c, &next)) {
			*why = "has a FAT that could not be read";
			return false;
		}
		if (i + 1 == n) {
			if (!is_eoc(v, next)) {
				*why = "has a cluster chain that runs on past its size (a damaged FAT: run a disk check)";
				return false;
			}
		} else if (is_eoc(v, next)) {
			*why = "has a cluster chain that ends before its size does (a damaged FAT: run a disk check)";
			return false;
		} else if (next != c + 1) {
			*why = valid_cluster(v, next) ? "is in pieces on the disk (fragmented: rebuild the stick)"
						      : "has a damaged cluster chain (run a disk check)";
			return false;
		}
	}
	return true;
}
