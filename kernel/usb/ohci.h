/* ohci.h - taking an OHCI from the BIOS (OHCI 1.0a §5.1.1.3: InterruptRouting and OwnershipChangeRequest), as Linux's quirk_usb_handoff_ohci: ownership asked for, interrupts off, the controller reset into UsbSuspend.
 *
 * Layer: usb (kernel/usb/usb.h). QuietBench never drives an OHCI. */
#ifndef QB_KERNEL_OHCI_H
#define QB_KERNEL_OHCI_H

#include "hc.h"

/* Take the OHCI at h->pci and fill in the rest of *h; bounded. */
void ohci_handoff(struct hc_handoff *h);

#endif
