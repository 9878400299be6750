/* mb2.h - the Multiboot2 boot information as QuietBench reads it (Multiboot2 spec 1.0, §3.1 header, §3.6 boot information).
 *
 * mb2_parse() turns the tag list GRUB hands over into a struct boot_info.
 * It is plain C over a byte buffer with every length checked, so the host
 * tests and a fuzzer run it on arbitrary input. The constants above the
 * __ASSEMBLY__ guard are shared with boot/mb2_header.S and mb2_entry.S. */
#ifndef QB_BOOT_MB2_H
#define QB_BOOT_MB2_H

/* §3.1.2 header magic, and §3.2 the value in EAX when the loader jumps. */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_BOOT_MAGIC 0x36d76289
#define MB2_ARCH_I386 0            /* 32-bit protected mode entry */
#define MB2_HEADER_ALIGN 8         /* the header and its tags are 8-byte aligned */

/* §3.1.3-3.1.13 header tag types, and the "optional" flag. */
#define MB2_HTAG_END 0
#define MB2_HTAG_INFO_REQUEST 1
#define MB2_HTAG_FRAMEBUFFER 5
#define MB2_HTAG_FLAG_OPTIONAL 1

/* §3.6 boot information tag types. */
#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER_NAME 2
#define MB2_TAG_MODULE 3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_BOOTDEV 5
#define MB2_TAG_MMAP 6
#define MB2_TAG_VBE 7
#define MB2_TAG_FRAMEBUFFER 8
#define MB2_TAG_EFI32_SYSTAB 11
#define MB2_TAG_EFI64_SYSTAB 12
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>
#include "boot_info.h"

/* §3.6.1: the fixed part at the start of the boot information. */
struct mb2_info_header {
	uint32_t total_size;   /* bytes, including this header and the end tag */
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_info_header) == 8, "Multiboot2 §3.6.1 fixed part");

/* §3.6.1: every tag starts with this; tags are padded to 8 bytes. */
struct mb2_tag {
	uint32_t type;
	uint32_t size;         /* bytes without the padding */
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_tag) == 8, "Multiboot2 §3.6.1 tag header");

/* §3.6.8 memory map tag, then entry_size-byte entries. */
struct mb2_tag_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;   /* at least sizeof(struct mb2_mmap_entry) */
	uint32_t entry_version;
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_tag_mmap) == 16, "Multiboot2 §3.6.8 mmap tag");

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;         /* MB2_MEM_* */
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "Multiboot2 §3.6.8 mmap entry");

/* §3.6.8 memory types; anything else is reserved. */
#define MB2_MEM_AVAILABLE 1
#define MB2_MEM_ACPI_RECLAIM 3
#define MB2_MEM_NVS 4
#define MB2_MEM_BAD 5

/* §3.6.3 basic memory information, in KiB: the fallback without a map. */
struct mb2_tag_meminfo {
	struct mb2_tag tag;
	uint32_t mem_lower;    /* from 0 */
	uint32_t mem_upper;    /* from 1 MiB */
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_tag_meminfo) == 16, "Multiboot2 §3.6.3 basic meminfo tag");

/* §3.6.12 framebuffer info, common part (GRUB's layout: a 16-bit reserved field). */
struct mb2_tag_fb {
	struct mb2_tag tag;
	uint64_t addr;
	uint32_t pitch;
	uint32_t width;
	uint32_t height;
	uint8_t bpp;
	uint8_t fb_type;       /* MB2_FB_* */
	uint16_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_tag_fb) == 32, "Multiboot2 §3.6.12 framebuffer tag");

/* §3.6.12 colour info for MB2_FB_RGB, right after the common part. */
struct mb2_fb_rgb {
	uint8_t red_pos, red_size;
	uint8_t green_pos, green_size;
	uint8_t blue_pos, blue_size;
} __attribute__((packed));
_Static_assert(sizeof(struct mb2_fb_rgb) == 6, "Multiboot2 §3.6.12 direct RGB colour info");

#define MB2_FB_INDEXED 0
#define MB2_FB_RGB 1
#define MB2_FB_EGA_TEXT 2

/* An ACPI 2.0 RSDP is 36 bytes (ACPI 6.5 §5.2.5.3); 1.0 is the first 20. */
#define MB2_RSDP_MAX 36
#define MB2_RSDP_V1_LEN 20

/* Where the memory map came from. */
enum mb2_mem_source { MB2_MEMSRC_NONE = 0, MB2_MEMSRC_MMAP, MB2_MEMSRC_BASIC };

/* What mb2_parse() found besides struct boot_info: the raw memory map for
 * mmap_normalise(), a copy of the RSDP (the tags carry a copy, not its
 * address) and the loader's name. The caller sets raw and raw_cap. */
struct mb2_found {
	struct boot_mem_range *raw;    /* caller's buffer */
	uint32_t raw_cap;              /* entries in raw[] */
	uint32_t raw_count;            /* entries written */
	uint32_t raw_dropped;          /* map entries past raw_cap */
	uint32_t mem_source;           /* enum mb2_mem_source */
	uint32_t rsdp_len;             /* bytes in rsdp[], 0 if no ACPI tag */
	uint8_t rsdp[MB2_RSDP_MAX];
	char loader_name[64];          /* ASCII, "" if the tag is absent */
	uint32_t fb_type;              /* the framebuffer tag's type, even if unusable */
	uint32_t fb_bpp;
	uint32_t efi_systab;           /* 1 if an EFI system table tag came (a UEFI GRUB) */
	uint32_t tags;                 /* tags read, end tag included */
	uint32_t unknown_tags;         /* tags of types this parser skips */
};

/* mb2_parse() results. */
enum mb2_status {
	MB2_OK = 0,
	MB2_ERR_ARGS,        /* NULL info or out */
	MB2_ERR_SIZE,        /* total_size below 16 or over max_len (tags are walked by their own 8-byte padding) */
	MB2_ERR_TAG,         /* a tag's size is below 8 or runs past total_size */
	MB2_ERR_NO_END,      /* no end tag */
	MB2_ERR_NO_MEMORY,   /* neither a memory map nor basic memory information */
};

/* Parse the boot information at info, of which at most max_len bytes may be
 * read. Fills out's cmdline, cmdline_truncated, fb, rsdp_source, fw_vendor
 * ("" here; the caller composes it) and x. The kernel's path, which GRUB puts
 * before the options, is dropped from the command line. Repeated tags: the
 * last one wins, except that the new ACPI tag always beats the old one.
 * Returns MB2_OK or an enum mb2_status; on error out and x hold what was read
 * up to the bad tag. */
int mb2_parse(const void *info, size_t max_len, struct boot_info *out, struct mb2_found *x);

/* Short description of an enum mb2_status, for the failure message. */
const char *mb2_status_name(int status);

#endif /* __ASSEMBLY__ */
#endif
