/* xhci_regs.h - the xHCI registers, TRBs and contexts this driver uses, named as in the eXtensible Host Controller Interface for USB specification, revision 1.2 (2019); each section cites it.
 *
 * Layer: usb (kernel/usb/usb.h). Data structures only. */
#ifndef QB_KERNEL_XHCI_REGS_H
#define QB_KERNEL_XHCI_REGS_H

#include <stdint.h>

/* ---- Capability registers (§5.3), offsets from BAR0 ------------------------ */
#define XHCI_CAPLENGTH 0x00                   /* 8 bits: operational registers' offset */
#define XHCI_CAPLENGTH_MASK 0xffu
#define XHCI_HCIVERSION(v) ((v) >> 16)        /* the same dword's upper half: 0x0095, 0x0096, 0x0100, ... */
#define XHCI_HCSPARAMS1 0x04
#define XHCI_HCS1_MAX_SLOTS(v) ((v) & 0xff)
#define XHCI_HCS1_MAX_PORTS(v) ((v) >> 24)
#define XHCI_HCSPARAMS2 0x08
#define XHCI_HCS2_MAX_SCRATCH(v) ((((v) >> 21) & 0x1f) << 5 | ((v) >> 27))
#define XHCI_HCCPARAMS1 0x10
#define XHCI_HCC1_AC64 (1u << 0)              /* 64-bit addresses */
#define XHCI_HCC1_CSZ (1u << 2)               /* 64-byte contexts */
#define XHCI_HCC1_XECP(v) ((v) >> 16)         /* extended capabilities, in dwords */
#define XHCI_DBOFF 0x14
#define XHCI_RTSOFF 0x18

/* ---- Operational registers (§5.4), offsets from BAR0 + CAPLENGTH ----------- */
#define XHCI_USBCMD 0x00
#define XHCI_CMD_RS (1u << 0)                 /* run/stop */
#define XHCI_CMD_HCRST (1u << 1)              /* host controller reset */
#define XHCI_CMD_INTE (1u << 2)               /* interrupter enable */
#define XHCI_CMD_HSEE (1u << 3)               /* host system error enable */
#define XHCI_CMD_EWE (1u << 10)               /* enable wrap event */
#define XHCI_CMD_IRQS (XHCI_CMD_INTE | XHCI_CMD_HSEE | XHCI_CMD_EWE)
#define XHCI_USBSTS 0x04
#define XHCI_STS_HCH (1u << 0)                /* halted */
#define XHCI_STS_HSE (1u << 2)                /* host system error */
#define XHCI_STS_CNR (1u << 11)               /* controller not ready */
#define XHCI_STS_HCE (1u << 12)               /* host controller error */
#define XHCI_PAGESIZE 0x08
#define XHCI_CRCR 0x18                        /* 64 bits */
#define XHCI_CRCR_RCS (1u << 0)               /* ring cycle state */
#define XHCI_DCBAAP 0x30                      /* 64 bits */
#define XHCI_CONFIG 0x38
#define XHCI_PORTSC(n) (0x400 + 0x10 * ((n) - 1)) /* n: 1 .. MaxPorts */
#define XHCI_CONFIG_SLOTS_MASK 0xffu          /* MaxSlotsEn */
#define XHCI_MAX_SLOTS 255

/* PORTSC (§5.4.8). The change bits and PED are write-1-to-clear: a write
 * keeps them 0 unless it means to clear one. */
#define XHCI_PORT_CCS (1u << 0)               /* a device is connected */
#define XHCI_PORT_PED (1u << 1)               /* enabled */
#define XHCI_PORT_PR (1u << 4)                /* reset */
#define XHCI_PORT_PLS(v) (((v) >> 5) & 0xf)   /* link state */
#define XHCI_PORT_PP (1u << 9)                /* power */
#define XHCI_PORT_SPEED(v) (((v) >> 10) & 0xf) /* the protocol speed ID (PSIV, §7.2.1) */
#define XHCI_PORT_CSC (1u << 17)              /* connect status change */
#define XHCI_PORT_WRC (1u << 19)              /* warm port reset change (USB 3) */
#define XHCI_PORT_CHANGES (0x7fu << 17)       /* CSC PEC WRC OCC PRC PLC CEC */
#define XHCI_PORT_PRC (1u << 21)              /* port reset change */
#define XHCI_PORT_WPR (1u << 31)              /* warm port reset (USB 3) */
/* Port link states (PLS, §5.4.8 Table 5-27). */
#define XHCI_PLS_U0 0
#define XHCI_PLS_RX_DETECT 5
#define XHCI_PLS_INACTIVE 6                   /* SS.Inactive: only a warm reset gets it out (§4.19.1.2) */
#define XHCI_PLS_POLLING 7
#define XHCI_PLS_COMPLIANCE 10                /* Compliance Mode: likewise */

