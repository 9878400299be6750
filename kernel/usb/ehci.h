/* ehci.h - taking an EHCI from the BIOS (EHCI 1.0 §2.1.7 USBLEGSUP, §5.1 the semaphores), as Linux's quirk_usb_disable_ehci and ehci_bios_handoff: the OS-owned semaphore set, the BIOS's let go of (or forced), its SMIs off, the controller halted.
 *
 * Layer: usb (kernel/usb/usb.h). QuietBench never drives an EHCI. */
#ifndef QB_KERNEL_EHCI_H
#define QB_KERNEL_EHCI_H

#include "hc.h"

/* Take the EHCI at h->pci and fill in the rest of *h; bounded. */
void ehci_handoff(struct hc_handoff *h);

#endif
