/* xhci_handoff.c - an xHCI taken from the BIOS, and Intel's shared ports switched to it; see xhci_handoff.h. Section numbers are xHCI 1.2's. */
#include "xhci_handoff.h"
#include "devio.h"
#include "xhci_regs.h"

/* ---- Constants ------------------------------------------------------------ */
#define XHCI_REG_SPAN 0x10000             /* capability registers to the extended capabilities */
#define XHCI_XCAP_MAX 64                  /* a longer capability list is a loop */
#define XHCI_CNR_MS 5000                  /* Linux waits 5 s for Controller Not Ready to clear */
#define XHCI_HALT_MS 16                   /* and 16 ms for HCHalted (XHCI_MAX_HALT_USEC) */

#define PCI_VENDOR_INTEL 0x8086
/* Linux's usb_is_intel_switchable_xhci (pci-quirks.c, before 2019; the
 * routing registers are the same on later chipsets, which Linux switches
 * whenever an Intel EHCI is present). */
#define PCI_DEVICE_INTEL_PANTHER_POINT_XHCI 0x1e31   /* 7 series */
#define PCI_DEVICE_INTEL_LYNX_POINT_XHCI 0x8c31      /* 8 series */
#define PCI_DEVICE_INTEL_LYNX_POINT_LP_XHCI 0x9c31   /* 8 series, mobile */
/* Named quirk (Linux pci-quirks.c): Sony VAIO T-series, subsystem 104d:90a8,
 * cannot switch its ports from the EHCI. */
#define PCI_VENDOR_SONY 0x104d
#define PCI_SUBSYS_SONY_VAIO_T 0x90a8
/* Named quirk (Linux pci-quirks.c): the BIOS handoff never worked on TI's
 * TUSB7340 and Renesas' uPD720202; the OS takes them without asking. */
#define PCI_VENDOR_TI 0x104c
#define PCI_DEVICE_TI_TUSB7340 0x8241
#define PCI_VENDOR_RENESAS 0x1912
#define PCI_DEVICE_RENESAS_UPD720202 0x0014
static const char HOW_NEVER_ASKS[] = "forced without asking: this controller's BIOS handoff never works (Linux's quirk)";

/* ---- Private Functions ---------------------------------------------------- */
/* The USB Legacy Support capability's offset from the capability
 * registers, or 0 (§7: a list of dwords, each naming the next). */
static uint32_t find_legacy(volatile uint8_t *cap)
{
	uint32_t off = XHCI_HCC1_XECP(devio_read32(cap, XHCI_HCCPARAMS1)) * 4;
	for (unsigned n = 0; off && off + 8 <= XHCI_REG_SPAN && n < XHCI_XCAP_MAX; n++) {
		uint32_t v = devio_read32(cap, off);
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_LEGACY)
			return off;
		off = XHCI_XCAP_NEXT(v) ? off + XHCI_XCAP_NEXT(v) * 4 : 0;
	}
	return 0;
}

/* Ask for the controller (§4.22.1), wait for the BIOS to let go, and turn its
 * SMIs off and their status bits clear. */
static void legacy(struct hc_handoff *h, volatile uint8_t *cap, uint32_t off)
{
	uint32_t v = devio_read32(cap, off);
	h->have_legacy = true;
	h->legacy_before = v;
	if ((h->vendor == PCI_VENDOR_TI && h->device == PCI_DEVICE_TI_TUSB7340) ||
	    (h->vendor == PCI_VENDOR_RENESAS && h->device == PCI_DEVICE_RENESAS_UPD720202)) {
		devio_write32(cap, off, (v | XHCI_LEGSUP_OS_OWNED) & ~XHCI_LEGSUP_BIOS_OWNED);
		h->how = HOW_NEVER_ASKS;
	} else if (v & XHCI_LEGSUP_BIOS_OWNED) {
		devio_write32(cap, off, v | XHCI_LEGSUP_OS_OWNED);
		if (hc_wait_mmio(cap, off, XHCI_LEGSUP_BIOS_OWNED, 0, HC_BIOS_MS)) {
			h->how = HC_TAKEN;
		} else {
			/* As Linux: the BIOS did not answer; take it anyway. */
			devio_write32(cap, off, (devio_read32(cap, off) & ~XHCI_LEGSUP_BIOS_OWNED) | XHCI_LEGSUP_OS_OWNED);
			h->how = HC_FORCED;
		}
	} else {
		devio_write32(cap, off, v | XHCI_LEGSUP_OS_OWNED); /* ours now, for the record (§4.22.1) */
		h->how = HC_NOT_OWNED;
	}
	uint32_t ctl = devio_read32(cap, off + XHCI_LEGCTLSTS);
	devio_write32(cap, off + XHCI_LEGCTLSTS, (ctl & XHCI_LEGCTL_DISABLE_SMI) | XHCI_LEGCTL_SMI_EVENTS);
	h->legacy_after = devio_read32(cap, off);
}

