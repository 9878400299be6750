/* xhci_xfer.h - transfers on a device's endpoints (xHCI 1.2 §4.11): control transfers on EP0 (USB 2.0 §9.3), bulk transfers, and one interrupt IN transfer polled without waiting. Each is bounded: 5 s for a control transfer, 30 s for a bulk stage (and no longer than the run's budget allows, x->bulk_deadline). A transfer that gets no answer is given up on: its endpoint is stopped and its ring moved past it before the call returns; one that ends with a completion code that halts the endpoint has the endpoint reset and moved past it. Either way the caller may reuse the buffer at once.
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_XHCI_XFER_H
#define QB_KERNEL_XHCI_XFER_H

#include <stdbool.h>
#include <stdint.h>
#include "xhci.h"

/* A control transfer on EP0 (USB 2.0 §9.3): len bytes in or out of buf
 * (DMA memory; len 0: none); *got is what moved (a short IN data stage
 * moves less). False with x->why. */
bool xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		  void *buf, uint16_t len, uint32_t *got);

/* A bulk transfer of len bytes (at most 64 KiB, not crossing a 64 KiB
 * boundary) to or from buf (DMA memory). *got is what moved; *code the
 * completion code (XHCI_CC_TIMEOUT: no answer in time). True when it
 * completed (a short IN transfer too); false with x->why otherwise. */
bool xhci_bulk_xfer(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *got,
		    uint32_t *code);

/* Queue one IN transfer of len bytes into buf (DMA memory) on d->in
 * without waiting. False when one is still in flight or the controller is dead. */
bool xhci_queue_in(struct xhci *x, struct xhci_dev *d, void *buf, uint32_t len);

/* Look once for the end of d->in's transfer: 1 done (*got bytes), 0 not
 * yet, -1 failed (the endpoint is brought back if it halted). */
int xhci_poll_in(struct xhci *x, struct xhci_dev *d, uint32_t len, uint32_t *got);

#endif
