/* usb.c - the boot stick through its hubs, with Bulk-Only Transport (USB MSC BOT 1.0) and SCSI; see usb.h. */
#include "usb.h"
#include "bot.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "pci_class.h"
#include "pmm.h"
#include "tsc.h"
#include "usb_enum.h"
#include "xhci_dev.h"
#include "xhci_xfer.h"

/* ---- Constants ------------------------------------------------------------ */
#define CLASS_MASS_STORAGE 8
#define SUBCLASS_SCSI 6
#define PROTOCOL_BOT 0x50
#define BOT_RESET 0xff                    /* Bulk-Only Mass Storage Reset (BOT §3.1) */
#define BOT_RESET_SETTLE_MS 100           /* after it: EDK2 UsbMassBot's USB_BOT_RESET_DEVICE_STALL */
#define CSW_AT 64                         /* the CSW's place in the wrapper page */
#define READY_MS 3000                     /* a stick may take this long to spin up its controller */
#define READY_POLL_MS 50
#define SENSE_TEXT_LEN 64
#define SENSE_MIN 14                      /* fixed-format sense data up to ASCQ (SPC-4 §4.5.3) */
#define SENSE_KEY_ILLEGAL_REQUEST 0x5
#define SENSE_KEY_OF(b) ((b)[2] & 0xf)
#define INQUIRY_VENDOR 8                  /* standard INQUIRY data (SPC-4 §6.4.2): T10 vendor, 8 bytes */
#define INQUIRY_PRODUCT 16                /* product, 16 bytes */
#define INQUIRY_REVISION 32               /* revision, 4 bytes */
#define INQUIRY_MIN 5                     /* up to the additional length */
#define BELOW_4G (1ull << 32)

/* ---- Private Variables ---------------------------------------------------- */
static bool trace;                        /* dump=usb */

/* ---- Private Functions ---------------------------------------------------- */
/* A usb_trace record of a wrapper's bytes (dir "cbw" or "csw"). */
static void trace_bytes(const char *dir, const uint8_t *p, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * 32 + 1];
	if (!trace)
		return;
	n = n < 32 ? n : 32;
	for (uint32_t i = 0; i < n; i++) {
		hex[2 * i] = digits[p[i] >> 4];
		hex[2 * i + 1] = digits[p[i] & 15];
	}
	hex[2 * n] = 0;
	struct rec *r = console_rec_open("usb_trace");
	rec_str(r, "dir", dir);
	rec_str(r, "hex", hex);
	console_rec_emit(r);
}

/* Find the Bulk-Only SCSI interface and its endpoints in the configuration descriptor. */
static bool find_bot(struct usb_stick *s, uint32_t len, uint8_t *ep_out, uint16_t *mps_out, uint8_t *ep_in,
		     uint16_t *mps_in)
{
	bool in_bot = false;
	*ep_in = *ep_out = 0;
	for (uint32_t i = 0; i + 2 <= len && s->bounce[i] >= 2 && i + s->bounce[i] <= len; i += s->bounce[i]) {
		const uint8_t *p = s->bounce + i;
		if (p[1] == USB_DESC_INTERFACE && p[0] >= 9) {
			in_bot = p[5] == CLASS_MASS_STORAGE && p[6] == SUBCLASS_SCSI && p[7] == PROTOCOL_BOT;
			if (in_bot)
				s->iface = p[2];
		} else if (p[1] == USB_DESC_ENDPOINT && p[0] >= 7 && in_bot && (p[3] & USB_EP_XFER_MASK) == USB_EP_XFER_BULK) {
			uint16_t mps = (uint16_t)((p[4] | p[5] << 8) & USB_EP_MPS_MASK);
			if (p[2] & USB_EP_DIR_IN) {
				*ep_in = p[2];
				*mps_in = mps;
			} else {
				*ep_out = p[2];
				*mps_out = mps;
			}
		}
	}
	return *ep_in && *ep_out;
}

/* Reset recovery (BOT §5.3.4): Bulk-Only Mass Storage Reset, then
 * CLEAR_FEATURE(ENDPOINT_HALT) on the Bulk-In and the Bulk-Out endpoint
 * (each with the controller's toggle). Where it fails, the stick is not
 * used again. */
