/* efi_pci.h - the stick's USB host controller by PCI class, read through the firmware's PCI I/O protocol (UEFI 2.10 §14.4) before the loader marks or leaves anything. */
#ifndef QB_BOOT_EFI_PCI_H
#define QB_BOOT_EFI_PCI_H

#include <efi.h>

#include "boot_info.h"

/* The host controller of the USB disk at dp (the PCI I/O protocol on its
 * deepest PCI node): TRUE if it is an xHCI, the only kind the kernel
 * drives, or if it cannot be found (the loader's own search says so later).
 * Otherwise FALSE, with r's PCI address set, r->status BOOT_RESULTS_NONE and
 * r->why naming what it is and where: "the stick is on an EHCI
 * (0000:00:1d.0), which QuietBench does not drive (xHCI only)". */
BOOLEAN efi_pci_usb_on_xhci(EFI_SYSTEM_TABLE *st, EFI_DEVICE_PATH *dp, struct boot_results *r);

#endif
