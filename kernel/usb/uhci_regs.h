/* uhci_regs.h - the UHCI registers the BIOS handoff touches, named as in the Universal Host Controller Interface (UHCI) Design Guide, revision 1.1 (Intel, 1996): the I/O registers of §2.1 and the legacy support register of §5.2.1 (its bits as Intel's PIIX4 and ICH datasheets list them under LEGSUP).
 *
 * Layer: usb (kernel/usb/usb.h). Definitions only. */
#ifndef QB_KERNEL_UHCI_REGS_H
#define QB_KERNEL_UHCI_REGS_H

/* ---- PCI configuration space (§5.2) --------------------------------------- */
#define UHCI_LEGSUP 0xc0                      /* 16 bits: legacy support */
#define UHCI_LEGSUP_RWC 0x8f00u               /* A20PTS, TBY64W/R, TBY60W/R: write 1 to clear */
#define UHCI_LEGSUP_RO 0x5040u                /* USBIRQS, PSS and a reserved bit */
#define UHCI_LEGSUP_ENABLES 0x20bfu           /* USBPIRQDEN, SMIEPTE, A20PTEN, USBSMIEN, the port 60h/64h trap enables */

/* ---- I/O registers (§2.1), from the first I/O BAR (USBBASE, BAR4) --------- */
#define UHCI_USBCMD 0x00                      /* 16 bits */
#define UHCI_CMD_RS (1u << 0)                 /* run/stop */
#define UHCI_CMD_HCRESET (1u << 1)            /* host controller reset, cleared by the controller when done */
#define UHCI_CMD_EGSM (1u << 3)               /* enter global suspend mode */
#define UHCI_CMD_CF (1u << 6)                 /* configure flag: software has set the controller up */
#define UHCI_USBINTR 0x04                     /* 16 bits: interrupt enables */
#define UHCI_INTR_RESUME (1u << 1)            /* resume interrupt enable */

#endif
