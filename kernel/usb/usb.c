/* usb.c - the boot stick through its hubs, with Bulk-Only Transport; see usb.h. Standard requests are USB 2.0 §9.4, hub requests §11.24. */
#include "usb.h"
#include "bot.h"
#include "fmt.h"
#include "lib.h"
#include "pci_class.h"
#include "pmm.h"
#include "tsc.h"
#include "cpu.h"
#include "console.h"

/* ---- Constants ------------------------------------------------------------ */
#define REQ_GET_STATUS 0
#define REQ_CLEAR_FEATURE 1
#define REQ_SET_FEATURE 3
#define REQ_GET_DESCRIPTOR 6
#define REQ_SET_CONFIGURATION 9
#define RT_DEV_IN 0x80                    /* standard, device, to host */
#define RT_DEV_OUT 0x00
#define RT_EP_OUT 0x02                    /* standard, endpoint */
#define RT_HUB_IN 0xa0                    /* class, device (the hub), to host */
#define RT_PORT_IN 0xa3                   /* class, other (a port), to host */
#define RT_PORT_OUT 0x23
#define DESC_DEVICE 1
#define DESC_CONFIG 2
#define DESC_INTERFACE 4
#define DESC_ENDPOINT 5
#define DESC_HUB 0x29
#define FEAT_ENDPOINT_HALT 0
#define HUB_PORT_POWER 8
#define HUB_PORT_RESET 4
#define HUB_C_PORT_RESET 20
#define HUB_ST_CONNECTION (1u << 0)
#define HUB_ST_ENABLE (1u << 1)
#define HUB_ST_LOW_SPEED (1u << 9)
#define HUB_ST_HIGH_SPEED (1u << 10)
#define HUB_CH_RESET (1u << (16 + 4))
#define CLASS_HID 3
#define SUBCLASS_BOOT 1
#define PROTOCOL_KEYBOARD 1
#define RT_IFACE_CLASS_OUT 0x21           /* class, interface, to the device */
#define HID_SET_IDLE 0x0a
#define HID_SET_PROTOCOL 0x0b
#define HID_BOOT_PROTOCOL 0
#define HID_REPORT_LEN 8
#define CLASS_HUB 9
#define CLASS_MASS_STORAGE 8
#define SUBCLASS_SCSI 6
#define PROTOCOL_BOT 0x50
#define CONFIG_MAX 512                    /* bytes of configuration descriptor read */
#define HUB_PORT_MS 500
#define READY_MS 3000                     /* a stick may take this long to spin up its controller */

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

static bool fail(struct usb_stick *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct usb_stick *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return false;
}

static bool xfail(struct usb_stick *s, const char *what)
{
	return fail(s, "%s: %s", what, s->x.why);
}

static bool ctrl(struct usb_stick *s, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		 uint16_t len, uint32_t *got)
{
	return xhci_control(&s->x, d, type, req, value, index, len ? s->bounce : 0, len, got);
}

/* Address d and fix EP0's packet size from the first 8 bytes of its device descriptor. */
static bool address(struct usb_stick *s, struct xhci_dev *d, const char *what)
{
	uint32_t got = 0;
	if (!xhci_dev_address(&s->x, d))
		return xfail(s, what);
	if (!ctrl(s, d, RT_DEV_IN, REQ_GET_DESCRIPTOR, DESC_DEVICE << 8, 0, 8, &got) || got < 8)
		return xfail(s, what);
	uint16_t mps = d->speed == XHCI_SPEED_SUPER ? (uint16_t)(1u << (s->bounce[7] & 0xf)) : s->bounce[7];
	if (mps != d->mps0 && d->speed != XHCI_SPEED_SUPER && !xhci_dev_set_mps0(&s->x, d, mps))
		return xfail(s, what);
	return true;
}

/* Read the first configuration descriptor into the bounce buffer and select it. */
static bool configure(struct usb_stick *s, struct xhci_dev *d, uint32_t *len, const char *what)
{
	if (!ctrl(s, d, RT_DEV_IN, REQ_GET_DESCRIPTOR, DESC_CONFIG << 8, 0, 9, len) || *len < 9)
		return xfail(s, what);
	uint16_t total = (uint16_t)(s->bounce[2] | s->bounce[3] << 8);
	uint8_t value = s->bounce[5];
	if (total > CONFIG_MAX)
		total = CONFIG_MAX;
	if (!ctrl(s, d, RT_DEV_IN, REQ_GET_DESCRIPTOR, DESC_CONFIG << 8, 0, total, len) ||
	    !ctrl(s, d, RT_DEV_OUT, REQ_SET_CONFIGURATION, value, 0, 0, 0))
		return xfail(s, what);
	return true;
}

