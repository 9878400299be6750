/* usb.h - the boot stick after the firmware is gone: reach it through its xHCI controller and the hubs on the way (the path the UEFI loader recorded), and read and write its blocks with Bulk-Only Transport and SCSI.
 *
 * Layer 7: usb. Every USB controller taken from the firmware at start-up
 * (usb_handoff, uhci, ohci, ehci, xhci_handoff, hc); the xHCI controller
 * (xhci, xhci_ring), USB hubs and mass storage (usb.c, bot). Includes lib,
 * arch (pci, devio), console, mm and measure (the TSC and the reference
 * clock for its bounds); run, workloads and start may include it; the layers
 * below must not. Every wait is bounded; a device that does not answer makes
 * a call return false with why, never hangs the run. */
#ifndef QB_KERNEL_USB_H
#define QB_KERNEL_USB_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"
#include "xhci.h"

#define USB_WHY_LEN 160
#define USB_MAX_XFER (64u * 1024)        /* bytes in one SCSI command (the bounce buffer) */

struct usb_stick {
	struct xhci x;
	struct xhci_dev dev[BOOT_RESULTS_MAX_PORTS]; /* hubs from the root, then the stick */
	struct xhci_dev *disk;
	uint8_t lun;
	uint8_t ep_in;                       /* bulk IN endpoint address, for clearing a halt */
	uint8_t ep_out;
	uint32_t block_size;
	uint64_t blocks;
	uint32_t tag;
	uint8_t *bounce;                     /* USB_MAX_XFER bytes, 64 KiB-aligned: a TRB never crosses 64 KiB */
	uint8_t *wrap;                       /* CBW and CSW */
	char why[USB_WHY_LEN];
};

/* dump=usb: usb_trace records of every TRB, event, CBW and CSW. */
void usb_set_trace(bool on);

/* Reach the mass-storage device at r's USB path (controller, root port,
 * hub ports, logical unit): take the controller from the BIOS, reset it,
 * enumerate the hubs on the way and the stick, and read its capacity.
 * False with s->why (and s->x.handoff still says what happened). */
bool usb_stick_open(struct usb_stick *s, const struct boot_results *r, uint64_t timeout_ms);

/* Read or write `blocks` blocks at lba, to or from data (any memory). */
bool usb_stick_rw(struct usb_stick *s, bool write, uint64_t lba, uint32_t blocks, void *data);

/* A USB keyboard in the HID boot protocol (HID 1.11 appendix B), on a root
 * port of the stick's controller. */
struct usb_kbd {
	struct xhci_dev dev;
	uint8_t *report;                     /* 8 bytes of DMA memory: modifiers, reserved, 6 key usages */
	uint8_t last[8];
	uint64_t trb;                        /* the report transfer in flight */
	uint8_t port;
	bool ok;
};

/* Find a boot keyboard on the root ports of the stick's controller (not the
 * stick's own port) and start polling it. Only when nothing else uses the
 * controller (the run's writes are done). False when there is none. */
bool usb_kbd_find(struct usb_stick *s, struct usb_kbd *k);

/* A key pressed since the last call, as its HID usage ID (HID Usage Tables
 * 1.12 §10: 0x04 'a', 0x4e Page Down, ...), or 0. Never waits. */
uint8_t usb_kbd_key(struct usb_stick *s, struct usb_kbd *k);

#endif
