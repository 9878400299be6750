/* usb.h - the boot stick after the firmware is gone: reach it through its xHCI controller and the hubs on the way (the path the UEFI loader recorded), and read and write its blocks with Bulk-Only Transport and SCSI.
 *
 * Layer 7: usb. Every USB controller taken from the firmware at start-up
 * (usb_handoff, uhci, ohci, ehci, xhci_handoff, hc); the xHCI controller
 * (xhci, xhci_cmd, xhci_port, xhci_dev, xhci_xfer, xhci_ring), devices on
 * it and hubs on the way (usb_enum), mass storage (usb.c, bot) and a
 * keyboard (usb_kbd). Includes lib, arch (pci, devio), console, mm and
 * measure (the TSC and the reference clock for its bounds); run, workloads
 * and start may include it; the layers below must not. Every wait is
 * bounded; a device that does not answer makes a call return false with
 * why, never hangs the run. */
#ifndef QB_KERNEL_USB_H
#define QB_KERNEL_USB_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"
#include "xhci.h"

#define USB_WHY_LEN 192
#define USB_MAX_XFER (64u * 1024)        /* bytes in one SCSI command (the bounce buffer) */
#define USB_IDENT_LEN 32                 /* "vendor product revision" from INQUIRY */

struct usb_stick {
	struct xhci x;
	struct xhci_dev dev[BOOT_RESULTS_MAX_PORTS]; /* hubs from the root, then the stick */
	struct xhci_dev *disk;
	uint8_t lun;
	uint8_t iface;                       /* the Bulk-Only interface's number, for its class reset */
	uint32_t block_size;
	uint64_t blocks;
	uint32_t tag;
	uint8_t *bounce;                     /* USB_MAX_XFER bytes, 64 KiB-aligned: a TRB never crosses 64 KiB */
	uint8_t *wrap;                       /* CBW and CSW */
	char ident[USB_IDENT_LEN];           /* INQUIRY's vendor, product and revision */
	uint32_t resets;                     /* reset recoveries (BOT §5.3.4) done */
	bool broken;                         /* a reset recovery failed: nothing more is sent to it */
	char why[USB_WHY_LEN];
};

/* dump=usb: usb_trace records of every TRB, event, CBW and CSW. */
void usb_set_trace(bool on);

/* Reach the mass-storage device at r's USB path (controller, root port,
 * hub ports, logical unit): take the controller from the BIOS, reset it,
 * enumerate the hubs on the way and the stick (each tried again as Linux
 * does), configure it (the controller's endpoints before SET_CONFIGURATION,
 * xHCI 4.3.5), ask INQUIRY first, then TEST UNIT READY, then its capacity.
 * False with s->why (and s->x.handoff still says what happened). */
bool usb_stick_open(struct usb_stick *s, const struct boot_results *r);

/* No bulk stage waits past TSC `deadline` (0: none), though each may still
 * take XHCI_BULK_FLOOR_MS: the run's time budget. */
void usb_stick_set_deadline(struct usb_stick *s, uint64_t deadline);

/* Read or write `blocks` blocks at lba, to or from data (any memory). Only
 * whole transfers are copied: a read that moved less fails. */
bool usb_stick_rw(struct usb_stick *s, bool write, uint64_t lba, uint32_t blocks, void *data);

/* SYNCHRONIZE CACHE (10) over the whole medium (SBC-3 §5.22), before the
 * power goes. A stick that does not know the command (ILLEGAL REQUEST) has
 * no cache to write: true. */
bool usb_stick_sync(struct usb_stick *s);

/* Halt and reset the stick's controller: it does nothing more. */
bool usb_stick_close(struct usb_stick *s);

#endif
