/* pci_class.h - the PCI class codes of USB host controllers (PCI Code and ID Assignment Specification 1.11, §1.13: base class 0Ch, subclass 03h, programming interface by controller) and their names, for the loader and the kernel alike.
 *
 * Plain data: no hardware. The loader names the stick's controller with it
 * before it leaves the firmware, the kernel when it walks the bus. */
#ifndef QB_KERNEL_PCI_CLASS_H
#define QB_KERNEL_PCI_CLASS_H

#include <stdint.h>

#define PCI_CLASS_USB_UHCI 0x0c0300u   /* Universal Host Controller (USB 1.x) */
#define PCI_CLASS_USB_OHCI 0x0c0310u   /* Open Host Controller (USB 1.x) */
#define PCI_CLASS_USB_EHCI 0x0c0320u   /* Enhanced Host Controller (USB 2.0) */
#define PCI_CLASS_USB_XHCI 0x0c0330u   /* eXtensible Host Controller (USB 3.x) */
#define PCI_CLASS_USB_MASK 0xffff00u   /* class and subclass: any USB controller */
#define PCI_CLASS_USB_ANY 0x0c0300u

/* "UHCI", "OHCI", "EHCI" or "xHCI" for a USB host controller's class code,
 * "USB device" for another USB programming interface, 0 for anything else. */
static inline const char *pci_usb_hc_name(uint32_t cls)
{
	switch (cls) {
	case PCI_CLASS_USB_UHCI: return "UHCI";
	case PCI_CLASS_USB_OHCI: return "OHCI";
	case PCI_CLASS_USB_EHCI: return "EHCI";
	case PCI_CLASS_USB_XHCI: return "xHCI";
	}
	return (cls & PCI_CLASS_USB_MASK) == PCI_CLASS_USB_ANY ? "USB device" : 0;
}

/* The same with its article, for sentences: "a UHCI", "an OHCI", "an EHCI",
 * "an xHCI", "a USB device"; "a controller that is not USB" otherwise. */
static inline const char *pci_usb_hc_a_name(uint32_t cls)
{
	switch (cls) {
	case PCI_CLASS_USB_UHCI: return "a UHCI";
	case PCI_CLASS_USB_OHCI: return "an OHCI";
	case PCI_CLASS_USB_EHCI: return "an EHCI";
	case PCI_CLASS_USB_XHCI: return "an xHCI";
	}
	return (cls & PCI_CLASS_USB_MASK) == PCI_CLASS_USB_ANY ? "a USB device" : "a controller that is not USB";
}

#endif