/* The shared ports to the xHCI: SuperSpeed terminations first, so that a
 * USB 3 device connects at SuperSpeed, then the USB 2.0 wires; each only
 * where the firmware's mask lets the OS switch it. */
static void route(struct hc_handoff *h)
{
	h->usb3_pssen_old = pci_read32(h->pci, XHCI_INTEL_USB3_PSSEN);
	h->xusb2pr_old = pci_read32(h->pci, XHCI_INTEL_XUSB2PR);
	pci_write32(h->pci, XHCI_INTEL_USB3_PSSEN, pci_read32(h->pci, XHCI_INTEL_USB3PRM));
	pci_write32(h->pci, XHCI_INTEL_XUSB2PR, pci_read32(h->pci, XHCI_INTEL_XUSB2PRM));
	h->usb3_pssen_new = pci_read32(h->pci, XHCI_INTEL_USB3_PSSEN);
	h->xusb2pr_new = pci_read32(h->pci, XHCI_INTEL_XUSB2PR);
	h->routed = true;
}

/* ---- Public Functions ----------------------------------------------------- */
bool xhci_intel_switchable(struct pci_addr a, uint16_t vendor, uint16_t device)
{
	if (vendor != PCI_VENDOR_INTEL || (device != PCI_DEVICE_INTEL_PANTHER_POINT_XHCI &&
					    device != PCI_DEVICE_INTEL_LYNX_POINT_XHCI &&
					    device != PCI_DEVICE_INTEL_LYNX_POINT_LP_XHCI))
		return false;
	uint32_t sub = pci_read32(a, PCI_SUBSYSTEM);
	return !(PCI_ID_VENDOR(sub) == PCI_VENDOR_SONY && PCI_ID_DEVICE(sub) == PCI_SUBSYS_SONY_VAIO_T);
}

void xhci_handoff(struct hc_handoff *h, bool intel_ehci)
{
	volatile uint8_t *cap = hc_map_bar0(h, XHCI_REG_SPAN);
	if (!cap)
		return;
	uint32_t off = find_legacy(cap);
	if (off)
		legacy(h, cap, off);
	else
		h->how = HC_NO_LEGACY;
	if (intel_ehci && xhci_intel_switchable(h->pci, h->vendor, h->device))
		route(h);
	/* Halted, with its interrupts off, once it is ready for its
	 * operational registers to be written (§4.2). */
	volatile uint8_t *op = cap + (devio_read32(cap, XHCI_CAPLENGTH) & XHCI_CAPLENGTH_MASK);
	bool ready = hc_wait_mmio(op, XHCI_USBSTS, XHCI_STS_CNR, 0, XHCI_CNR_MS);
	uint32_t cmd = devio_read32(op, XHCI_USBCMD);
	if ((devio_read32(op, XHCI_USBSTS) & XHCI_STS_HCH) && !(cmd & XHCI_CMD_IRQS)) {
		h->stop = ready ? "already halted" : "already halted, but not ready within 5 s";
		return;
	}
	devio_write32(op, XHCI_USBCMD, cmd & ~(XHCI_CMD_RS | XHCI_CMD_IRQS));
	bool halted = hc_wait_mmio(op, XHCI_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, XHCI_HALT_MS);
	h->stop = !ready ? "not ready within 5 s; halt asked for"
		: halted ? (cmd & XHCI_CMD_RS ? "halted" : "already halted") : "did not halt within 16 ms";
}

void xhci_handoff_unroute(struct hc_handoff *h)
{
	if (!h->routed)
		return;
	pci_write32(h->pci, XHCI_INTEL_XUSB2PR, h->xusb2pr_old);
	pci_write32(h->pci, XHCI_INTEL_USB3_PSSEN, h->usb3_pssen_old);
	h->routed = false;
}
