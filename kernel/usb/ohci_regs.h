/* ohci_regs.h - the OHCI registers the BIOS handoff touches, named as in the Open Host Controller Interface Specification for USB, release 1.0a (1999): the operational registers of §7.1 and the ownership change of §5.1.1.3.
 *
 * Layer: usb (kernel/usb/usb.h). Definitions only. */
#ifndef QB_KERNEL_OHCI_REGS_H
#define QB_KERNEL_OHCI_REGS_H

/* ---- Operational registers (§7.1), from the memory BAR0 ------------------- */
#define OHCI_HCCONTROL 0x04
#define OHCI_CTL_HCFS (3u << 6)               /* host controller functional state; 0: UsbReset */
#define OHCI_CTL_IR (1u << 8)                 /* interrupt routing: set, interrupts go to SMM (the BIOS owns it) */
#define OHCI_CTL_RWC (1u << 9)                /* remote wakeup connected: kept across the reset */
#define OHCI_HCCOMMANDSTATUS 0x08
#define OHCI_CS_HCR (1u << 0)                 /* host controller reset, cleared when done (at most 10 us) */
#define OHCI_CS_OCR (1u << 3)                 /* ownership change request (§5.1.1.3.3) */
#define OHCI_HCINTERRUPTENABLE 0x10
#define OHCI_HCINTERRUPTDISABLE 0x14
#define OHCI_INT_ALL 0xffffffffu              /* every enable, MasterInterruptEnable (bit 31) included */
#define OHCI_INT_OC (1u << 30)                /* ownership change */
#define OHCI_HCFMINTERVAL 0x34                /* kept across the reset (it holds the board's frame timing) */

#endif