/* The default protocol speed IDs (§7.2.2.1.1, Table 7-13), used where a
 * Supported Protocol capability lists no PSIs of its own. A device below a
 * hub has one of the first three. */
#define XHCI_PSIV_FULL 1                      /* 12 Mb/s */
#define XHCI_PSIV_LOW 2                       /* 1.5 Mb/s */
#define XHCI_PSIV_HIGH 3                      /* 480 Mb/s */
#define XHCI_PSIV_SS 4                        /* SuperSpeed Gen 1 x1, 5 Gb/s */
#define XHCI_PSIV_SSP_G2X1 5                  /* SuperSpeedPlus Gen 2 x1, 10 Gb/s */
#define XHCI_PSIV_SSP_G1X2 6                  /* SuperSpeedPlus Gen 1 x2, 10 Gb/s */
#define XHCI_PSIV_SSP_G2X2 7                  /* SuperSpeedPlus Gen 2 x2, 20 Gb/s */

/* What the driver does by speed: EP0's packet size, intervals, hubs' transaction
 * translators. Every SuperSpeed-family speed (Gen 1 and 2, x1 and x2) is SUPER. */
#define XHCI_SPEED_FULL 1
#define XHCI_SPEED_LOW 2
#define XHCI_SPEED_HIGH 3
#define XHCI_SPEED_SUPER 4

/* ---- Runtime registers (§5.5): interrupter 0 at RTSOFF + 0x20 -------------- */
#define XHCI_IR0 0x20
#define XHCI_IMAN 0x00
#define XHCI_ERSTSZ 0x08
#define XHCI_ERSTBA 0x10                      /* 64 bits */
#define XHCI_ERDP 0x18                        /* 64 bits */
#define XHCI_ERDP_EHB (1u << 3)               /* event handler busy, write 1 to clear */

/* ---- Extended capabilities (§7) -------------------------------------------- */
#define XHCI_XCAP_ID(v) ((v) & 0xff)
#define XHCI_XCAP_NEXT(v) (((v) >> 8) & 0xff) /* in dwords, 0: last */
#define XHCI_XCAP_LEGACY 1                    /* USB Legacy Support (§7.1) */
#define XHCI_XCAP_PROTOCOL 2                  /* xHCI Supported Protocol (§7.2) */
#define XHCI_XCAP_WALK_MAX 64                 /* capabilities followed at most: a loop in the list ends */
/* Supported Protocol capability (§7.2, Table 7-7): dword 0 its revision,
 * dword 2 the ports it covers and how many PSI dwords follow dword 3. */
#define XHCI_PROTO_MAJOR(v) ((v) >> 24)       /* 2: USB 2, 3: USB 3.x */
#define XHCI_PROTO_DW_PORTS 8                 /* byte offset of dword 2 */
#define XHCI_PROTO_PORT_OFF(v) ((v) & 0xff)   /* the first port, 1-based */
#define XHCI_PROTO_PORT_COUNT(v) (((v) >> 8) & 0xff)
#define XHCI_PROTO_PSIC(v) ((v) >> 28)        /* protocol speed ID count */
#define XHCI_PROTO_DW_PSI 16                  /* byte offset of the first PSI dword */
/* A protocol speed ID dword (§7.2.1, Table 7-9). */
#define XHCI_PSI_PSIV(v) ((v) & 0xf)
#define XHCI_PSI_PSIE(v) (((v) >> 4) & 0x3)   /* the mantissa's unit: 0 b/s, 1 Kb/s, 2 Mb/s, 3 Gb/s */
#define XHCI_PSI_PLT(v) (((v) >> 6) & 0x3)    /* 0 symmetric, 2 asymmetric Rx, 3 asymmetric Tx */
#define XHCI_PSI_LP(v) (((v) >> 14) & 0x3)    /* link protocol: 0 SuperSpeed, 1 SuperSpeedPlus */
#define XHCI_PSI_PSIM(v) ((v) >> 16)          /* the mantissa */
#define XHCI_PSI_PLT_TX 3                     /* the Tx half of an asymmetric pair: its Rx entry names the speed */
#define XHCI_LEGSUP_BIOS_OWNED (1u << 16)
#define XHCI_LEGSUP_OS_OWNED (1u << 24)
#define XHCI_LEGCTLSTS 4                      /* USBLEGCTLSTS, the next dword */
/* Its SMI enables (bits 0, 4, 13-15) cleared, its W1C status bits 29-31
 * cleared by writing 1: as Linux's xhci handoff (drivers/usb/host/pci-quirks.c). */
