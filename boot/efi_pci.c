/* efi_pci.c - the stick's host controller by class; see efi_pci.h. Class codes per the PCI Code and ID Assignment Specification (kernel/lib/pci_class.h). */
#include <efi.h>
#include <efilib.h>

#include "efi_pci.h"
#include "pci.h"
#include "pci_class.h"

/* ---- Private Functions ---------------------------------------------------- */
static UINTN put(char *out, UINTN n, UINTN cap, const char *s)
{
	while (*s && n + 1 < cap)
		out[n++] = *s++;
	return n;
}

/* digits lowercase hex digits of v. */
static UINTN put_hex(char *out, UINTN n, UINTN cap, UINT64 v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = digits - 1; i >= 0 && n + 1 < cap; i--)
		out[n++] = hex[(v >> (4 * i)) & 15];
	return n;
}

/* ---- Public Functions ----------------------------------------------------- */
BOOLEAN efi_pci_usb_on_xhci(EFI_SYSTEM_TABLE *st, EFI_DEVICE_PATH *dp, struct boot_results *r)
{
	static EFI_GUID pci_io_guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_DEVICE_PATH *rest = dp;
	EFI_HANDLE h = NULL;
	EFI_PCI_IO *pci = NULL;
	UINTN seg = 0, bus = 0, dev = 0, fn = 0;
	UINT32 v = 0;
	if (EFI_ERROR(st->BootServices->LocateDevicePath(&pci_io_guid, &rest, &h)) || !h ||
	    EFI_ERROR(st->BootServices->HandleProtocol(h, &pci_io_guid, (void **)&pci)) || !pci ||
	    EFI_ERROR(pci->GetLocation(pci, &seg, &bus, &dev, &fn)) ||
	    EFI_ERROR(pci->Pci.Read(pci, EfiPciIoWidthUint32, PCI_CLASS_REVISION, 1, &v)))
		return TRUE;
	if ((v >> PCI_CLASS_SHIFT) == PCI_CLASS_USB_XHCI)
		return TRUE;
	r->pci_segment = (uint16_t)seg;
	r->pci_bus = (uint8_t)bus;
	r->pci_dev = (uint8_t)dev;
	r->pci_fn = (uint8_t)fn;
	UINTN n = 0, cap = sizeof(r->why);
	char *why = r->why;
	n = put(why, n, cap, "the stick is on ");
	n = put(why, n, cap, pci_usb_hc_a_name(v >> PCI_CLASS_SHIFT));
	n = put(why, n, cap, " (");
	n = put_hex(why, n, cap, seg, 4);
	n = put(why, n, cap, ":");
	n = put_hex(why, n, cap, bus, 2);
	n = put(why, n, cap, ":");
	n = put_hex(why, n, cap, dev, 2);
	n = put(why, n, cap, ".");
	n = put_hex(why, n, cap, fn, 1);
	n = put(why, n, cap, "), which QuietBench does not drive (xHCI only)");
	why[n] = 0;
	r->status = BOOT_RESULTS_NONE;
	return FALSE;
}
