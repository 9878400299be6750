/* hc.h - what the BIOS handoffs of the four kinds of USB host controller share: the record of one handoff, its outcomes, bounded waits on the reference clock, and the controller's registers mapped (after Linux drivers/usb/host/pci-quirks.c, quirk_usb_early_handoff).
 *
 * Layer: usb (kernel/usb/usb.h). The handoffs run before the TSC is
 * calibrated, so every wait is bounded by the HPET or the ACPI PM timer
 * (timer_deadline_ms), never by a TSC frequency not yet known. */
#ifndef QB_KERNEL_HC_H
#define QB_KERNEL_HC_H

#include <stdbool.h>
#include <stdint.h>
#include "pci.h"

#define HC_BIOS_MS 1000                /* the BIOS gets 1 s to let go, as Linux gives it */

/* What one controller's handoff found and did. */
struct hc_handoff {
	struct pci_addr pci;
	uint32_t cls;                  /* PCI class code (pci_class.h) */
	uint16_t vendor, device;
	const char *how;               /* HC_* below: who owned it, and how it was taken */
	const char *stop;              /* what became of its schedule: "reset", "halted", ...; NULL: untouched */
	bool have_legacy;              /* legacy_* hold its legacy support register */
	uint32_t legacy_before;        /* UHCI LEGSUP, OHCI HcControl, EHCI or xHCI USBLEGSUP */
	uint32_t legacy_after;
	bool routed;                   /* Intel: shared ports switched from the EHCI to this xHCI */
	uint32_t usb3_pssen_old, usb3_pssen_new, xusb2pr_old, xusb2pr_new;
	int64_t smi_before, smi_after; /* IA32_SMI_COUNT around it; -1 where it cannot be read */
	bool before_tsc;               /* done before the TSC was calibrated (tsc_hz() was 0) */
};

/* The outcomes, as the `state` record gives them. */
extern const char HC_TAKEN[];          /* "taken from the BIOS" */
extern const char HC_FORCED[];         /* "forced: the BIOS did not let go within 1 s" */
extern const char HC_NOT_OWNED[];      /* "the BIOS did not own it" */
extern const char HC_NO_LEGACY[];      /* no legacy support capability: no SMI handler can own it */
extern const char HC_DECODE_OFF[];     /* its registers are not decoded (PCI command register): left alone */
extern const char HC_NO_BAR[];         /* it has no register BAR: left alone */
extern const char HC_NO_MAP[];         /* its registers cannot be mapped: left alone */

/* Wait until (register & mask) == want, bounded by ms of the reference
 * clock; true if it came. In memory space, in PCI configuration space
 * (a dword), or at a 16-bit I/O port. */
bool hc_wait_mmio(volatile void *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms);
bool hc_wait_cfg(struct pci_addr a, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms);
bool hc_wait_io16(uint16_t port, uint16_t mask, uint16_t want, uint64_t ms);

/* The controller's memory BAR0, len bytes of it mapped, when the PCI
 * command register decodes memory and the BAR is set (Linux's
 * mmio_resource_enabled); else NULL, with h->how saying why. */
volatile uint8_t *hc_map_bar0(struct hc_handoff *h, uint64_t len);

#endif