static bool hub_port_status(struct usb_stick *s, struct xhci_dev *hub, uint8_t port, uint32_t *st)
{
	uint32_t got = 0;
	if (!ctrl(s, hub, RT_PORT_IN, REQ_GET_STATUS, 0, port, 4, &got) || got < 4)
		return false;
	*st = (uint32_t)s->bounce[0] | (uint32_t)s->bounce[1] << 8 | (uint32_t)s->bounce[2] << 16 |
	      (uint32_t)s->bounce[3] << 24;
	return true;
}

/* Make hub a hub to the controller, power and reset its port `port`, and give the speed there. */
static bool hub_port(struct usb_stick *s, struct xhci_dev *hub, uint8_t port, uint8_t *speed)
{
	uint32_t got = 0, st = 0;
	if (hub->speed == XHCI_SPEED_SUPER)
		return fail(s, "a USB 3 hub is on the way to the stick: not supported (plug it into a USB 2 port or hub)");
	if (!configure(s, hub, &got, "hub configuration"))
		return false;
	if (!ctrl(s, hub, RT_HUB_IN, REQ_GET_DESCRIPTOR, DESC_HUB << 8, 0, 8, &got) || got < 7)
		return xfail(s, "hub descriptor");
	uint8_t nports = s->bounce[2], pwr_ms = (uint8_t)(s->bounce[5] * 2);
	if (port > nports)
		return fail(s, "the hub has %u ports, the stick was on port %u", nports, port);
	if (!xhci_dev_set_hub(&s->x, hub, nports) ||
	    !ctrl(s, hub, RT_PORT_OUT, REQ_SET_FEATURE, HUB_PORT_POWER, port, 0, 0))
		return xfail(s, "hub port power");
	tsc_delay_us((pwr_ms + 20u) * 1000);
	uint64_t end = tsc_deadline_ms(HUB_PORT_MS);
	while (hub_port_status(s, hub, port, &st) && !(st & HUB_ST_CONNECTION) && tsc_read() < end)
		tsc_delay_us(5 * 1000);
	if (!(st & HUB_ST_CONNECTION))
		return fail(s, "nothing is connected to port %u of the hub", port);
	if (!ctrl(s, hub, RT_PORT_OUT, REQ_SET_FEATURE, HUB_PORT_RESET, port, 0, 0))
		return xfail(s, "hub port reset");
	end = tsc_deadline_ms(HUB_PORT_MS);
	do {
		tsc_delay_us(10 * 1000);
		if (!hub_port_status(s, hub, port, &st))
			return xfail(s, "hub port status");
	} while ((!(st & HUB_CH_RESET) || !(st & HUB_ST_ENABLE)) && tsc_read() < end);
	if (!(st & HUB_ST_ENABLE))
		return fail(s, "port %u of the hub was not enabled within %u ms of its reset", port, HUB_PORT_MS);
	ctrl(s, hub, RT_PORT_OUT, REQ_CLEAR_FEATURE, HUB_C_PORT_RESET, port, 0, 0);
	*speed = st & HUB_ST_LOW_SPEED ? XHCI_SPEED_LOW : st & HUB_ST_HIGH_SPEED ? XHCI_SPEED_HIGH : XHCI_SPEED_FULL;
	tsc_delay_us(10 * 1000);
	return true;
}

/* Find the Bulk-Only SCSI interface's endpoints in the configuration descriptor. */
static bool find_bot(struct usb_stick *s, uint32_t len, uint16_t *mps_out, uint16_t *mps_in)
{
	bool in_bot = false;
	s->ep_in = s->ep_out = 0;
	for (uint32_t i = 0; i + 2 <= len && s->bounce[i] >= 2 && i + s->bounce[i] <= len; i += s->bounce[i]) {
		const uint8_t *p = s->bounce + i;
		if (p[1] == DESC_INTERFACE && p[0] >= 9)
			in_bot = p[5] == CLASS_MASS_STORAGE && p[6] == SUBCLASS_SCSI && p[7] == PROTOCOL_BOT;
		else if (p[1] == DESC_ENDPOINT && p[0] >= 7 && in_bot && (p[3] & 3) == 2) {
			uint16_t mps = (uint16_t)((p[4] | p[5] << 8) & 0x7ff);
			if (p[2] & 0x80) {
				s->ep_in = p[2];
				*mps_in = mps;
			} else {
				s->ep_out = p[2];
				*mps_out = mps;
			}
		}
	}
	return s->ep_in && s->ep_out;
}