static bool reset_recovery(struct usb_stick *s)
{
	struct xhci_dev *d = s->disk;
	s->resets++;
	bool ok = !s->x.dead &&
		  usb_ctrl(s, d, USB_RT_IFACE_CLASS_OUT, BOT_RESET, 0, s->iface, 0, 0);
	if (ok)
		tsc_delay_us(BOT_RESET_SETTLE_MS * 1000);
	ok = ok && usb_clear_halt(s, d, &d->in) && usb_clear_halt(s, d, &d->out);
	s->broken = !ok;
	return ok;
}

/* A transport failure (what: detail): reset recovery before anything else
 * goes to the stick; false. */
static bool transport_failed(struct usb_stick *s, const char *what, const char *detail)
{
	char why[XHCI_WHY_LEN];
	fmt_snprintf(why, sizeof(why), "%s", detail);
	if (reset_recovery(s))
		return usb_fail(s, "%s: %s (the stick was reset)", what, why);
	return usb_fail(s, "%s: %s; the reset recovery failed too (%s): the stick is not used again", what, why,
			s->x.why);
}

/* One SCSI command through Bulk-Only Transport: CBW, data (len bytes, at
 * most USB_MAX_XFER, in the bounce buffer), CSW. *moved is what moved of
 * the data: len less the residue, taken as the larger of what the CSW says
 * and what did not arrive (Linux usb_stor_Bulk_transport). *failed: the
 * device said the command failed (ask REQUEST SENSE). */
static bool bot_command(struct usb_stick *s, const uint8_t *cdb, uint8_t cdb_len, bool in, uint32_t len,
			uint32_t *moved, bool *failed)
{
	struct xhci_dev *d = s->disk;
	struct bot_cbw *cbw = (struct bot_cbw *)s->wrap;
	uint8_t *csw = s->wrap + CSW_AT;
	uint32_t got = 0, data = 0, code = 0, residue = 0;
	const char *why = 0;
	*failed = false;
	*moved = 0;
	if (s->broken)
		return usb_fail(s, "the stick did not come back after a reset recovery: not used again");
	bot_cbw(cbw, ++s->tag, len, in, s->lun, cdb, cdb_len);
	trace_bytes("cbw", (const uint8_t *)cbw, sizeof(*cbw));
	if (!xhci_bulk_xfer(&s->x, d, false, cbw, sizeof(*cbw), &got, &code))
		return transport_failed(s, "command wrapper", s->x.why);
	if (len && !xhci_bulk_xfer(&s->x, d, in, s->bounce, len, &data, &code)) {
		if (code != XHCI_CC_STALL)
			return transport_failed(s, "data", s->x.why);
		/* BOT §6.7.2: a stalled data stage: clear the halt, then read the CSW. */
		if (!usb_clear_halt(s, d, in ? &d->in : &d->out))
			return transport_failed(s, "data (clearing its halt)", s->x.why);
	}
	bool ok = xhci_bulk_xfer(&s->x, d, true, csw, sizeof(struct bot_csw), &got, &code);
	if (!ok && code == XHCI_CC_STALL) /* BOT §6.7.2: one more try for the CSW */
		ok = usb_clear_halt(s, d, &d->in) && xhci_bulk_xfer(&s->x, d, true, csw, sizeof(struct bot_csw), &got, &code);
	if (!ok)
		return transport_failed(s, "status wrapper", s->x.why);
	trace_bytes("csw", csw, got);
	if (!bot_csw_check(csw, got, cbw, &residue, failed, &why)) {
		char what[USB_WHY_LEN];
		fmt_snprintf(what, sizeof(what), "SCSI command 0x%02x", cdb[0]);
		if (*failed)
			return usb_fail(s, "%s: %s", what, why);
		/* A phase error or a CSW that is not valid (BOT §6.5, §6.7): reset recovery. */
		return transport_failed(s, what, why);
	}
	uint32_t missing = len - (data < len ? data : len);
	*moved = len - (residue > missing ? residue : missing);
	return true;
}

/* REQUEST SENSE as text; *key its sense key (0: none read). */
static void sense(struct usb_stick *s, char *out, size_t cap, uint8_t *key)
{
	uint8_t cdb[16];
	uint32_t moved = 0;
	bool failed;
	uint8_t n = scsi_cdb_simple(cdb, SCSI_REQUEST_SENSE, SCSI_SENSE_LEN);
	*key = 0;
	if (bot_command(s, cdb, n, true, SCSI_SENSE_LEN, &moved, &failed) && moved >= SENSE_MIN) {
		scsi_sense_text(s->bounce, moved, out, cap);
		*key = SENSE_KEY_OF(s->bounce);
	} else {
		fmt_snprintf(out, cap, "no sense data");
	}
}

