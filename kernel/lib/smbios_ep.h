/* smbios_ep.h - the SMBIOS entry points and the walk over the structure table's bytes (DMTF DSP0134 3.7 §5.2, §6.1), shared by both loaders, the kernel and the Linux twin.
 *
 * Pure: every read is bounded by the caller's length, so a loader can find
 * and copy the table with the firmware's memory as its only input, and the
 * fuzzer can run it on anything. */
#ifndef QB_KERNEL_SMBIOS_EP_H
#define QB_KERNEL_SMBIOS_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMBIOS_EP21_ANCHOR "_SM_"       /* §5.2.1, on a 16-byte boundary */
#define SMBIOS_EP21_ANCHOR_LEN 4
#define SMBIOS_EP21_DMI_ANCHOR "_DMI_"  /* §5.2.1 Intermediate Anchor String */
#define SMBIOS_EP30_ANCHOR "_SM3_"      /* §5.2.2 */
#define SMBIOS_EP30_ANCHOR_LEN 5
#define SMBIOS_EP_MAX 32                /* bytes of the largest entry point (0x1F), rounded up */
#define SMBIOS_EP21_LEN 0x1f            /* §5.2.1 Table 1: Entry Point Length */
#define SMBIOS_EP21_LEN_ERRATUM 0x1e    /* SMBIOS 2.1's own text said 0x1E: firmware of that time writes it (dmidecode and Linux accept it) */
#define SMBIOS_EP21_INTERMEDIATE 0x10   /* §5.2.1: the intermediate checksum covers 0x10..0x1E */
#define SMBIOS_EP21_INTERMEDIATE_LEN 0x0f
#define SMBIOS_EP30_LEN 0x18            /* §5.2.2 Table 2: Entry Point Length */
#define SMBIOS_SCAN_BASE 0xf0000ull     /* §5.2.1: non-UEFI systems search 000F0000h-000FFFFFh */
#define SMBIOS_SCAN_LEN 0x10000u
#define SMBIOS_SCAN_STEP 16             /* the anchor sits on a paragraph boundary */
#define SMBIOS_HEADER_LEN 4             /* §6.1.2: type, length, handle */
#define SMBIOS_TYPE_END 127             /* §7.46 End-of-Table */

/* §5.2.1 Table 1: the SMBIOS 2.1 (32-bit) entry point. */
struct smbios_ep21_raw {
	char anchor[4];                 /* 00h "_SM_" */
	uint8_t checksum;               /* 04h: the Entry Point Length bytes sum to 0 */
	uint8_t length;                 /* 05h: 1Fh */
	uint8_t major, minor;           /* 06h, 07h: SMBIOS version */
	uint16_t max_structure;         /* 08h: the largest structure's size */
	uint8_t revision;               /* 0Ah: Entry Point Revision */
	uint8_t formatted[5];           /* 0Bh */
	char dmi_anchor[5];             /* 10h "_DMI_" */
	uint8_t dmi_checksum;           /* 15h: 10h..1Eh sum to 0 */
	uint16_t table_length;          /* 16h: the structure table's bytes */
	uint32_t table_address;         /* 18h: its 32-bit physical address */
	uint16_t n_structures;          /* 1Ch */
	uint8_t bcd_revision;           /* 1Eh */
} __attribute__((packed));
_Static_assert(sizeof(struct smbios_ep21_raw) == SMBIOS_EP21_LEN, "DSP0134 5.2.1 Table 1");

/* §5.2.2 Table 2: the SMBIOS 3.0 (64-bit) entry point. */
struct smbios_ep30_raw {
	char anchor[5];                 /* 00h "_SM3_" */
	uint8_t checksum;               /* 05h */
	uint8_t length;                 /* 06h: 18h */
	uint8_t major, minor, docrev;   /* 07h-09h */
	uint8_t revision;               /* 0Ah: Entry Point Revision, 01h */
	uint8_t reserved;               /* 0Bh */
	uint32_t table_max;             /* 0Ch: Structure Table Maximum Size */
	uint64_t table_address;         /* 10h: 64-bit physical address */
} __attribute__((packed));
_Static_assert(sizeof(struct smbios_ep30_raw) == SMBIOS_EP30_LEN, "DSP0134 5.2.2 Table 2");

/* §6.1.2 Table 3: every structure starts with this. */
struct smbios_header_raw {
	uint8_t type;
	uint8_t length;                 /* the formatted area, header included; strings follow */
	uint16_t handle;
} __attribute__((packed));
_Static_assert(sizeof(struct smbios_header_raw) == SMBIOS_HEADER_LEN, "DSP0134 6.1.2 Table 3");

/* An entry point, decoded. */
struct smbios_ep {
	bool v3;                        /* "_SM3_" (else "_SM_") */
	uint8_t length;                 /* the Entry Point Length as read */
	uint8_t major, minor, docrev;   /* the version (docrev: 3.x only) */
	uint64_t table_address;         /* physical */
	uint32_t table_length;          /* 2.x: exact; 3.x: the maximum the table may take */
	uint16_t n_structures;          /* 2.x only (0 for 3.x) */
};

/* Decode the entry point at p (avail readable bytes): anchor, length and
 * checksums (and, for 2.1, the intermediate anchor and its checksum). True
 * when valid; otherwise *why says what is wrong (a constant string). */
bool smbios_ep_decode(const uint8_t *p, size_t avail, struct smbios_ep *out, const char **why);

/* The offset in [base, base + len) of the first valid entry point, looked for
 * on 16-byte boundaries: a 3.0 one anywhere first, else a 2.1 one (the order
 * UEFI's configuration table is read in); (size_t)-1 if none. */
size_t smbios_ep_scan(const uint8_t *base, size_t len);

/* §6.1.3: the bytes of the structure at t (within avail): its formatted area
 * and its strings up to the double NUL. 0 when it does not fit: a length
 * below the header, or strings that run past avail. */
size_t smbios_struct_size(const uint8_t *t, size_t avail);

/* The bytes of the table at t worth keeping: every whole structure up to and
 * including End-of-Table (type 127), or up to the last one that fits in max. */
size_t smbios_table_extent(const uint8_t *t, size_t max);

#endif
