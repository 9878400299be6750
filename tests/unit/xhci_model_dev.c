/* xhci_model_dev.c - the devices on the model xHCI (xhci_model.h): a Bulk-Only SCSI stick with a RAM disk (USB MSC BOT 1.0, SPC-4, SBC-3) and a USB 2 hub (USB 2.0 §11.24), each answering its control requests and the stick its bulk transfers. */
#include "xhci_model.h"
#include "lib.h"

/* ---- Descriptors ------------------------------------------------------------------- */
/* QEMU 7.2 hw/usb/dev-storage.c's, high speed; at SuperSpeed bMaxPacketSize0 is 9 (2^9). */
static const uint8_t stick_dev[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x27, 0x06, 0x01, 0x00, 0, 0, 1, 2, 3, 1 };
static const uint8_t stick_cfg[32] = {
	9, 2, 32, 0, 1, 1, 0, 0xc0, 50,
	9, 4, 0, 0, 2, 0x08, 0x06, 0x50, 0,
	7, 5, 0x81, 2, 0x00, 0x02, 0,
	7, 5, 0x02, 2, 0x00, 0x02, 0,
};
static const uint8_t hub_dev[18] = { 18, 1, 0x00, 0x02, 9, 0, 1, 64, 0x09, 0x04, 0x01, 0x00, 0, 0, 0, 0, 0, 1 };
static const uint8_t hub_cfg[25] = {
	9, 2, 25, 0, 1, 1, 0, 0xe0, 0,
	9, 4, 0, 0, 1, 9, 0, 0, 0,
	7, 5, 0x81, 3, 1, 0, 12,
};

#define HUB_CONNECTION (1u << 0)
#define HUB_ENABLE (1u << 1)
#define HUB_POWER (1u << 8)
#define HUB_HIGH (1u << 10)
#define HUB_C_RESET (1u << (16 + 4))

