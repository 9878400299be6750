/* bot.h - USB Mass Storage Bulk-Only Transport (USB MSC BOT 1.0, 1999) and the SCSI commands a stick needs (SBC-3: READ CAPACITY (10), READ (10), WRITE (10), SYNCHRONIZE CACHE (10); SPC-4: INQUIRY, TEST UNIT READY, REQUEST SENSE). Plain C: the host tests drive it with recorded wrappers.
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_BOT_H
#define QB_KERNEL_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOT_CBW_SIGNATURE 0x43425355u  /* "USBC" (BOT §5.1) */
#define BOT_CSW_SIGNATURE 0x53425355u  /* "USBS" (BOT §5.2) */
#define BOT_CBW_IN 0x80                /* bmCBWFlags: data from the device */

/* Command Block Wrapper (BOT §5.1). */
struct bot_cbw {
	uint32_t signature;
	uint32_t tag;
	uint32_t data_len;
	uint8_t flags;
	uint8_t lun;
	uint8_t cb_len;                /* 1 .. 16 */
	uint8_t cb[16];
} __attribute__((packed));
_Static_assert(sizeof(struct bot_cbw) == 31, "BOT §5.1: a CBW is 31 bytes");

/* Command Status Wrapper (BOT §5.2). */
struct bot_csw {
	uint32_t signature;
	uint32_t tag;
	uint32_t residue;
	uint8_t status;                /* enum bot_status */
} __attribute__((packed));
_Static_assert(sizeof(struct bot_csw) == 13, "BOT §5.2: a CSW is 13 bytes");

enum bot_status { BOT_PASSED = 0, BOT_FAILED = 1, BOT_PHASE_ERROR = 2 };

/* SCSI operation codes. */
#define SCSI_TEST_UNIT_READY 0x00
#define SCSI_REQUEST_SENSE 0x03
#define SCSI_INQUIRY 0x12
#define SCSI_READ_CAPACITY10 0x25
#define SCSI_READ10 0x28
#define SCSI_WRITE10 0x2a
#define SCSI_SYNC_CACHE10 0x35

#define SCSI_CAPACITY10_LEN 8
#define SCSI_SENSE_LEN 18
#define SCSI_INQUIRY_LEN 36

/* Fill cbw for a command of cdb_len bytes moving len bytes (in: to the host). */
void bot_cbw(struct bot_cbw *cbw, uint32_t tag, uint32_t len, bool in, uint8_t lun, const uint8_t *cdb,
	     uint8_t cdb_len);

/* Check a CSW of got bytes against its CBW (BOT §6.3: valid and meaningful).
 * True when the command passed; else *why says how it failed (a command that
 * failed but is well formed asks for REQUEST SENSE: *failed is set). The
 * residue is stored through residue. */
bool bot_csw_check(const void *buf, size_t got, const struct bot_cbw *cbw, uint32_t *residue, bool *failed,
		   const char **why);

/* CDBs, big-endian as SCSI has them; each returns its length. */
uint8_t scsi_cdb_rw10(uint8_t *cdb, bool write, uint32_t lba, uint16_t blocks);
uint8_t scsi_cdb_simple(uint8_t *cdb, uint8_t op, uint8_t alloc_len); /* TEST UNIT READY, REQUEST SENSE, INQUIRY */
uint8_t scsi_cdb_capacity10(uint8_t *cdb);
uint8_t scsi_cdb_sync_cache10(uint8_t *cdb); /* the whole medium (SBC-3 §5.22: LBA 0, 0 blocks) */

/* READ CAPACITY (10)'s 8 bytes: the last block and the block size. */
void scsi_capacity10(const uint8_t *data, uint32_t *last_lba, uint32_t *block_size);

/* "key 0x2 asc 0x3a" from fixed-format sense data (SPC-4 §4.5.3), into out. */
void scsi_sense_text(const uint8_t *sense, size_t n, char *out, size_t cap);

#endif
