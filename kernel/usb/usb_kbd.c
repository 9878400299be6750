/* usb_kbd.c - a boot keyboard on the stick's controller; see usb_kbd.h. */
#include "usb_kbd.h"
#include "lib.h"
#include "usb_enum.h"
#include "xhci_dev.h"
#include "xhci_port.h"
#include "xhci_xfer.h"

/* ---- Constants ------------------------------------------------------------ */
#define CLASS_HID 3
#define SUBCLASS_BOOT 1
#define PROTOCOL_KEYBOARD 1
#define HID_SET_IDLE 0x0a
#define HID_SET_PROTOCOL 0x0b
#define HID_BOOT_PROTOCOL 0
#define REPORT_KEYS 2                     /* the key usages' first byte in a boot report */
#define KEY_FIRST 4                       /* 0 none, 1-3 error codes (HID Usage Tables §10) */
#define INTERVAL_MAX 15                   /* xHCI's exponent, at most */
#define INTERVAL_FRAME 3                  /* 1 ms = 2^3 x 125 us */
#define INTERVAL_FRAMES_MAX 10

/* ---- Private Functions ---------------------------------------------------- */
/* The boot keyboard interface in the configuration descriptor (in the bounce buffer). */
static bool find_keyboard(struct usb_stick *s, uint32_t len, uint8_t *iface, uint8_t *ep, uint16_t *mps,
			  uint8_t *interval)
{
	bool in_kbd = false;
	for (uint32_t i = 0; i + 2 <= len && s->bounce[i] >= 2 && i + s->bounce[i] <= len; i += s->bounce[i]) {
		const uint8_t *p = s->bounce + i;
		if (p[1] == USB_DESC_INTERFACE && p[0] >= 9) {
			in_kbd = p[5] == CLASS_HID && p[6] == SUBCLASS_BOOT && p[7] == PROTOCOL_KEYBOARD;
			*iface = p[2];
		} else if (p[1] == USB_DESC_ENDPOINT && p[0] >= 7 && in_kbd &&
			   (p[3] & USB_EP_XFER_MASK) == USB_EP_XFER_INTR && (p[2] & USB_EP_DIR_IN)) {
			*ep = p[2];
			*mps = (uint16_t)((p[4] | p[5] << 8) & USB_EP_MPS_MASK);
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
		return (uint8_t)(b ? (b > INTERVAL_MAX + 1 ? INTERVAL_MAX : b - 1) : 0);
	uint8_t e = INTERVAL_FRAME;
	while (e < INTERVAL_FRAMES_MAX && (1u << (e - INTERVAL_FRAME)) < b)
		e++;
	return e;
}

/* A boot keyboard on root port `port`, configured and polled; false leaves nothing behind. */
static bool try_port(struct usb_stick *s, struct usb_kbd *k, uint8_t port)
{
	uint8_t iface = 0, ep = 0, interval = 0, value = 0;
	uint16_t mps = 0;
	uint32_t len = 0;
	struct xhci_dev *d = &k->dev;
	memset(d, 0, sizeof(*d));
	bool ok = usb_enumerate(s, d, 0, port, 0, "a device") &&
		  usb_config_read(s, d, &len, &value, "a device's configuration") &&
		  find_keyboard(s, len, &iface, &ep, &mps, &interval) &&
		  /* xHCI 4.3.5: the endpoint first, then SET_CONFIGURATION. */
		  xhci_dev_intr_in(&s->x, d, ep, mps, xhci_interval(d->speed, interval)) &&
		  usb_set_config(s, d, value, "the keyboard's configuration") &&
		  usb_ctrl(s, d, USB_RT_IFACE_CLASS_OUT, HID_SET_PROTOCOL, HID_BOOT_PROTOCOL, iface, 0, 0);
	if (ok) {
		usb_ctrl(s, d, USB_RT_IFACE_CLASS_OUT, HID_SET_IDLE, 0, iface, 0, 0); /* optional for a keyboard (HID 7.2.4) */
		ok = xhci_queue_in(&s->x, d, k->report, USB_KBD_REPORT_LEN);
	}
	if (!ok)
		xhci_dev_disable(&s->x, d); /* not a keyboard: its slot given back */
	return ok;
}

/* ---- Public Functions ----------------------------------------------------- */
bool usb_kbd_find(struct usb_stick *s, struct usb_kbd *k)
{
	memset(k, 0, sizeof(*k));
	k->report = xhci_dma(&s->x, USB_KBD_REPORT_LEN);
	if (!s->disk || !k->report)
		return usb_fail(s, "no controller or no memory for a keyboard");
	if (s->x.dead)
		return usb_fail(s, "the stick's controller was halted: %s", s->x.why);
	for (uint8_t port = 1; port <= s->x.max_ports; port++) {
		if (port == s->dev[0].root_port || !xhci_port_connected(&s->x, port) || !try_port(s, k, port))
			continue;
		k->port = port;
		k->ok = true;
		return true;
	}
	return usb_fail(s, "no USB keyboard on the root ports of the stick's controller");
}

uint8_t usb_kbd_key(struct usb_stick *s, struct usb_kbd *k)
{
	uint32_t got = 0;
	if (!k->ok)
		return 0;
	int r = xhci_poll_in(&s->x, &k->dev, USB_KBD_REPORT_LEN, &got);
	if (r == 0)
		return 0;
	if (r < 0) {
		k->ok = false; /* the keyboard went away or stalled: the screen stays as it is */
		return 0;
	}
	uint8_t pressed = 0;
	for (uint32_t i = REPORT_KEYS; i < USB_KBD_REPORT_LEN && got == USB_KBD_REPORT_LEN && !pressed; i++) {
		uint8_t key = k->report[i];
		bool was = false;
		for (uint32_t j = REPORT_KEYS; j < USB_KBD_REPORT_LEN; j++)
			was |= k->last[j] == key;
		if (key >= KEY_FIRST && !was)
			pressed = key;
	}
	if (got == USB_KBD_REPORT_LEN)
		memcpy(k->last, k->report, USB_KBD_REPORT_LEN);
	k->ok = xhci_queue_in(&s->x, &k->dev, k->report, USB_KBD_REPORT_LEN);
	return pressed;
}
