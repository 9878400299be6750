/* xhci.h - a small polled xHCI host-controller driver (xHCI 1.2): take the controller from the BIOS, reset it, and move data to a device's control, bulk and interrupt endpoints. No interrupts, no periodic schedule beyond one interrupt IN; every wait is bounded in TSC time.
 *
 * Layer: usb (kernel/usb/usb.h). Used on the BSP only, between workloads.
 * The driver is five units, by role:
 *   xhci.c       the controller: started, stopped, halted when it stops answering; its memory and registers
 *   xhci_cmd.c   the command ring, and the event ring: every event is read and matched in one place
 *   xhci_port.c  root ports: speeds from the Supported Protocol capability, reset, warm reset
 *   xhci_dev.c   device slots and their contexts; endpoints recovered after a halt or a timeout
 *   xhci_xfer.c  control, bulk and interrupt transfers, each bounded
 * The bounds are Linux's: 5 s for a command (XHCI_CMD_DEFAULT_TIMEOUT) and a
 * control transfer (USB_CTRL_GET_TIMEOUT), 30 s for a bulk stage (sd.c's
 * SD_TIMEOUT, which usb-storage's transfers get). When a transfer call
 * returns, the controller no longer owns its buffer: a transfer that timed
 * out was stopped and stepped over first, or the controller was halted. */
#ifndef QB_KERNEL_XHCI_H
#define QB_KERNEL_XHCI_H

#include <stdbool.h>
#include <stdint.h>
#include "pci.h"
#include "xhci_ring.h"

#define XHCI_WHY_LEN 128
#define XHCI_CMD_MS 5000              /* a command (Linux XHCI_CMD_DEFAULT_TIMEOUT) */
#define XHCI_CTRL_MS 5000             /* a control transfer (Linux USB_CTRL_GET_TIMEOUT, USB_CTRL_SET_TIMEOUT) */
#define XHCI_BULK_MS 30000            /* a bulk stage (Linux drivers/scsi/sd.c SD_TIMEOUT) */
#define XHCI_BULK_FLOOR_MS 5000       /* ... and never less, however little of the run's budget is left */
#define XHCI_TD_TRBS 3                /* TRBs of one transfer at most: a control transfer's setup, data, status */
#define XHCI_PROTOS 8                 /* Supported Protocol capabilities kept */

/* One endpoint: its transfer ring, and the transfer in flight on it, which
 * the event reader (xhci_cmd.c) matches events against. An event for any
 * other TRB of the ring (a transfer given up on that completed late, or was
 * stopped) is dropped. */
struct xhci_ep {
	struct xhci_ring ring;
	uint8_t dci;                  /* device context index: 1 EP0, 2 x number (+1 IN); 0: not configured */
	uint8_t addr;                 /* its USB endpoint address (bit 7: IN), for the device's CLEAR_FEATURE */
	uint64_t td[XHCI_TD_TRBS];    /* the transfer in flight: its TRBs' addresses, n_td of them; 0: none */
	uint32_t n_td;
	bool done;                    /* the event that ends it came: cc and left are its */
	uint32_t cc;                  /* its completion code (enum xhci_code) */
	uint32_t left;                /* bytes of the TRB it names that did not move */
	uint64_t short_trb;           /* a short packet before the end (a control data stage): its TRB, 0 none */
	uint32_t short_left;
};

/* A device on the bus: a hub on the way, the stick, or a keyboard. */
struct xhci_dev {
	uint8_t slot;                 /* xHCI slot ID, 0: none yet */
	uint8_t speed;                /* XHCI_SPEED_*: what it is treated as */
	uint8_t psiv;                 /* its protocol speed ID, for the slot context: the root port's, or XHCI_PSIV_* below a hub */
	uint32_t kbps;                /* its signalling rate, kb/s (the PSI's, or the default IDs'); 0: not known */
	uint8_t root_port;            /* 1-based */
	uint8_t tt_slot, tt_port;     /* the high-speed hub whose transaction translator a full/low-speed device uses */
	uint32_t route;               /* route string: hub ports below the root, 4 bits a tier */
	uint16_t mps0;                /* EP0's max packet size */
	uint8_t *in_ctx, *dev_ctx;    /* input and output device contexts */
	struct xhci_ep ep0;
	struct xhci_ep out, in;       /* bulk OUT and IN, or a keyboard's interrupt IN in `in` */
};

