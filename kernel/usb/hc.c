/* hc.c - the handoffs' shared waits and mapping; see hc.h. */
#include "hc.h"
#include "cpu.h"
#include "devio.h"
#include "paging.h"
#include "timer.h"

/* ---- Constants ------------------------------------------------------------ */
const char HC_TAKEN[] = "taken from the BIOS";
const char HC_FORCED[] = "forced: the BIOS did not let go within 1 s";
const char HC_NOT_OWNED[] = "the BIOS did not own it";
const char HC_NO_LEGACY[] = "no legacy support capability: the BIOS cannot own it";
const char HC_DECODE_OFF[] = "left alone: its registers are not decoded (PCI command register)";
const char HC_NO_BAR[] = "left alone: it has no register BAR";
const char HC_NO_MAP[] = "left alone: its registers cannot be mapped";

/* ---- Public Functions ----------------------------------------------------- */
bool hc_wait_mmio(volatile void *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
	struct timer_deadline d = timer_deadline_ms(ms);
	for (;;) {
		if ((devio_read32(base, off) & mask) == want)
			return true;
		if (timer_passed(&d))
			return (devio_read32(base, off) & mask) == want;
		cpu_pause();
	}
}

bool hc_wait_cfg(struct pci_addr a, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
	struct timer_deadline d = timer_deadline_ms(ms);
	for (;;) {
		if ((pci_read32(a, off) & mask) == want)
			return true;
		if (timer_passed(&d))
			return (pci_read32(a, off) & mask) == want;
		cpu_pause();
	}
}

bool hc_wait_io16(uint16_t port, uint16_t mask, uint16_t want, uint64_t ms)
{
	struct timer_deadline d = timer_deadline_ms(ms);
	for (;;) {
		if ((devio_in16(port) & mask) == want)
			return true;
		if (timer_passed(&d))
			return (devio_in16(port) & mask) == want;
		cpu_pause();
	}
}

volatile uint8_t *hc_map_bar0(struct hc_handoff *h, uint64_t len)
{
	if (!(pci_read16(h->pci, PCI_COMMAND) & PCI_COMMAND_MEMORY)) {
		h->how = HC_DECODE_OFF;
		return 0;
	}
	uint64_t bar = pci_bar_mem(h->pci, PCI_BAR0);
	if (!bar) {
		h->how = HC_NO_BAR;
		return 0;
	}
	volatile uint8_t *p = paging_map_mmio(bar, len);
	if (!p)
		h->how = HC_NO_MAP;
	return p;
}
