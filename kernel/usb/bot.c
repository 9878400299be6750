/* bot.c - Bulk-Only Transport wrappers and SCSI command blocks; see bot.h. */
#include "bot.h"
#include "fmt.h"
#include "lib.h"

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* ---- Public Functions ----------------------------------------------------- */
void bot_cbw(struct bot_cbw *cbw, uint32_t tag, uint32_t len, bool in, uint8_t lun, const uint8_t *cdb,
	     uint8_t cdb_len)
{
	memset(cbw, 0, sizeof(*cbw));
	cbw->signature = BOT_CBW_SIGNATURE;
	cbw->tag = tag;
	cbw->data_len = len;
	cbw->flags = in ? BOT_CBW_IN : 0;
	cbw->lun = lun & 0xf;
	cbw->cb_len = cdb_len > sizeof(cbw->cb) ? sizeof(cbw->cb) : cdb_len;
	memcpy(cbw->cb, cdb, cbw->cb_len);
}

bool bot_csw_check(const void *buf, size_t got, const struct bot_cbw *cbw, uint32_t *residue, bool *failed,
		   const char **why)
{
	const uint8_t *p = buf;
	*failed = false;
	*residue = 0;
	if (got != sizeof(struct bot_csw)) {
		*why = "the status wrapper is not 13 bytes";
		return false;
	}
	if (get_le32(p) != BOT_CSW_SIGNATURE) {
		*why = "the status wrapper has a bad signature";
		return false;
	}
	if (get_le32(p + 4) != cbw->tag) {
		*why = "the status wrapper answers another command (tag)";
		return false;
	}
	*residue = get_le32(p + 8);
	switch (p[12]) {
	case BOT_PASSED:
		if (*residue > cbw->data_len) {
			*why = "the status wrapper's residue exceeds the transfer";
			return false;
		}
		*why = 0;
		return true;
	case BOT_FAILED:
		*failed = true;
		*why = "the command failed";
		return false;
	case BOT_PHASE_ERROR:
		*why = "phase error: the device needs a reset recovery";
		return false;
	}
	*why = "the status wrapper has an unknown status";
	return false;
}

uint8_t scsi_cdb_rw10(uint8_t *cdb, bool write, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 10);
	cdb[0] = write ? SCSI_WRITE10 : SCSI_READ10;
	cdb[2] = (uint8_t)(lba >> 24);
	cdb[3] = (uint8_t)(lba >> 16);
	cdb[4] = (uint8_t)(lba >> 8);
	cdb[5] = (uint8_t)lba;
	cdb[7] = (uint8_t)(blocks >> 8);
	cdb[8] = (uint8_t)blocks;
	return 10;
}

uint8_t scsi_cdb_simple(uint8_t *cdb, uint8_t op, uint8_t alloc_len)
{
	memset(cdb, 0, 6);
	cdb[0] = op;
	cdb[4] = alloc_len;
	return 6;
}

uint8_t scsi_cdb_capacity10(uint8_t *cdb)
{
	memset(cdb, 0, 10);
	cdb[0] = SCSI_READ_CAPACITY10;
	return 10;
}

uint8_t scsi_cdb_sync_cache10(uint8_t *cdb)
{
	memset(cdb, 0, 10);
	cdb[0] = SCSI_SYNC_CACHE10;
	return 10;
}

void scsi_capacity10(const uint8_t *data, uint32_t *last_lba, uint32_t *block_size)
{
	*last_lba = get_be32(data);
	*block_size = get_be32(data + 4);
}

void scsi_sense_text(const uint8_t *sense, size_t n, char *out, size_t cap)
{
	if (n < 14 || (sense[0] & 0x7e) != 0x70) {
		fmt_snprintf(out, cap, "no fixed-format sense data");
		return;
	}
	fmt_snprintf(out, cap, "sense key 0x%x asc 0x%02x ascq 0x%02x", sense[2] & 0xf, sense[12], sense[13]);
}
