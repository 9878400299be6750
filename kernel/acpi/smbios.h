/* smbios.h - the SMBIOS structure table as QuietBench reads it (DMTF DSP0134 3.7): BIOS, system, board, chassis, processors, memory arrays and devices and where they are mapped; one parser for the kernel and the Linux twin.
 *
 * Layer: acpi (the firmware's tables). Pure parsing over a byte buffer the
 * caller owns and keeps: strings point into it. Every structure is
 * bounds-checked against the table and its own length, as the ACPI parsers
 * check theirs; a malformed structure becomes an error and is skipped, and
 * the rest is kept. A string that is not given, names a string the
 * structure does not have, or is not printable ASCII is null with its state,
 * never invented. */
#ifndef QB_KERNEL_SMBIOS_H
#define QB_KERNEL_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "smbios_ep.h"

#define SMBIOS_MAX_PROCS 256           /* processor structures (sockets) kept: a hypervisor may list 128 */
#define SMBIOS_MAX_ARRAYS 32           /* physical memory arrays kept */
#define SMBIOS_MAX_DEVICES 1024        /* memory devices (slots) kept */
#define SMBIOS_MAX_MAP19 128           /* array mapped addresses kept */
#define SMBIOS_MAX_MAP20 1024          /* device mapped addresses kept */
#define SMBIOS_MAX_ERRORS 16           /* errors kept; later ones only counted */
#define SMBIOS_ERR_LEN 64
#define SMBIOS_NONE (-1)               /* an index that points nowhere */

/* DSP0134 §7 structure types read. */
enum smbios_type {
	SMBIOS_TYPE_BIOS = 0, SMBIOS_TYPE_SYSTEM = 1, SMBIOS_TYPE_BOARD = 2, SMBIOS_TYPE_CHASSIS = 3,
	SMBIOS_TYPE_PROCESSOR = 4, SMBIOS_TYPE_MEMORY_ARRAY = 16, SMBIOS_TYPE_MEMORY_DEVICE = 17,
	SMBIOS_TYPE_ARRAY_MAPPED = 19, SMBIOS_TYPE_DEVICE_MAPPED = 20,
};

/* What a string field holds (§6.1.3). */
enum smbios_str_state {
	SMBIOS_STR_ABSENT = 0,         /* the structure is too short for the field (an older version) */
	SMBIOS_STR_OK,                 /* s points at len printable ASCII bytes (trailing spaces dropped) */
	SMBIOS_STR_NONE,               /* string number 0: the firmware gives none */
	SMBIOS_STR_BAD_INDEX,          /* a string number past the structure's strings */
	SMBIOS_STR_NOT_ASCII,          /* a byte outside 0x20-0x7e */
	SMBIOS_STR_BLANK,              /* only spaces */
	SMBIOS_STR_ROOT_ONLY,          /* the Linux twin: /sys/class/dmi/id shows it to root only */
	SMBIOS_STR_NO_FILE,            /* the Linux twin: not in /sys/class/dmi/id */
};

struct smbios_str {
	const char *s;                 /* into the caller's table; valid only when state is SMBIOS_STR_OK */
	uint16_t len;
	uint8_t state;                 /* enum smbios_str_state */
	uint8_t index;                 /* the string number as read */
};

/* Type 0 (§7.1). */
struct smbios_bios {
	bool present;
	struct smbios_str vendor, version, date;
	uint8_t major, minor;          /* System BIOS Major/Minor Release (2.4+); 0xff: not given */
};

/* Type 1 (§7.2). The UUID's first three fields are little-endian from 2.6 on (§7.2.1). */
enum smbios_uuid_state { SMBIOS_UUID_ABSENT = 0, SMBIOS_UUID_OK, SMBIOS_UUID_NOT_SET, SMBIOS_UUID_NOT_PRESENT };
struct smbios_system {
	bool present;
	struct smbios_str manufacturer, product, version, serial, sku, family;
	uint8_t uuid_state;            /* enum smbios_uuid_state: all 00h not set, all FFh not present */
	uint8_t uuid[16];              /* as read */
};

/* Type 2 (§7.3). */
struct smbios_board {
	bool present;
	struct smbios_str manufacturer, product, version, serial;
};