/* ---- Helpers ------------------------------------------------------------------------- */
static int give(uint8_t *buf, uint32_t len, const uint8_t *what, uint32_t n)
{
	n = n < len ? n : len;
	if (buf)
		memcpy(buf, what, n);
	return (int)n;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- The stick's SCSI commands ------------------------------------------------------------- */
static void scsi(const struct bot_cbw *c)
{
	struct xm_stick *s = &xm.stick;
	uint32_t lba = be32(c->cb + 2), n = (uint32_t)c->cb[7] << 8 | c->cb[8];
	s->cbw = *c;
	s->status = BOT_PASSED;
	s->residue = 0;
	s->data_len = c->data_len;
	if (s->n_ops < sizeof(s->ops))
		s->ops[s->n_ops++] = c->cb[0];
	switch (c->cb[0]) {
	case SCSI_TEST_UNIT_READY:
		if (s->unit_attention > 0) {
			s->unit_attention--;
			s->status = BOT_FAILED;
		}
		break;
	case SCSI_REQUEST_SENSE:
		memset(s->data, 0, SCSI_SENSE_LEN);
		s->data[0] = 0x70;
		s->data[2] = 0x6; /* unit attention, power on or reset */
		s->data[7] = 10;
		s->data[12] = 0x29;
		break;
	case SCSI_INQUIRY:
		memset(s->data, ' ', SCSI_INQUIRY_LEN);
		s->data[0] = 0;
		s->data[4] = SCSI_INQUIRY_LEN - 5;
		memcpy(s->data + 8, "MODEL", 5);
		memcpy(s->data + 16, "XHCI STICK", 10);
		memcpy(s->data + 32, "1.0", 3);
		break;
	case SCSI_READ_CAPACITY10:
		memset(s->data, 0, 8);
		s->data[3] = XM_BLOCKS - 1;
		s->data[6] = XM_BS >> 8;
		break;
	case SCSI_READ10:
		if ((uint64_t)lba + n <= XM_BLOCKS)
			memcpy(s->data, s->disk + (size_t)lba * XM_BS, (size_t)n * XM_BS);
		break;
	}
	s->phase = c->data_len ? 1 : 2;
}

static int stick_bulk(bool in, uint8_t *buf, uint32_t len)
{
	struct xm_stick *s = &xm.stick;
	if (!in && s->phase == 0) {
		if (len != sizeof(struct bot_cbw))
			return -1;
		struct bot_cbw c;
		memcpy(&c, buf, sizeof(c));
		if (c.signature != BOT_CBW_SIGNATURE)
			return -1;
		scsi(&c);
		return (int)len;
	}
	if (s->phase == 1 && !in) {
		uint32_t n = len < s->data_len ? len : s->data_len;
		if (s->cbw.cb[0] == SCSI_WRITE10) {
			uint32_t lba = be32(s->cbw.cb + 2);
			if ((uint64_t)lba * XM_BS + n <= sizeof(s->disk))
				memcpy(s->disk + (size_t)lba * XM_BS, buf, n);
		}
		s->phase = 2;
		return (int)n;
	}
	if (s->phase == 1 && in) {
		uint32_t n = len < s->data_len ? len : s->data_len;
		if (s->short_zero && s->cbw.cb[0] == SCSI_READ10) {
			s->short_zero = false;
			n -= XM_BS; /* one block short, and the CSW will not say so */
		}
		memcpy(buf, s->data, n);
		s->phase = 2;
		return (int)n;
	}
	if (s->phase == 2 && in) {
		struct bot_csw w = { BOT_CSW_SIGNATURE, s->cbw.tag, s->residue, s->status };
		s->phase = 0;
		return give(buf, len, (const uint8_t *)&w, sizeof(w));
	}
	return -1; /* out of phase: a stall */
}

/* ---- Control requests --------------------------------------------------------------------------- */
static int hub_control(struct xm_dev *h, const uint8_t *st, uint8_t *buf, uint32_t len)
{
	uint16_t value = (uint16_t)(st[2] | st[3] << 8), index = (uint16_t)(st[4] | st[5] << 8);
	if (st[0] == 0xa0 && st[1] == 6) { /* the hub descriptor */
		uint8_t d[9] = { 9, 0x29, h->nports, 0, 0, 2, 0, 0, 0xff };
		return give(buf, len, d, sizeof(d));
	}
	if ((st[0] == 0xa3 || st[0] == 0x23) && (!index || index > h->nports))
		return -1;
	uint32_t *ps = &h->pstat[index];
	int child = h->child[index];
	if (st[0] == 0xa3 && st[1] == 0) { /* GET_STATUS of a port */
		uint32_t v = *ps;
		if (child >= 0 && (v & HUB_POWER))
			v |= HUB_CONNECTION | (xm.dev[child].high ? HUB_HIGH : 0);
		uint8_t d[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
		return give(buf, len, d, 4);
	}
	if (st[0] == 0x23 && st[1] == 3 && value == 8) /* SET_FEATURE(PORT_POWER) */
		*ps |= HUB_POWER;
	if (st[0] == 0x23 && st[1] == 3 && value == 4 && child >= 0) { /* SET_FEATURE(PORT_RESET) */
		*ps |= HUB_ENABLE | HUB_C_RESET;
		xm.default_dev = child;
	}
	if (st[0] == 0x23 && st[1] == 1 && value == 20) /* CLEAR_FEATURE(C_PORT_RESET) */
		*ps &= ~HUB_C_RESET;
	return 0;
}

int xm_dev_control(int dev, const uint8_t *st, uint8_t *buf, uint32_t len)
{
	if (dev < 0)
		return -1;
	struct xm_dev *d = &xm.dev[dev];
	uint16_t value = (uint16_t)(st[2] | st[3] << 8), index = (uint16_t)(st[4] | st[5] << 8);
	if (st[0] == 0x80 && st[1] == 6 && value >> 8 == 1) {
		uint8_t desc[18];
		memcpy(desc, d->kind == XM_HUB ? hub_dev : stick_dev, 18);
		if (d->super) {
			desc[2] = 0x00, desc[3] = 0x03, desc[7] = 9;
		}
		return give(buf, len, desc, 18);
	}
	if (st[0] == 0x80 && st[1] == 6 && value >> 8 == 2)
		return d->kind == XM_HUB ? give(buf, len, hub_cfg, sizeof(hub_cfg)) : give(buf, len, stick_cfg, sizeof(stick_cfg));
	if (st[0] == 0x00 && st[1] == 9) /* SET_CONFIGURATION */
		return 0;
	if (d->kind == XM_HUB)
		return hub_control(d, st, buf, len);
	if (st[0] == 0x02 && st[1] == 1 && value == 0) { /* CLEAR_FEATURE(ENDPOINT_HALT) */
		xm.stick.halts_cleared[index & 0xff]++;
		xm_note('H');
		return 0;
	}
	if (st[0] == 0x21 && st[1] == 0xff) { /* Bulk-Only Mass Storage Reset */
		xm.stick.resets++;
		xm.stick.phase = 0;
		xm_note('R');
		return 0;
	}
	return 0;
}

int xm_dev_bulk(int dev, bool in, uint8_t *buf, uint32_t len)
{
	if (dev < 0 || xm.dev[dev].kind != XM_STICK)
		return -1;
	return stick_bulk(in, buf, len);
}
