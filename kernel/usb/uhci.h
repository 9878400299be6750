/* uhci.h - taking a UHCI from the BIOS (UHCI 1.1 §5.2.1 legacy support, §2.1.1 reset), as Linux's quirk_usb_handoff_uhci: the BIOS's SMIs and port 60h/64h traps off, the controller reset and stopped.
 *
 * Layer: usb (kernel/usb/usb.h). QuietBench never drives a UHCI: it only
 * keeps the firmware's SMM code from running on its events. */
#ifndef QB_KERNEL_UHCI_H
#define QB_KERNEL_UHCI_H

#include "hc.h"

/* Take the UHCI at h->pci (h->cls, vendor and device set) and fill in the
 * rest of *h. Bounded; never fails, h->how says what happened. */
void uhci_handoff(struct hc_handoff *h);

#endif