/* A command that moves no data, or reads up to len; a failure says its sense. */
static bool command(struct usb_stick *s, const uint8_t *cdb, uint8_t n, bool in, uint32_t len, uint32_t *moved,
		    uint8_t *key)
{
	bool failed = false;
	*key = 0;
	if (bot_command(s, cdb, n, in, len, moved, &failed))
		return true;
	if (failed) {
		char text[SENSE_TEXT_LEN], why[USB_WHY_LEN];
		memcpy(why, s->why, sizeof(why));
		sense(s, text, sizeof(text), key);
		usb_fail(s, "%s (%s)", why, text);
	}
	return false;
}

/* INQUIRY (SPC-4 §6.4), the first command: EDK2 (UsbBootInquiry), Linux
 * (scsi_probe_lun) and Windows send it before any other, and some stick
 * firmware waits for it. Its vendor, product and revision into s->ident. */
static bool inquiry(struct usb_stick *s)
{
	uint8_t cdb[16], key;
	uint32_t moved = 0;
	uint8_t n = scsi_cdb_simple(cdb, SCSI_INQUIRY, SCSI_INQUIRY_LEN);
	if (!command(s, cdb, n, true, SCSI_INQUIRY_LEN, &moved, &key))
		return false;
	if (moved < INQUIRY_MIN)
		return usb_fail(s, "INQUIRY moved %u bytes", moved);
	size_t k = 0;
	for (uint32_t i = INQUIRY_VENDOR; i < moved && i < SCSI_INQUIRY_LEN && k + 1 < sizeof(s->ident); i++) {
		char c = (char)s->bounce[i];
		bool gap = i == INQUIRY_PRODUCT || i == INQUIRY_REVISION;
		if (c < ' ' || c > '~')
			c = ' ';
		if (gap && k && s->ident[k - 1] != ' ')
			s->ident[k++] = ' ';
		if ((c != ' ' || (k && s->ident[k - 1] != ' ')) && k + 1 < sizeof(s->ident))
			s->ident[k++] = c;
	}
	while (k && s->ident[k - 1] == ' ')
		k--;
	s->ident[k] = 0;
	return true;
}

/* TEST UNIT READY until it passes (a stick reports a unit attention after a reset), bounded. */
static bool ready(struct usb_stick *s)
{
	uint8_t cdb[16], key;
	uint32_t moved;
	char text[SENSE_TEXT_LEN] = "";
	uint64_t end = tsc_deadline_ms(READY_MS);
	do {
		bool failed = false;
		uint8_t n = scsi_cdb_simple(cdb, SCSI_TEST_UNIT_READY, 0);
		if (bot_command(s, cdb, n, false, 0, &moved, &failed))
			return true;
		if (!failed)
			return false;
		sense(s, text, sizeof(text), &key);
		tsc_delay_us(READY_POLL_MS * 1000);
	} while (tsc_read() < end);
	return usb_fail(s, "the stick was not ready within %u ms (%s)", READY_MS, text);
}

/* ---- Public Functions ----------------------------------------------------- */
void usb_set_trace(bool on)
{
	trace = on;
	xhci_set_trace(on);
}

