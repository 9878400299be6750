/* xhci_handoff.h - taking an xHCI from the BIOS (xHCI 1.2 §7.1 USB Legacy Support, §4.22.1 the handoff), as Linux's quirk_usb_handoff_xhci: the OS-owned semaphore set, the BIOS's let go of (or forced), its SMIs off, the controller halted with interrupts off; and on Intel chipsets, the ports an EHCI shares with it switched to it (usb_enable_intel_xhci_ports), with the firmware's routing kept to put back.
 *
 * Layer: usb (kernel/usb/usb.h). The stick's own xHCI is reset and driven
 * later by xhci.c; every other one is only kept quiet. */
#ifndef QB_KERNEL_XHCI_HANDOFF_H
#define QB_KERNEL_XHCI_HANDOFF_H

#include <stdbool.h>
#include "hc.h"

/* Take the xHCI at h->pci and fill in the rest of *h; bounded (1 s for the
 * BIOS, 5 s for a controller not ready, 16 ms to halt). intel_ehci: an
 * Intel EHCI is on the bus, so an Intel xHCI shares ports with it. */
void xhci_handoff(struct hc_handoff *h, bool intel_ehci);

/* True for the Intel xHCIs whose ports can be switched from the EHCI
 * (Linux's usb_is_intel_switchable_xhci: Panther Point, Lynx Point and
 * Lynx Point-LP), unless a named quirk says they cannot. */
bool xhci_intel_switchable(struct pci_addr a, uint16_t vendor, uint16_t device);

/* Put back the port routing xhci_handoff changed (h->routed): the USB 2.0
 * wires first, then the SuperSpeed terminations, the reverse of switching. */
void xhci_handoff_unroute(struct hc_handoff *h);

#endif
