/* xhci_dev.h - xHCI device slots and their contexts (xHCI 1.2 §4.3, §4.6, §6.2): a device addressed, its hub fields, its bulk or interrupt endpoints configured, and an endpoint brought back after a halt (§4.10.2.1) or a transfer given up on (Stop Endpoint and Set TR Dequeue Pointer, §4.6.9, §4.6.10).
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_XHCI_DEV_H
#define QB_KERNEL_XHCI_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include "xhci.h"

/* Enable a slot for d (speed, psiv, root_port, route, tt_* set by the
 * caller) and address it (SET_ADDRESS goes out) with EP0's packet size for
 * its speed. */
bool xhci_dev_address(struct xhci *x, struct xhci_dev *d);

/* Give d's slot back (Disable Slot, §4.6.4), after an enumeration that
 * failed, before it is tried again. */
void xhci_dev_disable(struct xhci *x, struct xhci_dev *d);

/* Set EP0's packet size to mps (a full-speed device says it in its descriptor). */
bool xhci_dev_set_mps0(struct xhci *x, struct xhci_dev *d, uint16_t mps);

/* Tell the controller d is a hub with nports ports (the slot context's Hub fields). */
bool xhci_dev_set_hub(struct xhci *x, struct xhci_dev *d, uint8_t nports);

/* Configure the bulk endpoints with addresses ep_out and ep_in (with bit 7):
 * before SET_CONFIGURATION goes to the device (§4.3.5). */
bool xhci_dev_bulk(struct xhci *x, struct xhci_dev *d, uint8_t ep_out, uint16_t mps_out, uint8_t ep_in,
		   uint16_t mps_in);

/* Configure an interrupt IN endpoint (a keyboard's) with its polling
 * interval as xHCI wants it (2^interval x 125 us), in d->in. */
bool xhci_dev_intr_in(struct xhci *x, struct xhci_dev *d, uint8_t ep_in, uint16_t mps, uint8_t interval);

/* d's endpoint with device context index dci, or NULL. */
struct xhci_ep *xhci_dev_ep(struct xhci_dev *d, uint8_t dci);

/* The endpoint's state as the controller last wrote it (enum xhci_ep_state). */
uint32_t xhci_ep_state(const struct xhci *x, const struct xhci_dev *d, const struct xhci_ep *ep);

/* Bring ep back to a stopped ring whose dequeue pointer is past every TRB
 * written so far: Reset Endpoint if the controller halted it (every
 * completion code that halts one: Stall, USB Transaction Error, Babble,
 * Split Transaction; §4.10.2.1), Stop Endpoint if it still runs a transfer
 * that was given up on (stop), then Set TR Dequeue Pointer. Afterwards the
 * controller touches none of the given-up transfer's memory. False with
 * x->why, the controller then halted (xhci_die). */
bool xhci_ep_recover(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, bool stop);

/* After the device's CLEAR_FEATURE(ENDPOINT_HALT): the controller's data
 * toggle (sequence number) for ep back to 0, as the device's now is: Reset
 * Endpoint where it is halted, else a Configure Endpoint that drops and adds
 * it (Linux xhci_endpoint_reset). */
bool xhci_ep_reset_toggle(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep);

/* The route string of a device on `port` of the hub whose route is `hub_route`
 * and which sits `tier` hubs below the root (1: on a root port's hub): a port
 * above 15 is written as 15 (USB 3.2 §8.9; Linux usb_alloc_dev). */
uint32_t xhci_route(uint32_t hub_route, uint32_t tier, uint32_t port);

#endif
