/* uhci.c - a UHCI taken from the BIOS; see uhci.h. Section numbers are UHCI 1.1's. */
#include "uhci.h"
#include "devio.h"
#include "uhci_regs.h"

/* ---- Constants ------------------------------------------------------------ */
#define UHCI_RESET_MS 10                  /* HCRESET clears itself; Linux gives it 5 us */

/* ---- Private Functions ---------------------------------------------------- */
/* The first I/O BAR's port (USBBASE is BAR4 on Intel's, but not on every
 * vendor's), or 0. */
static uint16_t io_base(struct pci_addr a)
{
	for (uint32_t i = 0; i < PCI_BAR_COUNT; i++) {
		uint32_t bar = pci_read32(a, PCI_BAR0 + 4 * i);
		if ((bar & PCI_BAR_IO) && (bar & PCI_BAR_IO_MASK) && (bar & PCI_BAR_IO_MASK) <= PCI_IO_PORT_MAX)
			return (uint16_t)(bar & PCI_BAR_IO_MASK);
	}
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */
void uhci_handoff(struct hc_handoff *h)
{
	if (!(pci_read16(h->pci, PCI_COMMAND) & PCI_COMMAND_IO)) {
		h->how = HC_DECODE_OFF;
		return;
	}
	uint16_t base = io_base(h->pci);
	if (!base) {
		h->how = HC_NO_BAR;
		return;
	}
	uint16_t legsup = pci_read16(h->pci, UHCI_LEGSUP);
	uint16_t cmd = devio_in16((uint16_t)(base + UHCI_USBCMD)), intr = devio_in16((uint16_t)(base + UHCI_USBINTR));
	h->have_legacy = true;
	h->legacy_before = legsup;
	/* Any SMI or trap enable set: the BIOS has it. A controller left
	 * anywhere but stopped, configured and suspended (as an OS leaves it)
	 * is reset too, as Linux's uhci_check_and_reset_hc does. */
	bool owned = legsup & UHCI_LEGSUP_ENABLES;
	h->how = owned ? HC_TAKEN : HC_NOT_OWNED;
	if (owned || (cmd & UHCI_CMD_RS) || !(cmd & UHCI_CMD_CF) || !(cmd & UHCI_CMD_EGSM) ||
	    (intr & ~UHCI_INTR_RESUME)) {
		/* Every enable off and every sticky status cleared (§5.2.1), then a
		 * reset, which also stops the schedule (§2.1.1). */
		pci_write16(h->pci, UHCI_LEGSUP, UHCI_LEGSUP_RWC);
		devio_out16((uint16_t)(base + UHCI_USBCMD), UHCI_CMD_HCRESET);
		bool done = hc_wait_io16((uint16_t)(base + UHCI_USBCMD), UHCI_CMD_HCRESET, 0, UHCI_RESET_MS);
		devio_out16((uint16_t)(base + UHCI_USBINTR), 0);
		devio_out16((uint16_t)(base + UHCI_USBCMD), 0);
		h->stop = done ? "reset" : "reset, which did not complete within 10 ms";
	} else {
		h->stop = "already stopped and suspended";
	}
	h->legacy_after = pci_read16(h->pci, UHCI_LEGSUP);
}