/* Type 3 (§7.4). */
struct smbios_chassis {
	bool present;
	uint8_t type;                  /* Table 17, bit 7 (lock) cleared */
	struct smbios_str manufacturer, serial;
};

/* Type 4 (§7.5): one socket. Counts of 0 are unknown. */
struct smbios_proc {
	uint16_t handle;
	struct smbios_str socket, manufacturer, version;
	uint8_t type;                  /* Table 22: 3 central processor */
	uint8_t status;                /* Status byte as read */
	bool populated;                /* Status bit 6: CPU socket populated */
	uint16_t max_mhz, current_mhz; /* 0: unknown */
	uint16_t cores, cores_enabled, threads; /* 2.5+, the 16-bit forms (3.0+) where the byte says 0xff */
};

/* Type 16 (§7.17). */
struct smbios_array {
	uint16_t handle;
	uint8_t location, use, ecc;    /* Tables 72, 73, 74 */
	uint16_t slots;                /* Number of Memory Devices */
	uint64_t max_bytes;            /* Maximum Capacity (or its extended form); 0: unknown */
};

/* Type 17 (§7.18). Widths of 0xffff, speeds of 0, rank 0 and voltage 0 are unknown. */
enum smbios_size_state { SMBIOS_SIZE_EMPTY = 0, SMBIOS_SIZE_KNOWN, SMBIOS_SIZE_UNKNOWN };
#define SMBIOS_WIDTH_UNKNOWN 0xffffu
struct smbios_device {
	uint16_t handle, array_handle;
	int32_t array;                 /* index in arrays[], or SMBIOS_NONE */
	uint16_t total_width, data_width;
	uint8_t size_state;            /* enum smbios_size_state: 0 is "no device installed" */
	uint64_t size_bytes;           /* with SMBIOS_SIZE_KNOWN: Size, or Extended Size where Size is 7FFFh */
	uint8_t form_factor, type;     /* Tables 77, 78 */
	uint16_t type_detail;          /* Table 79 bits */
	uint32_t speed_mts, configured_mts; /* 2.3+ / 2.7+, or the 3.3 extended forms where the word is FFFFh */
	uint8_t rank;                  /* Attributes bits 3:0 (2.6+) */
	uint16_t configured_mv;        /* Configured Voltage (2.8+) */
	struct smbios_str locator, bank, manufacturer, serial, part;
};

/* Type 19 (§7.20) and type 20 (§7.21), in bytes, end inclusive. */
struct smbios_map19 {
	uint16_t handle, array_handle;
	uint64_t start, end;
	uint8_t partition_width;
};
struct smbios_map20 {
	uint16_t handle, device_handle, map19_handle;
	uint64_t start, end;
};

/* A structure that could not be read, or a table that is not whole. */
struct smbios_error {
	char msg[SMBIOS_ERR_LEN];
	int32_t type;                  /* the structure's type, or -1 for the table */
	int32_t handle;                /* its handle, or -1 */
	uint32_t offset;               /* in the table */
};

/* Everything smbios_parse() found. */
struct smbios_info {
	bool present;                  /* a structure table was read */
	bool ep_valid;                 /* the entry point decoded (else ep_why) */
	struct smbios_ep ep;
	const char *ep_why;
	uint32_t table_bytes;          /* bytes walked */
	uint32_t n_structures;         /* structures walked */
	bool end_found;                /* an End-of-Table structure was reached (a 3.x table may end without one) */
	struct smbios_bios bios;
	struct smbios_system system;
	struct smbios_board board;
	struct smbios_chassis chassis;
	uint32_t n_procs, n_arrays, n_devices, n_map19, n_map20;
	uint32_t dropped;              /* structures past the limits above */
	struct smbios_proc procs[SMBIOS_MAX_PROCS];
	struct smbios_array arrays[SMBIOS_MAX_ARRAYS];
	struct smbios_device devices[SMBIOS_MAX_DEVICES];
	struct smbios_map19 map19[SMBIOS_MAX_MAP19];
	struct smbios_map20 map20[SMBIOS_MAX_MAP20];
	uint32_t n_errors, n_errors_lost;
	struct smbios_error errors[SMBIOS_MAX_ERRORS];
};

