/* xhci_cmd.h - the xHCI command ring and the event ring (xHCI 1.2 §4.6, §4.9.4): commands issued one at a time and waited for, and every event read in one place, which hands each to the command or the transfer it names and drops the rest.
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_XHCI_CMD_H
#define QB_KERNEL_XHCI_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include "xhci.h"

/* Read every event the controller has written: a command completion goes
 * to the command in flight, a transfer event to the transfer in flight on
 * its endpoint when it names one of that transfer's TRBs; any other
 * (a late event of a transfer given up on, a port change) is dropped.
 * Then tell the controller how far the events were read. */
void xhci_events(struct xhci *x);

/* Issue one command and wait for its completion, at most XHCI_CMD_MS; *ev
 * is the completion event. False with x->why when it fails (its completion
 * code), or when it is not answered: the controller is then halted
 * (xhci_die), as Linux gives up on a controller whose command ring does not
 * stop. what names it in the message. */
bool xhci_command(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, const char *what);

/* The same, but a completion code other than success is given in *cc and
 * is not a failure; false only when the command was not answered. */
bool xhci_command_cc(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, uint32_t *cc,
		     const char *what);

/* Ring doorbell `slot` (0: the command ring) for target (an endpoint's DCI). */
void xhci_doorbell(struct xhci *x, uint32_t slot, uint32_t target);

/* The controller reports a host system or controller error (USBSTS). */
bool xhci_broken(struct xhci *x);

#endif