bool usb_stick_open(struct usb_stick *s, const struct boot_results *r)
{
	memset(s, 0, sizeof(*s));
	struct pci_addr a = { r->pci_segment, r->pci_bus, r->pci_dev, r->pci_fn };
	if (!r->n_ports || r->n_ports > BOOT_RESULTS_MAX_PORTS)
		return usb_fail(s, "the loader recorded no USB path");
	/* By class, never by hope: an EHCI, OHCI or UHCI is not driven as an xHCI. */
	uint32_t cls = pci_present(a) ? pci_class(a) : PCI_CLASS_USB_XHCI;
	if (cls != PCI_CLASS_USB_XHCI)
		return usb_fail(s, "the stick is on %s (%04x:%02x:%02x.%x), which QuietBench does not drive (xHCI only)",
				pci_usb_hc_a_name(cls), a.segment, a.bus, a.dev, a.fn);
	if (!xhci_start(&s->x, a))
		return usb_fail(s, "xHCI %04x:%02x:%02x.%x: %s", a.segment, a.bus, a.dev, a.fn, s->x.why);
	uint64_t b = pmm_alloc(USB_MAX_XFER / PMM_PAGE, PMM_ANY_NODE, USB_MAX_XFER, s->x.ac64 ? 0 : BELOW_4G,
			       PMM_KERNEL);
	s->bounce = (uint8_t *)(uintptr_t)b;
	s->wrap = xhci_dma(&s->x, PMM_PAGE);
	if (!b || !s->wrap)
		return usb_fail(s, "no memory below 4 GiB for USB transfers");
	for (uint32_t i = 0; i < r->n_ports; i++) {
		struct xhci_dev *hub = i ? &s->dev[i - 1] : 0;
		const char *what = i + 1 < r->n_ports ? (i ? "a hub on the way" : "the hub on the root port") : "the stick";
		if (hub && !usb_hub_open(s, hub, r->ports[i]))
			return false;
		if (!usb_enumerate(s, &s->dev[i], hub, r->ports[i], i, what))
			return false;
	}
	s->disk = &s->dev[r->n_ports - 1];
	s->lun = r->lun;
	uint32_t len = 0;
	uint8_t value = 0, ep_out = 0, ep_in = 0;
	uint16_t mps_out = 0, mps_in = 0;
	if (!usb_config_read(s, s->disk, &len, &value, "the stick's configuration"))
		return false;
	if (!find_bot(s, len, &ep_out, &mps_out, &ep_in, &mps_in))
		return usb_fail(s, "the device at the boot path is not a Bulk-Only SCSI mass-storage device");
	/* xHCI 4.3.5: the controller's endpoints first, then SET_CONFIGURATION. */
	if (!xhci_dev_bulk(&s->x, s->disk, ep_out, mps_out, ep_in, mps_in))
		return usb_xfail(s, "bulk endpoints");
	if (!usb_set_config(s, s->disk, value, "the stick's configuration") || !inquiry(s) || !ready(s))
		return false;
	uint8_t cdb[16], key;
	uint32_t moved = 0, last = 0;
	uint8_t n = scsi_cdb_capacity10(cdb);
	if (!command(s, cdb, n, true, SCSI_CAPACITY10_LEN, &moved, &key))
		return false;
	if (moved < SCSI_CAPACITY10_LEN)
		return usb_fail(s, "READ CAPACITY moved %u bytes of %u", moved, SCSI_CAPACITY10_LEN);
	scsi_capacity10(s->bounce, &last, &s->block_size);
	s->blocks = (uint64_t)last + 1;
	if (!s->block_size || s->block_size > USB_MAX_XFER || USB_MAX_XFER % s->block_size)
		return usb_fail(s, "the stick reports %u-byte blocks", s->block_size);
	return true;
}

void usb_stick_set_deadline(struct usb_stick *s, uint64_t deadline)
{
	s->x.bulk_deadline = deadline;
}

bool usb_stick_rw(struct usb_stick *s, bool write, uint64_t lba, uint32_t blocks, void *data)
{
	uint8_t *p = data, cdb[16], key;
	uint32_t per = USB_MAX_XFER / s->block_size;
	while (blocks) {
		uint32_t n = blocks < per ? blocks : per;
		uint32_t bytes = n * s->block_size, moved = 0;
		if (lba + n > s->blocks || lba + n > 0xffffffffull)
			return usb_fail(s, "blocks %llu+%u are past the end of the stick", (unsigned long long)lba, n);
		if (write)
			memcpy(s->bounce, p, bytes);
		uint8_t len = scsi_cdb_rw10(cdb, write, (uint32_t)lba, (uint16_t)n);
		if (!command(s, cdb, len, !write, bytes, &moved, &key))
			return false;
		/* Never copy a short read as if it were whole: the rest of the bounce
		 * buffer holds what an earlier command left there. */
		if (moved != bytes)
			return usb_fail(s, "SCSI command 0x%02x moved %u bytes less than asked", cdb[0], bytes - moved);
		if (!write)
			memcpy(p, s->bounce, bytes);
		p += bytes;
		lba += n;
		blocks -= n;
	}
	return true;
}

bool usb_stick_sync(struct usb_stick *s)
{
	uint8_t cdb[16], key = 0;
	uint32_t moved;
	if (!s->disk)
		return usb_fail(s, "no stick");
	uint8_t n = scsi_cdb_sync_cache10(cdb);
	if (command(s, cdb, n, false, 0, &moved, &key))
		return true;
	return key == SENSE_KEY_ILLEGAL_REQUEST; /* no such command: nothing cached (Linux sd_sync_cache) */
}

bool usb_stick_close(struct usb_stick *s)
{
	if (!xhci_stop(&s->x))
		return usb_xfail(s, "stopping the controller");
	return true;
}
