/* usb_kbd.h - a USB keyboard in the HID boot protocol (HID 1.11 appendix B) on a root port of the stick's controller, for the end screen's pager.
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_USB_KBD_H
#define QB_KERNEL_USB_KBD_H

#include <stdbool.h>
#include <stdint.h>
#include "usb.h"

#define USB_KBD_REPORT_LEN 8

struct usb_kbd {
	struct xhci_dev dev;
	uint8_t *report;                     /* 8 bytes of DMA memory: modifiers, reserved, 6 key usages */
	uint8_t last[USB_KBD_REPORT_LEN];
	uint8_t port;
	bool ok;
};

/* Find a boot keyboard on the root ports of the stick's controller (not the
 * stick's own port) and start polling it. Only when nothing else uses the
 * controller (the run's writes are done). False with s->why when there is none. */
bool usb_kbd_find(struct usb_stick *s, struct usb_kbd *k);

/* A key pressed since the last call, as its HID usage ID (HID Usage Tables
 * 1.12 §10: 0x04 'a', 0x4e Page Down, ...), or 0. Never waits. */
uint8_t usb_kbd_key(struct usb_stick *s, struct usb_kbd *k);

#endif
