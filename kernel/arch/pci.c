/* pci.c - configuration mechanism #1; see pci.h. */
#include "pci.h"
#include "cpu.h"

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t address(struct pci_addr a, uint32_t off)
{
	return PCI_CONFIG_ENABLE | (uint32_t)a.bus << 16 | (uint32_t)(a.dev & 31) << 11 | (uint32_t)(a.fn & 7) << 8 |
	       (off & 0xfc);
}

/* ---- Public Functions ----------------------------------------------------- */
uint32_t pci_read32(struct pci_addr a, uint32_t off)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	return inl(PCI_CONFIG_DATA);
}

void pci_write32(struct pci_addr a, uint32_t off, uint32_t v)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	outl(PCI_CONFIG_DATA, v);
}

uint16_t pci_read16(struct pci_addr a, uint32_t off)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	return inw((uint16_t)(PCI_CONFIG_DATA + (off & 2)));
}

void pci_write16(struct pci_addr a, uint32_t off, uint16_t v)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	outw((uint16_t)(PCI_CONFIG_DATA + (off & 2)), v);
}

uint8_t pci_read8(struct pci_addr a, uint32_t off)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	return inb((uint16_t)(PCI_CONFIG_DATA + (off & 3)));
}

void pci_write8(struct pci_addr a, uint32_t off, uint8_t v)
{
	outl(PCI_CONFIG_ADDRESS, address(a, off));
	outb((uint16_t)(PCI_CONFIG_DATA + (off & 3)), v);
}

uint32_t pci_class(struct pci_addr a)
{
	return pci_read32(a, PCI_CLASS_REVISION) >> PCI_CLASS_SHIFT;
}

bool pci_next(struct pci_addr *a, bool first)
{
	uint32_t bus = a->bus, dev = a->dev, fn = a->fn;
	if (a->segment)
		return false;
	if (first) {
		bus = dev = fn = 0;
	} else {
		/* Past function 0 of a single-function device: its next device. */
		struct pci_addr f0 = { 0, a->bus, a->dev, 0 };
		if (++fn >= PCI_NUM_FNS || !(pci_read8(f0, PCI_HEADER_TYPE) & PCI_HEADER_MULTI_FN))
			fn = 0, dev++;
	}
	for (; bus < PCI_NUM_BUSES; bus++, dev = 0) {
		for (; dev < PCI_NUM_DEVS; dev++, fn = 0) {
			struct pci_addr f0 = { 0, (uint8_t)bus, (uint8_t)dev, 0 };
			if (!pci_present(f0))
				continue;
			bool multi = pci_read8(f0, PCI_HEADER_TYPE) & PCI_HEADER_MULTI_FN;
			for (; fn < (multi ? PCI_NUM_FNS : 1u); fn++) {
				struct pci_addr f = { 0, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
				if (pci_present(f)) {
					*a = f;
					return true;
				}
			}
		}
	}
	return false;
}

bool pci_present(struct pci_addr a)
{
	if (a.segment || a.dev > 31 || a.fn > 7)
		return false;
	return (pci_read32(a, PCI_VENDOR_ID) & 0xffff) != 0xffff;
}

uint64_t pci_bar_mem(struct pci_addr a, uint32_t off)
{
	uint32_t lo = pci_read32(a, off);
	if (lo & PCI_BAR_IO)
		return 0;
	uint64_t bar = lo & PCI_BAR_MEM_MASK;
	if ((lo & PCI_BAR_TYPE_MASK) == PCI_BAR_TYPE_64)
		bar |= (uint64_t)pci_read32(a, off + 4) << 32;
	return bar;
}
