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
