/* ehci_regs.h - the EHCI registers the BIOS handoff touches, named as in the Enhanced Host Controller Interface Specification for USB, revision 1.0 (2002): the capability registers of §2.2, the operational registers of §2.3, and the USB Legacy Support extended capability in PCI configuration space (§2.1.7, §2.1.8; the handoff of §5.1).
 *
 * Layer: usb (kernel/usb/usb.h). Definitions only. */
#ifndef QB_KERNEL_EHCI_REGS_H
#define QB_KERNEL_EHCI_REGS_H

/* ---- Capability registers (§2.2), from the memory BAR0 -------------------- */
#define EHCI_CAPLENGTH 0x00                   /* 8 bits: the operational registers' offset */
#define EHCI_CAPLENGTH_MASK 0xffu
#define EHCI_HCCPARAMS 0x08
#define EHCI_HCC_EECP(v) (((v) >> 8) & 0xffu) /* first extended capability, in config space; 0: none (§2.2.4) */

/* ---- Operational registers (§2.3) ----------------------------------------- */
#define EHCI_USBCMD 0x00
#define EHCI_CMD_RS (1u << 0)                 /* run/stop */
#define EHCI_USBSTS 0x04
#define EHCI_STS_HALTED (1u << 12)            /* HCHalted */
#define EHCI_STS_INTS 0x3fu                   /* the interrupt status bits, write 1 to clear */
#define EHCI_USBINTR 0x08
#define EHCI_CONFIGFLAG 0x40                  /* 0: every port routed to the companion controllers */

/* ---- Extended capabilities in PCI configuration space (§2.1.6-2.1.8) ------ */
#define EHCI_XCAP_ID(v) ((v) & 0xffu)
#define EHCI_XCAP_NEXT(v) (((v) >> 8) & 0xffu)
#define EHCI_XCAP_LEGACY 1                    /* USB Legacy Support */
#define EHCI_USBLEGSUP_BIOS_OWNED (1u << 16)  /* HC BIOS Owned Semaphore */
#define EHCI_USBLEGSUP_OS_OWNED (1u << 24)    /* HC OS Owned Semaphore */
#define EHCI_USBLEGSUP_BIOS_BYTE 2            /* the byte of each semaphore: written alone */
#define EHCI_USBLEGSUP_OS_BYTE 3
#define EHCI_USBLEGCTLSTS 4                   /* the next dword: SMI enables and their status */
#define EHCI_XCAP_FIRST 0x40                  /* capabilities live above the type 0 header */

#endif
