/* pci.h - PCI configuration space through the legacy I/O ports 0xCF8/0xCFC (PCI Local Bus Specification 3.0, §3.2.2.3.2: configuration mechanism #1), segment 0 only.
 *
 * Every x86 PC chipset decodes these ports; PCIe's memory-mapped (ECAM)
 * access is needed only beyond segment 0 or past offset 0xFF, which nothing
 * here uses (the walk for USB controllers covers segment 0: every chipset's
 * own controllers sit there). Prints nothing. */
#ifndef QB_KERNEL_PCI_H
#define QB_KERNEL_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define PCI_CONFIG_ENABLE (1u << 31)

/* Type 0 header registers (PCI 3.0 §6.1). */
#define PCI_VENDOR_ID 0x00        /* 16 bits; 0xffff: no function */
#define PCI_ID_VENDOR(v) ((uint16_t)(v))          /* of the dword at PCI_VENDOR_ID (or PCI_SUBSYSTEM) */
#define PCI_ID_DEVICE(v) ((uint16_t)((v) >> 16))
#define PCI_DEVICE_ID 0x02        /* 16 bits */
#define PCI_COMMAND 0x04          /* 16 bits */
#define PCI_COMMAND_IO (1u << 0)
#define PCI_COMMAND_MEMORY (1u << 1)
#define PCI_COMMAND_MASTER (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)
#define PCI_CLASS_REVISION 0x08   /* class [31:24], subclass [23:16], prog-if [15:8] */
#define PCI_CLASS_SHIFT 8         /* the 24-bit class code: class, subclass, prog-if */
#define PCI_HEADER_TYPE 0x0e      /* 8 bits */
#define PCI_HEADER_MULTI_FN 0x80  /* functions 1-7 may exist */
#define PCI_BAR0 0x10
#define PCI_BAR_COUNT 6           /* BAR0 .. BAR5, 4 bytes apart */
#define PCI_SUBSYSTEM 0x2c        /* subsystem vendor [15:0], subsystem ID [31:16] */
#define PCI_BAR_IO (1u << 0)
#define PCI_BAR_TYPE_MASK (3u << 1)
#define PCI_BAR_TYPE_64 (2u << 1)
#define PCI_BAR_MEM_MASK 0xfffffff0u
#define PCI_BAR_IO_MASK 0xfffffffcu
#define PCI_IO_PORT_MAX 0xffffu   /* x86 I/O space */

struct pci_addr {
	uint16_t segment;
	uint8_t bus, dev, fn;
};

#define PCI_NUM_BUSES 256
#define PCI_NUM_DEVS 32
#define PCI_NUM_FNS 8

/* Read or write the aligned dword at offset off (0 .. 0xfc) of a function. */
uint32_t pci_read32(struct pci_addr a, uint32_t off);
void pci_write32(struct pci_addr a, uint32_t off, uint32_t v);

/* The same for a word (off even) or a byte: only those bytes are written,
 * which matters for registers whose neighbours another agent writes (the
 * EHCI's BIOS and OS semaphores, EHCI 1.0 §5.1). */
uint16_t pci_read16(struct pci_addr a, uint32_t off);
void pci_write16(struct pci_addr a, uint32_t off, uint16_t v);
uint8_t pci_read8(struct pci_addr a, uint32_t off);
void pci_write8(struct pci_addr a, uint32_t off, uint8_t v);

/* The function's 24-bit class code (class << 16 | subclass << 8 | prog-if). */
uint32_t pci_class(struct pci_addr a);

/* The next present function on segment 0 after *a, in bus, device,
 * function order (start with *a zeroed and first true); false at the end.
 * Functions 1-7 are looked at only where function 0 says it has them. */
bool pci_next(struct pci_addr *a, bool first);

/* True if the function is reachable here (segment 0, dev < 32, fn < 8) and present. */
bool pci_present(struct pci_addr a);

/* The memory BAR at off (32- or 64-bit), or 0 if it is I/O or unset. */
uint64_t pci_bar_mem(struct pci_addr a, uint32_t off);

#endif
