/* xhci.h - a small polled xHCI host-controller driver: take the controller from the BIOS, reset it, and move data to one device's control and bulk endpoints (xHCI 1.2). No interrupts, no periodic transfers; every wait is bounded in TSC time.
 *
 * Layer: usb (kernel/usb/usb.h). Used on the BSP only, between workloads. */
#ifndef QB_KERNEL_XHCI_H
#define QB_KERNEL_XHCI_H

#include <stdbool.h>
#include <stdint.h>
#include "pci.h"
#include "xhci_ring.h"

#define XHCI_WHY_LEN 128

/* A device on the bus: a hub on the way, or the stick. */
struct xhci_dev {
	uint8_t slot;                 /* xHCI slot ID, 0: none yet */
	uint8_t speed;                /* XHCI_SPEED_* */
	uint8_t root_port;            /* 1-based */
	uint8_t tt_slot, tt_port;     /* the high-speed hub whose transaction translator a full/low-speed device uses */
	uint32_t route;               /* route string: hub ports below the root, 4 bits a tier */
	uint16_t mps0;                /* EP0's max packet size */
	uint8_t *in_ctx, *dev_ctx;    /* input and output device contexts */
	struct xhci_ring ep0;
	struct xhci_ring bulk_out, bulk_in;
	uint8_t dci_out, dci_in;      /* their device context indices; 0: not configured */
};

struct xhci {
	struct pci_addr pci;
	volatile uint8_t *cap, *op, *rt;
	volatile uint32_t *db;
	uint32_t max_slots, max_ports;
	uint32_t ctx;                 /* context size: 32 or 64 bytes */
	bool ac64;
	uint64_t *dcbaa;
	struct xhci_ring cmd;
	struct xhci_evring ev;
	const char *handoff;          /* how the controller was taken from the BIOS (the state record says it) */
	uint64_t timeout_ms;          /* bound on each command and transfer */
	char why[XHCI_WHY_LEN];       /* what went wrong, after a false return */
};

/* Take the controller at a from the firmware (USB Legacy Support handoff,
 * SMIs off), reset it and start it with a command ring and an event ring.
 * False with x->why if anything does not answer in time. */
bool xhci_start(struct xhci *x, struct pci_addr a, uint64_t timeout_ms);

/* True if a device is connected to root port `port`. */
bool xhci_port_connected(struct xhci *x, uint8_t port);

/* Reset root port `port` and give the device's speed. */
bool xhci_root_port_reset(struct xhci *x, uint8_t port, uint8_t *speed);

/* Enable a slot for d (speed, root_port, route, tt_* set by the caller) and
 * address it with EP0's packet size for its speed. */
bool xhci_dev_address(struct xhci *x, struct xhci_dev *d);

/* A control transfer on EP0 (USB 2.0 §9.3): len bytes in or out of buf
 * (len 0: none); *got is what moved. */
bool xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		  void *buf, uint16_t len, uint32_t *got);

/* Set EP0's packet size to mps (a full-speed device says it in its descriptor). */
bool xhci_dev_set_mps0(struct xhci *x, struct xhci_dev *d, uint16_t mps);

/* Tell the controller d is a hub with nports ports (the slot context's Hub fields). */
bool xhci_dev_set_hub(struct xhci *x, struct xhci_dev *d, uint8_t nports);

/* Configure the bulk endpoints with addresses ep_out and ep_in (with bit 7). */
bool xhci_dev_bulk(struct xhci *x, struct xhci_dev *d, uint8_t ep_out, uint16_t mps_out, uint8_t ep_in,
		   uint16_t mps_in);

/* A bulk transfer of len bytes (at most 64 KiB) to or from buf, which must be
 * DMA memory from xhci_dma. *code is the completion code (a stall is
 * XHCI_CC_STALL; the endpoint is then reset). */
bool xhci_bulk_xfer(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *got,
		    uint32_t *code);

/* Configure an interrupt IN endpoint (a keyboard's) with its polling
 * interval as xHCI wants it (2^interval x 125 us); it uses d's IN ring. */
bool xhci_dev_intr_in(struct xhci *x, struct xhci_dev *d, uint8_t ep_in, uint16_t mps, uint8_t interval);

/* Queue one IN transfer of len bytes into buf (DMA memory) on d's IN ring
 * without waiting; the TRB's address. */
uint64_t xhci_queue_in(struct xhci *x, struct xhci_dev *d, void *buf, uint32_t len);

/* Look once at the event ring for that TRB's completion: 1 done (*got
 * bytes), 0 not yet, -1 failed. Other events are dropped: only for a
 * controller with nothing else in flight. */
int xhci_poll_in(struct xhci *x, uint64_t trb, uint32_t len, uint32_t *got);

/* dump=usb: a usb_trace record for every TRB written and event read. */
void xhci_set_trace(bool on);

/* Zeroed memory the controller can reach (below 4 GiB unless it has 64-bit
 * addressing), page-aligned; NULL when there is none. Never freed. */
void *xhci_dma(struct xhci *x, uint64_t bytes);

#endif