#define XHCI_LEGCTL_DISABLE_SMI ((0x7u << 1) | (0xffu << 5) | (0x7u << 17))
#define XHCI_LEGCTL_SMI_EVENTS (0x7u << 29)

/* ---- Intel PCH xHCI configuration registers (Intel 7 Series / C216 Chipset
 * Family PCH datasheet, xHCI configuration registers; Linux
 * usb_enable_intel_xhci_ports): which of the ports an EHCI and this xHCI
 * share are the xHCI's. Each bit is a port; the mask registers say which
 * ones the OS may switch. ------------------------------------------------- */
#define XHCI_INTEL_XUSB2PR 0xd0               /* USB 2.0 port routing: 1, the xHCI */
#define XHCI_INTEL_XUSB2PRM 0xd4              /* its mask: the ports the OS may route */
#define XHCI_INTEL_USB3_PSSEN 0xd8            /* USB 3.0 SuperSpeed terminations enabled */
#define XHCI_INTEL_USB3PRM 0xdc               /* its mask */

/* ---- Doorbells (§5.6) ------------------------------------------------------- */
#define XHCI_DB_HOST 0                        /* doorbell 0, target 0: the command ring */

/* ---- TRBs (§4.11, §6.4) ----------------------------------------------------- */
struct xhci_trb {
	uint64_t param;
	uint32_t status;
	uint32_t control;
} __attribute__((packed));
_Static_assert(sizeof(struct xhci_trb) == 16, "xHCI §6.4: a TRB is 16 bytes");

#define XHCI_TRB_CYCLE (1u << 0)
#define XHCI_TRB_TC (1u << 1)                 /* link TRB: toggle cycle */
#define XHCI_TRB_ISP (1u << 2)                /* interrupt on short packet */
#define XHCI_TRB_CHAIN (1u << 4)              /* the TD goes on in the next TRB (§4.11.7); in a link TRB: across the link (§4.11.5.1) */
#define XHCI_TRB_IOC (1u << 5)                /* interrupt (an event) on completion */
#define XHCI_TRB_IDT (1u << 6)                /* immediate data */
#define XHCI_TRB_TYPE(t) ((uint32_t)(t) << 10)
#define XHCI_TRB_GET_TYPE(c) (((c) >> 10) & 0x3f)
#define XHCI_TRB_DIR_IN (1u << 16)            /* data and status stage direction */
#define XHCI_TRB_TRT(t) ((uint32_t)(t) << 16) /* setup stage: transfer type */
#define XHCI_TRT_NO_DATA 0
#define XHCI_TRT_OUT 2
#define XHCI_TRT_IN 3
#define XHCI_TRB_SLOT(s) ((uint32_t)(s) << 24)
#define XHCI_TRB_GET_SLOT(c) ((c) >> 24)
#define XHCI_TRB_EP(e) ((uint32_t)(e) << 16)
#define XHCI_TRB_GET_EP(c) (((c) >> 16) & 0x1f)
#define XHCI_TRB_BSR (1u << 9)                /* address device: block set address */
#define XHCI_TRB_TSP (1u << 9)                /* reset endpoint: transfer state preserve (0: the toggle is reset too) */
#define XHCI_TRB_DCS 1u                       /* set TR dequeue pointer: the dequeue cycle state, in the pointer's bit 0 */
#define XHCI_EVT_CODE(s) ((s) >> 24)
#define XHCI_EVT_LEN(s) ((s) & 0xffffff)      /* transfer event: bytes not transferred */

enum xhci_trb_type {
	XHCI_TRB_NORMAL = 1,
	XHCI_TRB_SETUP = 2,
	XHCI_TRB_DATA = 3,
	XHCI_TRB_STATUS = 4,
	XHCI_TRB_LINK = 6,
	XHCI_TRB_ENABLE_SLOT = 9,
	XHCI_TRB_DISABLE_SLOT = 10,
	XHCI_TRB_ADDRESS_DEVICE = 11,
	XHCI_TRB_CONFIGURE_EP = 12,
	XHCI_TRB_EVALUATE_CTX = 13,
	XHCI_TRB_RESET_EP = 14,
	XHCI_TRB_STOP_EP = 15,
	XHCI_TRB_SET_TR_DEQUEUE = 16,
	XHCI_TRB_NOOP_CMD = 23,
	XHCI_TRB_TRANSFER_EVENT = 32,
	XHCI_TRB_COMMAND_COMPLETION = 33,
	XHCI_TRB_PORT_STATUS_CHANGE = 34,
};