static bool clear_halt(struct usb_stick *s, uint8_t ep)
{
	return ctrl(s, s->disk, RT_EP_OUT, REQ_CLEAR_FEATURE, FEAT_ENDPOINT_HALT, ep, 0, 0);
}

/* One SCSI command through Bulk-Only Transport: CBW, data (len bytes, at
 * most USB_MAX_XFER, in the bounce buffer), CSW. *failed: the device said
 * the command failed (ask REQUEST SENSE). */
static bool bot_command(struct usb_stick *s, const uint8_t *cdb, uint8_t cdb_len, bool in, uint32_t len, bool *failed)
{
	struct bot_cbw *cbw = (struct bot_cbw *)s->wrap;
	uint8_t *csw = s->wrap + 64;
	uint32_t got = 0, code = 0, residue = 0;
	const char *why = 0;
	*failed = false;
	bot_cbw(cbw, ++s->tag, len, in, s->lun, cdb, cdb_len);
	trace_bytes("cbw", (const uint8_t *)cbw, sizeof(*cbw));
	if (!xhci_bulk_xfer(&s->x, s->disk, false, cbw, sizeof(*cbw), &got, &code))
		return xfail(s, "command wrapper");
	if (len && !xhci_bulk_xfer(&s->x, s->disk, in, s->bounce, len, &got, &code)) {
		if (code != XHCI_CC_STALL)
			return xfail(s, "data");
		clear_halt(s, in ? s->ep_in : s->ep_out); /* BOT §6.7.2: then read the CSW */
	}
	bool ok = xhci_bulk_xfer(&s->x, s->disk, true, csw, sizeof(struct bot_csw), &got, &code);
	if (!ok && code == XHCI_CC_STALL) {
		clear_halt(s, s->ep_in); /* BOT §6.7.2: one more try for the CSW */
		ok = xhci_bulk_xfer(&s->x, s->disk, true, csw, sizeof(struct bot_csw), &got, &code);
	}
	if (!ok)
		return xfail(s, "status wrapper");
	trace_bytes("csw", csw, got);
	if (!bot_csw_check(csw, got, cbw, &residue, failed, &why))
		return fail(s, "SCSI command 0x%02x: %s", cdb[0], why);
	if (residue)
		return fail(s, "SCSI command 0x%02x moved %u bytes less than asked", cdb[0], residue);
	return true;
}

static void sense(struct usb_stick *s, char *out, size_t cap)
{
	uint8_t cdb[16];
	bool failed;
	uint8_t n = scsi_cdb_simple(cdb, SCSI_REQUEST_SENSE, SCSI_SENSE_LEN);
	if (bot_command(s, cdb, n, true, SCSI_SENSE_LEN, &failed))
		scsi_sense_text(s->bounce, SCSI_SENSE_LEN, out, cap);
	else
		fmt_snprintf(out, cap, "no sense data");
}

/* TEST UNIT READY until it passes (a stick reports a unit attention after a reset), bounded. */
static bool ready(struct usb_stick *s)
{
	uint8_t cdb[16];
	char text[64] = "";
	bool failed = false;
	uint64_t end = tsc_deadline_ms(READY_MS);
	do {
		uint8_t n = scsi_cdb_simple(cdb, SCSI_TEST_UNIT_READY, 0);
		if (bot_command(s, cdb, n, false, 0, &failed))
			return true;
		if (!failed)
			return false;
		sense(s, text, sizeof(text));
		tsc_delay_us(50 * 1000);
	} while (tsc_read() < end);
	return fail(s, "the stick was not ready within %u ms (%s)", READY_MS, text);
}

/* ---- Public Functions ----------------------------------------------------- */
void usb_set_trace(bool on)
{
	trace = on;
	xhci_set_trace(on);
}

