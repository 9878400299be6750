/* ehci.c - an EHCI taken from the BIOS; see ehci.h. Section numbers are EHCI 1.0's. */
#include "ehci.h"
#include "ehci_regs.h"
#include "devio.h"

/* ---- Constants ------------------------------------------------------------ */
#define EHCI_REG_SPAN 0x1000              /* capability and operational registers */
#define EHCI_HALT_MS 2                    /* halted within 16 microframes (§2.3.1) */
#define EHCI_XCAP_MAX 64                  /* a longer capability list is a loop */

/* ---- Private Functions ---------------------------------------------------- */
/* USBLEGSUP at off: ask for the controller and wait for the BIOS to let go;
 * force it after HC_BIOS_MS. Each semaphore is its own byte, written alone,
 * so that neither side's write undoes the other's (§2.1.7). True if the
 * BIOS owned it. */
static bool legacy(struct hc_handoff *h, uint32_t off, uint32_t v)
{
	bool owned = v & EHCI_USBLEGSUP_BIOS_OWNED;
	h->have_legacy = true;
	h->legacy_before = v;
	if (owned) {
		pci_write8(h->pci, off + EHCI_USBLEGSUP_OS_BYTE, 1);
		if (hc_wait_cfg(h->pci, off, EHCI_USBLEGSUP_BIOS_OWNED, 0, HC_BIOS_MS)) {
			h->how = HC_TAKEN;
		} else {
			pci_write8(h->pci, off + EHCI_USBLEGSUP_BIOS_BYTE, 0);
			h->how = HC_FORCED;
		}
	} else {
		h->how = HC_NOT_OWNED; /* the OS semaphore is left alone, as Linux leaves it */
	}
	pci_write32(h->pci, off + EHCI_USBLEGCTLSTS, 0); /* every SMI enable off, whoever owned it */
	h->legacy_after = pci_read32(h->pci, off);
	return owned;
}

/* ---- Public Functions ----------------------------------------------------- */
void ehci_handoff(struct hc_handoff *h)
{
	volatile uint8_t *cap = hc_map_bar0(h, EHCI_REG_SPAN);
	if (!cap)
		return;
	volatile uint8_t *op = cap + (devio_read32(cap, EHCI_CAPLENGTH) & EHCI_CAPLENGTH_MASK);
	uint32_t off = EHCI_HCC_EECP(devio_read32(cap, EHCI_HCCPARAMS));
	bool was_bios = false;
	h->how = HC_NO_LEGACY;
	for (unsigned n = 0; off >= EHCI_XCAP_FIRST && n < EHCI_XCAP_MAX; n++) {
		uint32_t v = pci_read32(h->pci, off & ~3u);
		if (EHCI_XCAP_ID(v) == EHCI_XCAP_LEGACY)
			was_bios |= legacy(h, off & ~3u, v);
		else if (EHCI_XCAP_ID(v) == 0)
			break;                       /* reserved: the list is not to be trusted past it */
		off = EHCI_XCAP_NEXT(v);
	}
	/* After the BIOS had it, its port sessions are not ours to keep. */
	if (was_bios)
		devio_write32(op, EHCI_CONFIGFLAG, 0);
	if (devio_read32(op, EHCI_USBSTS) & EHCI_STS_HALTED) {
		h->stop = "already halted";
	} else {
		devio_write32(op, EHCI_USBCMD, devio_read32(op, EHCI_USBCMD) & ~EHCI_CMD_RS);
		h->stop = hc_wait_mmio(op, EHCI_USBSTS, EHCI_STS_HALTED, EHCI_STS_HALTED, EHCI_HALT_MS)
			  ? "halted" : "did not halt within 2 ms";
	}
	devio_write32(op, EHCI_USBINTR, 0);
	devio_write32(op, EHCI_USBSTS, EHCI_STS_INTS);
}