/* Completion codes (§6.4.5). */
enum xhci_code {
	XHCI_CC_SUCCESS = 1,
	XHCI_CC_DATA_BUFFER = 2,
	XHCI_CC_BABBLE = 3,
	XHCI_CC_TRANSACTION = 4,
	XHCI_CC_TRB = 5,
	XHCI_CC_STALL = 6,
	XHCI_CC_SHORT_PACKET = 13,
	XHCI_CC_CONTEXT_STATE = 19,
	XHCI_CC_STOPPED = 26,
	XHCI_CC_STOPPED_LENGTH_INVALID = 27,
	XHCI_CC_SPLIT_TRANSACTION = 36,
};
/* Not a code the controller writes: the driver's own for a transfer that got
 * no answer in time (abandoned, the endpoint stopped and moved past it). */
#define XHCI_CC_TIMEOUT 0

/* Event ring segment table entry (§6.5). */
struct xhci_erst_entry {
	uint64_t base;
	uint32_t size;                        /* TRBs in the segment */
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct xhci_erst_entry) == 16, "xHCI §6.5: an ERST entry is 16 bytes");

/* ---- Contexts (§6.2): the first 32 bytes; with CSZ each is 64 --------------- */
struct xhci_slot_ctx {
	uint32_t info;                        /* route string [19:0], speed [23:20], hub [26], context entries [31:27] */
	uint32_t info2;                       /* root hub port [23:16], number of ports [31:24] */
	uint32_t tt;                          /* TT hub slot [7:0], TT port [15:8] */
	uint32_t state;                       /* device address [7:0], slot state [31:27] */
	uint32_t reserved[4];
} __attribute__((packed));
_Static_assert(sizeof(struct xhci_slot_ctx) == 32, "xHCI §6.2.2: a slot context is 32 bytes");

#define XHCI_SLOT_ROUTE(r) ((uint32_t)(r) & 0xfffff)
#define XHCI_SLOT_SPEED(s) ((uint32_t)(s) << 20)
#define XHCI_SLOT_HUB (1u << 26)
#define XHCI_SLOT_ENTRIES(n) ((uint32_t)(n) << 27)
#define XHCI_SLOT_ENTRIES_OF(info) ((info) >> 27)
#define XHCI_ROUTE_PORT_MAX 15                /* a tier's nibble: a hub port above 15 is written as 15 (USB 3.2 §8.9; Linux usb_alloc_dev) */
#define XHCI_ROUTE_TIERS 5
#define XHCI_SLOT_ROOT_PORT(p) ((uint32_t)(p) << 16)
#define XHCI_SLOT_NPORTS(n) ((uint32_t)(n) << 24)
#define XHCI_SLOT_TT_HUB(s) ((uint32_t)(s))
#define XHCI_SLOT_TT_PORT(p) ((uint32_t)(p) << 8)

struct xhci_ep_ctx {
	uint32_t info;                        /* state [2:0], interval [23:16] */
	uint32_t info2;                       /* CErr [2:1], type [5:3], max burst [15:8], max packet [31:16] */
	uint64_t deq;                         /* TR dequeue pointer | DCS */
	uint32_t tx_info;                     /* average TRB length [15:0] */
	uint32_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct xhci_ep_ctx) == 32, "xHCI §6.2.3: an endpoint context is 32 bytes");

#define XHCI_EP_CERR(n) ((uint32_t)(n) << 1)
#define XHCI_EP_TYPE(t) ((uint32_t)(t) << 3)
#define XHCI_EP_MPS(m) ((uint32_t)(m) << 16)
#define XHCI_EP_BURST(b) ((uint32_t)(b) << 8)
#define XHCI_EP_DCS 1u
#define XHCI_EP_INTERVAL(i) ((uint32_t)(i) << 16) /* 2^i x 125 us */
#define XHCI_EP_STATE(info) ((info) & 0x7)    /* in the output context, the controller's (§6.2.3, Table 6-8) */
#define XHCI_EP_MPS_OF(info2) ((info2) >> 16)
enum xhci_ep_state { XHCI_EPS_DISABLED = 0, XHCI_EPS_RUNNING = 1, XHCI_EPS_HALTED = 2, XHCI_EPS_STOPPED = 3,
		     XHCI_EPS_ERROR = 4 };
enum xhci_ep_type { XHCI_EP_BULK_OUT = 2, XHCI_EP_CONTROL = 4, XHCI_EP_BULK_IN = 6, XHCI_EP_INTR_IN = 7 };

struct xhci_input_ctrl {
	uint32_t drop;                        /* D2 .. D31 */
	uint32_t add;                         /* A0 (slot), A1 (EP0) .. A31 */
	uint32_t reserved[6];
} __attribute__((packed));
_Static_assert(sizeof(struct xhci_input_ctrl) == 32, "xHCI §6.2.5.1: the input control context is 32 bytes");

#define XHCI_MAX_DCI 31                       /* device context index: 2 * endpoint + (IN ? 1 : 0) */

#endif