bool usb_stick_open(struct usb_stick *s, const struct boot_results *r, uint64_t timeout_ms)
{
	memset(s, 0, sizeof(*s));
	struct pci_addr a = { r->pci_segment, r->pci_bus, r->pci_dev, r->pci_fn };
	if (!r->n_ports || r->n_ports > BOOT_RESULTS_MAX_PORTS)
		return fail(s, "the loader recorded no USB path");
	/* By class, never by hope: an EHCI, OHCI or UHCI is not driven as an xHCI. */
	uint32_t cls = pci_present(a) ? pci_class(a) : PCI_CLASS_USB_XHCI;
	if (cls != PCI_CLASS_USB_XHCI)
		return fail(s, "the stick is on %s (%04x:%02x:%02x.%x), which QuietBench does not drive (xHCI only)",
			    pci_usb_hc_a_name(cls), a.segment, a.bus, a.dev, a.fn);
	if (!xhci_start(&s->x, a, timeout_ms))
		return fail(s, "xHCI %04x:%02x:%02x.%x: %s", a.segment, a.bus, a.dev, a.fn, s->x.why);
	uint64_t b = pmm_alloc(USB_MAX_XFER / PMM_PAGE, PMM_ANY_NODE, USB_MAX_XFER, s->x.ac64 ? 0 : 1ull << 32,
			       PMM_KERNEL);
	s->bounce = (uint8_t *)(uintptr_t)b;
	s->wrap = xhci_dma(&s->x, PMM_PAGE);
	if (!b || !s->wrap)
		return fail(s, "no memory below 4 GiB for USB transfers");
	struct xhci_dev *d = &s->dev[0];
	d->root_port = r->ports[0];
	if (!xhci_root_port_reset(&s->x, d->root_port, &d->speed))
		return xfail(s, "root port");
	if (!address(s, d, r->n_ports > 1 ? "the hub on the root port" : "the stick"))
		return false;
	for (uint32_t i = 1; i < r->n_ports; i++) {
		struct xhci_dev *hub = &s->dev[i - 1], *c = &s->dev[i];
		uint8_t port = r->ports[i];
		if (!hub_port(s, hub, port, &c->speed))
			return false;
		c->root_port = hub->root_port;
		c->route = hub->route | (uint32_t)(port & 0xf) << (4 * (i - 1));
		/* A full- or low-speed device below a high-speed hub goes through
		 * that hub's transaction translator (xHCI §6.2.2, USB 2.0 §11.14). */
		bool split = c->speed == XHCI_SPEED_FULL || c->speed == XHCI_SPEED_LOW;
		c->tt_slot = split ? (hub->speed == XHCI_SPEED_HIGH ? hub->slot : hub->tt_slot) : 0;
		c->tt_port = split ? (hub->speed == XHCI_SPEED_HIGH ? port : hub->tt_port) : 0;
		if (!address(s, c, i + 1 < r->n_ports ? "a hub on the way" : "the stick"))
			return false;
	}
	s->disk = &s->dev[r->n_ports - 1];
	s->lun = r->lun;
	uint32_t len = 0;
	uint16_t mps_out = 0, mps_in = 0;
	if (!configure(s, s->disk, &len, "the stick's configuration"))
		return false;
	if (!find_bot(s, len, &mps_out, &mps_in))
		return fail(s, "the device at the boot path is not a Bulk-Only SCSI mass-storage device");
	if (!xhci_dev_bulk(&s->x, s->disk, s->ep_out, mps_out, s->ep_in, mps_in))
		return xfail(s, "bulk endpoints");
	if (!ready(s))
		return false;
	uint8_t cdb[16];
	bool failed;
	uint8_t n = scsi_cdb_capacity10(cdb);
	if (!bot_command(s, cdb, n, true, SCSI_CAPACITY10_LEN, &failed))
		return false;
	uint32_t last = 0;
	scsi_capacity10(s->bounce, &last, &s->block_size);
	s->blocks = (uint64_t)last + 1;
	if (!s->block_size || s->block_size > USB_MAX_XFER || USB_MAX_XFER % s->block_size)
		return fail(s, "the stick reports %u-byte blocks", s->block_size);
	return true;
}

bool usb_stick_rw(struct usb_stick *s, bool write, uint64_t lba, uint32_t blocks, void *data)
{
	uint8_t *p = data, cdb[16];
	uint32_t per = USB_MAX_XFER / s->block_size;
	while (blocks) {
		uint32_t n = blocks < per ? blocks : per;
		uint32_t bytes = n * s->block_size;
		bool failed = false;
		if (lba + n > s->blocks || lba + n > 0xffffffffull)
			return fail(s, "blocks %llu+%u are past the end of the stick", (unsigned long long)lba, n);
		if (write)
			memcpy(s->bounce, p, bytes);
		uint8_t len = scsi_cdb_rw10(cdb, write, (uint32_t)lba, (uint16_t)n);
		if (!bot_command(s, cdb, len, !write, bytes, &failed)) {
			if (failed) {
				char text[64];
				char why[USB_WHY_LEN];
				memcpy(why, s->why, sizeof(why));
				sense(s, text, sizeof(text));
				return fail(s, "%s (%s)", why, text);
			}
			return false;
		}
		if (!write)
			memcpy(p, s->bounce, bytes);
		p += bytes;
		lba += n;
		blocks -= n;
	}
	return true;
}

