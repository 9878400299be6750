/* ohci.c - an OHCI taken from the BIOS; see ohci.h. Section numbers are OHCI 1.0a's. */
#include "ohci.h"
#include "devio.h"
#include "ohci_regs.h"

/* ---- Constants ------------------------------------------------------------ */
#define OHCI_REG_SPAN 0x1000              /* the operational registers fit in 4 KiB */
#define OHCI_RESET_MS 1                   /* the reset takes at most 10 us (§7.1.2) */
/* Named quirk (Linux pci-quirks.c): reading HcFmInterval locks up the whole
 * machine on ULi's M5237, so its frame interval is not kept. */
#define PCI_VENDOR_ULI 0x10b9
#define PCI_DEVICE_ULI_M5237 0x5237

/* ---- Public Functions ----------------------------------------------------- */
void ohci_handoff(struct hc_handoff *h)
{
	volatile uint8_t *r = hc_map_bar0(h, OHCI_REG_SPAN);
	if (!r)
		return;
	uint32_t control = devio_read32(r, OHCI_HCCONTROL);
	h->have_legacy = true;
	h->legacy_before = control;
	if (control & OHCI_CTL_IR) {
		/* An SMM driver owns it: ask, and wait for it to clear IR (§5.1.1.3.3). */
		devio_write32(r, OHCI_HCINTERRUPTENABLE, OHCI_INT_OC);
		devio_write32(r, OHCI_HCCOMMANDSTATUS, OHCI_CS_OCR);
		h->how = hc_wait_mmio(r, OHCI_HCCONTROL, OHCI_CTL_IR, 0, HC_BIOS_MS) ? HC_TAKEN : HC_FORCED;
	} else {
		h->how = HC_NOT_OWNED;
	}
	/* Interrupts off, UsbReset (keeping RemoteWakeupConnected), then a
	 * software reset, which leaves it in UsbSuspend: nothing wakes it. */
	devio_write32(r, OHCI_HCINTERRUPTDISABLE, OHCI_INT_ALL);
	devio_write32(r, OHCI_HCCONTROL, control & OHCI_CTL_RWC);
	(void)devio_read32(r, OHCI_HCCONTROL);   /* the write reaches the controller before the reset */
	bool keep_fm = !(h->vendor == PCI_VENDOR_ULI && h->device == PCI_DEVICE_ULI_M5237);
	uint32_t fm = keep_fm ? devio_read32(r, OHCI_HCFMINTERVAL) : 0;
	devio_write32(r, OHCI_HCCOMMANDSTATUS, OHCI_CS_HCR);
	bool done = hc_wait_mmio(r, OHCI_HCCOMMANDSTATUS, OHCI_CS_HCR, 0, OHCI_RESET_MS);
	if (keep_fm)
		devio_write32(r, OHCI_HCFMINTERVAL, fm);
	h->stop = done ? "reset" : "reset, which did not complete within 1 ms";
	h->legacy_after = devio_read32(r, OHCI_HCCONTROL);
}