/* One Supported Protocol capability (xHCI 7.2): which root ports speak what. */
struct xhci_proto {
	uint8_t major;                /* 2: USB 2, 3: USB 3.x */
	uint8_t first, count;         /* its ports: first .. first + count - 1 */
	uint8_t psic;                 /* PSI dwords at psi_off (0: the default speed IDs) */
	uint32_t psi_off;             /* from the capability registers' base */
};

struct xhci {
	struct pci_addr pci;
	volatile uint8_t *cap, *op, *rt, *db;
	uint32_t max_slots, max_ports;
	uint32_t ctx;                 /* context size: 32 or 64 bytes */
	uint16_t version;             /* HCIVERSION */
	bool ac64;
	bool chain_links;             /* an xHCI 0.95: every link TRB chained (Linux XHCI_LINK_TRB_QUIRK) */
	uint64_t *dcbaa;
	struct xhci_dev *devs[XHCI_MAX_SLOTS + 1]; /* by slot ID, for the event reader */
	struct xhci_proto proto[XHCI_PROTOS];
	uint32_t n_proto;
	struct xhci_ring cmd;
	struct xhci_evring ev;
	uint64_t cmd_trb;             /* the command in flight (its TRB's address), 0: none */
	bool cmd_done;
	struct xhci_trb cmd_ev;       /* its completion, once cmd_done */
	uint32_t dropped;             /* transfer and command events nothing waited for */
	uint64_t bulk_deadline;       /* TSC: no bulk stage waits past it (the run's budget), beyond XHCI_BULK_FLOOR_MS; 0: none */
	const char *handoff;          /* how the controller was taken from the BIOS (the state record says it) */
	bool dead;                    /* halted after it stopped answering: nothing more is sent */
	char why[XHCI_WHY_LEN];       /* what went wrong, after a false return */
};

/* Take the controller at a from the firmware (USB Legacy Support handoff,
 * SMIs off), reset it and start it with a command ring and an event ring.
 * False with x->why if anything does not answer in time. */
bool xhci_start(struct xhci *x, struct pci_addr a);

/* Halt the controller and reset it (before the machine is handed back:
 * finish=reboot|poweroff). False with x->why if it does not. */
bool xhci_stop(struct xhci *x);

/* dump=usb: a usb_trace record for every TRB written and event read. */
void xhci_set_trace(bool on);

/* Zeroed memory the controller can reach (below 4 GiB unless it has 64-bit
 * addressing), page-aligned; NULL when there is none. Never freed. */
void *xhci_dma(struct xhci *x, uint64_t bytes);

/* ---- For the driver's own units --------------------------------------------- */

/* Set x->why; false. */
bool xhci_fail(struct xhci *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The controller stopped answering: halt it so that it touches no memory
 * again, mark it dead, and set x->why; false. */
bool xhci_die(struct xhci *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A 64-bit register as two dword writes, low first (xHCI 5.1). */
void xhci_wr64(volatile uint8_t *base, uint32_t off, uint64_t v);

/* Write a TRB to a ring (with a usb_trace record, dir "cmd" or "xfer"); its address. */
uint64_t xhci_push(struct xhci_ring *r, const char *dir, uint64_t param, uint32_t status, uint32_t control);

/* A usb_trace record of one TRB. */
void xhci_trace_trb(const char *dir, uint64_t at, const struct xhci_trb *t);

/* The controller's address of p (RAM is identity-mapped). */
static inline uint64_t xhci_phys(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* A fresh transfer ring for ep. */
bool xhci_ep_ring(struct xhci *x, struct xhci_ep *ep);

#endif