/* The boot keyboard interface in the configuration descriptor (in the bounce buffer). */
static bool find_keyboard(struct usb_stick *s, uint32_t len, uint8_t *iface, uint8_t *ep, uint16_t *mps, uint8_t *interval)
{
	bool in_kbd = false;
	for (uint32_t i = 0; i + 2 <= len && s->bounce[i] >= 2 && i + s->bounce[i] <= len; i += s->bounce[i]) {
		const uint8_t *p = s->bounce + i;
		if (p[1] == DESC_INTERFACE && p[0] >= 9) {
			in_kbd = p[5] == CLASS_HID && p[6] == SUBCLASS_BOOT && p[7] == PROTOCOL_KEYBOARD;
			*iface = p[2];
		} else if (p[1] == DESC_ENDPOINT && p[0] >= 7 && in_kbd && (p[3] & 3) == 3 && (p[2] & 0x80)) {
			*ep = p[2];
			*mps = (uint16_t)((p[4] | p[5] << 8) & 0x7ff);
			*interval = p[6];
			return true;
		}
	}
	return false;
}

/* bInterval as xHCI's exponent of 125 us (xHCI 1.2 §6.2.3.6): frames (ms) for
 * full and low speed, 2^(bInterval-1) microframes at high speed and up. */
static uint8_t xhci_interval(uint8_t speed, uint8_t b)
{
	if (speed == XHCI_SPEED_HIGH || speed == XHCI_SPEED_SUPER)
		return (uint8_t)(b ? (b > 16 ? 15 : b - 1) : 0);
	uint8_t e = 3;                        /* 1 ms = 2^3 x 125 us */
	while (e < 10 && (1u << (e - 3)) < b)
		e++;
	return e;
}

bool usb_kbd_find(struct usb_stick *s, struct usb_kbd *k)
{
	memset(k, 0, sizeof(*k));
	k->report = xhci_dma(&s->x, HID_REPORT_LEN);
	if (!s->disk || !k->report)
		return fail(s, "no controller or no memory for a keyboard");
	for (uint8_t port = 1; port <= s->x.max_ports; port++) {
		uint8_t iface = 0, ep = 0, interval = 0;
		uint16_t mps = 0;
		uint32_t len = 0;
		if (port == s->dev[0].root_port || !xhci_port_connected(&s->x, port))
			continue;
		struct xhci_dev *d = &k->dev;
		memset(d, 0, sizeof(*d));
		d->root_port = port;
		if (!xhci_root_port_reset(&s->x, port, &d->speed) || !address(s, d, "a device") ||
		    !configure(s, d, &len, "a device's configuration") || !find_keyboard(s, len, &iface, &ep, &mps, &interval))
			continue;
		if (!ctrl(s, d, RT_IFACE_CLASS_OUT, HID_SET_PROTOCOL, HID_BOOT_PROTOCOL, iface, 0, 0) ||
		    !xhci_dev_intr_in(&s->x, d, ep, mps, xhci_interval(d->speed, interval)))
			continue;
		ctrl(s, d, RT_IFACE_CLASS_OUT, HID_SET_IDLE, 0, iface, 0, 0); /* optional for a keyboard (HID 7.2.4) */
		k->port = port;
		k->ok = true;
		k->trb = xhci_queue_in(&s->x, d, k->report, HID_REPORT_LEN);
		return true;
	}
	return fail(s, "no USB keyboard on the root ports of the stick's controller");
}

uint8_t usb_kbd_key(struct usb_stick *s, struct usb_kbd *k)
{
	uint32_t got = 0;
	if (!k->ok)
		return 0;
	int r = xhci_poll_in(&s->x, k->trb, HID_REPORT_LEN, &got);
	if (r == 0)
		return 0;
	if (r < 0) {
		k->ok = false; /* the keyboard went away or stalled: the screen stays as it is */
		return 0;
	}
	uint8_t pressed = 0;
	for (uint32_t i = 2; i < HID_REPORT_LEN && got == HID_REPORT_LEN && !pressed; i++) {
		uint8_t key = k->report[i];
		bool was = false;
		for (uint32_t j = 2; j < HID_REPORT_LEN; j++)
			was |= k->last[j] == key;
		if (key > 3 && !was) /* 0 none, 1-3 error codes (HID Usage Tables §10) */
			pressed = key;
	}
	if (got == HID_REPORT_LEN)
		memcpy(k->last, k->report, HID_REPORT_LEN);
	k->trb = xhci_queue_in(&s->x, &k->dev, k->report, HID_REPORT_LEN);
	return pressed;
}