/* Values the summaries look at (Tables 74, 77, 79). */
#define SMBIOS_TYPE_UNKNOWN 0x02        /* Table 78: 01h Other, 02h Unknown */
#define SMBIOS_USE_SYSTEM 0x03
#define SMBIOS_ECC_NONE 0x03
#define SMBIOS_ECC_PARITY 0x04
#define SMBIOS_ECC_SINGLE_BIT 0x05
#define SMBIOS_ECC_MULTI_BIT 0x06
#define SMBIOS_ECC_CRC 0x07
#define SMBIOS_FF_CHIP 0x05
#define SMBIOS_FF_DIMM 0x09
#define SMBIOS_FF_ROW_OF_CHIPS 0x0b
#define SMBIOS_FF_SODIMM 0x0d
#define SMBIOS_FF_CAMM 0x11
#define SMBIOS_DETAIL_BITS 16
#define SMBIOS_DETAIL_REGISTERED (1u << 13)
#define SMBIOS_DETAIL_UNBUFFERED (1u << 14)
#define SMBIOS_DETAIL_LRDIMM (1u << 15)
#define SMBIOS_CHASSIS_UNKNOWN 0x02

/* Names as DSP0134's tables (and dmidecode) spell them; "<OUT OF SPEC>"
 * past a table (smbios_names.c). */
const char *smbios_location_name(uint8_t v);     /* type 16 Location */
const char *smbios_use_name(uint8_t v);          /* type 16 Use */
const char *smbios_ecc_name(uint8_t v);          /* type 16 Memory Error Correction */
const char *smbios_form_factor_name(uint8_t v);  /* type 17 Form Factor */
const char *smbios_memory_type_name(uint8_t v);  /* type 17 Memory Type */
const char *smbios_chassis_name(uint8_t v);      /* type 3 Type */
/* Type 17 Type Detail bit's name, NULL for bit 0 (reserved) and past 15. */
const char *smbios_detail_name(unsigned bit);
/* True for single-bit and multi-bit ECC and CRC. */
bool smbios_ecc_is_ecc(uint8_t v);
/* "RDIMM", "LRDIMM", "UDIMM", "SODIMM", "DIMM", "soldered", "CAMM", or NULL:
 * the module as people name it, from Type Detail and Form Factor. */
const char *smbios_module_name(const struct smbios_device *d);

/*
 * Clear *out, decode the entry point's ep_len bytes (ep may be NULL: a table
 * without one, as Linux's /sys/firmware/dmi/tables/DMI when the entry point
 * cannot be read) and walk the table's len bytes: every structure up to
 * End-of-Table, or to the end of the bytes (an error if no End-of-Table was
 * found). The structures of the types above are decoded; strings point into
 * table, which must outlive *out.
 */
void smbios_parse(const uint8_t *ep, size_t ep_len, const uint8_t *table, size_t len, struct smbios_info *out);

/* Record an error (at most SMBIOS_MAX_ERRORS kept, the rest counted). */
void smbios_error(struct smbios_info *out, int32_t type, int32_t handle, uint32_t offset, const char *msg);

/* The parsers of each type (smbios.c, smbios_mem.c): p is the structure, its
 * formatted area n bytes long (n >= the header), strings its string set
 * (strings_len bytes, the double NUL included). */
struct smbios_struct {
	const uint8_t *p;
	uint8_t n;
	const uint8_t *strings;
	size_t strings_len;
	uint32_t offset;
};
void smbios_parse_memory(const struct smbios_struct *s, struct smbios_info *out);

/* After the walk: each device's array index from its array handle. */
void smbios_link_memory(struct smbios_info *out);

/* String number `field` of s (the byte at offset field), or ABSENT when the
 * structure is too short for it. */
struct smbios_str smbios_string(const struct smbios_struct *s, uint8_t field);

/* Readers of the formatted area: 0 (or `absent`) when the structure is too short. */
uint8_t smbios_u8(const struct smbios_struct *s, uint8_t off, uint8_t absent);
uint16_t smbios_u16(const struct smbios_struct *s, uint8_t off, uint16_t absent);
uint32_t smbios_u32(const struct smbios_struct *s, uint8_t off, uint32_t absent);
uint64_t smbios_u64(const struct smbios_struct *s, uint8_t off, uint64_t absent);

#endif
