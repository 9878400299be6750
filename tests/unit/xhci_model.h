/* xhci_model.h - a model xHCI controller for host tests of the real driver (kernel/usb/xhci*.c, usb.c, usb_enum.c), for what QEMU cannot show: its registers behind arch/devio.h, its rings and contexts in the test's memory (addresses are host pointers, as the kernel's identity map makes them), root ports with the Supported Protocol capabilities a test gives, and devices on them (xhci_model_dev.c: a Bulk-Only stick, a USB 2 hub with up to XM_HUB_PORTS ports).
 *
 * It does with each command and TRB what xHCI 1.2 says a controller does,
 * when the driver rings a doorbell, and misbehaves on demand: it holds a
 * bulk transfer back (no answer) and, when the driver stops the endpoint,
 * completes it late or reports it stopped; it ends a transfer with a
 * completion code that halts its endpoint; it keeps a USB 3 link in
 * SS.Inactive until a warm reset. What it saw is kept for the tests: a log of
 * one letter a step, the slot contexts of Address Device, the dequeue
 * pointers of Set TR Dequeue Pointer, the link TRBs it followed. */
#ifndef QB_TESTS_XHCI_MODEL_H
#define QB_TESTS_XHCI_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "bot.h"

#define XM_MMIO 0x10000             /* the registers: capability, operational, runtime, doorbells, extended caps */
#define XM_PORTS 8
#define XM_SLOTS 16
#define XM_DEVS 8
#define XM_HUB_PORTS 24
#define XM_DCI 32
#define XM_LOG 512
#define XM_BS 512
#define XM_BLOCKS 256
#define XM_XECP 0x3000              /* the extended capabilities' offset */

enum xm_kind { XM_NONE, XM_STICK, XM_HUB };

struct xm_dev {
	enum xm_kind kind;
	bool super;                 /* a USB 3 device (bMaxPacketSize0 is 2^9) */
	bool high;                  /* behind a hub: high speed (else full) */
	int parent;                 /* the hub it is on, -1: a root port */
	uint8_t port;               /* its port there (root or hub) */
	uint8_t nports;             /* a hub's */
	int child[XM_HUB_PORTS + 1];
	uint32_t pstat[XM_HUB_PORTS + 1]; /* a hub's ports: wPortStatus | wPortChange << 16 */
};

struct xm_ep {
	uint32_t state;             /* enum xhci_ep_state */
	uint64_t deq;               /* the TRB it works on next */
	uint32_t cycle;
	uint64_t held;              /* a transfer held back: its TRB, 0 none */
};

struct xm_slot {
	bool used;
	int dev;                    /* the device addressed in it, -1 none */
	struct xm_ep ep[XM_DCI];
	uint8_t setup[8];           /* EP0: the setup stage in progress */
	bool data_done;
};

struct xm_port {
	int dev;                    /* -1: nothing connected */
	uint8_t psiv;               /* what PORTSC's speed says once enabled */
	bool usb3;
	bool stuck;                 /* in SS.Inactive until a warm reset */
	uint32_t portsc;
};

/* The stick's Bulk-Only state and its disk. */
struct xm_stick {
	uint8_t disk[XM_BLOCKS * XM_BS];
	struct bot_cbw cbw;
	int phase;                  /* 0 wants a CBW, 1 data, 2 CSW */
	uint8_t status;
	uint32_t residue;
	uint8_t data[64 * 1024];
	uint32_t data_len;
	bool short_zero;            /* the next read's data comes one block short, its CSW saying residue 0 */
	int unit_attention;
	unsigned resets;            /* Bulk-Only Mass Storage Resets */
	unsigned halts_cleared[256];
	uint8_t ops[128];           /* SCSI operation codes, in order */
	unsigned n_ops;
};

struct xm {
	uint8_t regs[XM_MMIO] __attribute__((aligned(4096)));
	uint16_t version;
	struct xm_port port[XM_PORTS + 1];
	struct xm_dev dev[XM_DEVS];
	int n_dev;
	struct xm_slot slot[XM_SLOTS + 1];
	uint64_t cmd_deq;
	uint32_t cmd_cycle;
	uint32_t ev_enq, ev_cycle;
	int default_dev;            /* the device on the port reset last, at address 0 */
	uint32_t xecp_end;
	/* Faults, for the next bulk transfer on the endpoint named. */
	uint8_t hold_dci;           /* held back (no answer); 0: none */
	bool late;                  /* ... and completed when the endpoint is stopped (else reported stopped) */
	uint8_t fail_dci;           /* ended with fail_cc, the endpoint halted; 0: none */
	uint32_t fail_cc;
	int fail_address;           /* Address Device commands that end with a USB Transaction Error */
	/* What it saw. */
	char log[XM_LOG];           /* A address, C configure, E reset endpoint, S stop endpoint, Q set dequeue,
				     * D disable slot, L a held transfer completed late, P stopped reported,
				     * R class reset, H halt cleared, W warm reset, X a transfer on a halted ring */
	unsigned n_log;
	uint32_t addr_route[XM_SLOTS + 1], addr_speed[XM_SLOTS + 1], addr_mps0[XM_SLOTS + 1];
	uint64_t set_deq[XM_DCI];   /* the last Set TR Dequeue Pointer's, by DCI */
	uint64_t held_trb;          /* the transfer held back last */
	unsigned links_chained, links_unchained;
	unsigned port_resets;       /* PORTSC.PR writes on a connected port */
	unsigned route_errors;      /* a hub device addressed with a route string that does not name its port */
	unsigned late_writes;       /* buffer writes for a held transfer */
	unsigned stale_trbs;        /* TRBs done past a Set TR Dequeue Pointer that skipped them (must stay 0) */
	struct xm_stick stick;
};

extern struct xm xm;

/* A fresh controller of HCIVERSION version, nothing connected, no protocols. */
void xm_reset(uint16_t version);

/* A Supported Protocol capability: ports first .. first + count - 1 speak
 * USB major (2 or 3), with psic PSI dwords (0: the default speed IDs). */
void xm_protocol(uint8_t major, uint8_t first, uint8_t count, const uint32_t *psi, uint8_t psic);

/* A stick or a hub on root port `port` (its PORTSC speed psiv), or on port
 * `port` of hub `parent` (high: at high speed). The device's index. */
int xm_stick(int parent, uint8_t port, uint8_t psiv, bool super, bool high);
int xm_hub(int parent, uint8_t port, uint8_t psiv, uint8_t nports);

/* The model's side of a device: control requests, bulk data (xhci_model_dev.c).
 * Each returns the bytes moved, or -1 for a STALL. */
int xm_dev_control(int dev, const uint8_t *setup, uint8_t *buf, uint32_t len);
int xm_dev_bulk(int dev, bool in, uint8_t *buf, uint32_t len);

/* Free what the driver took (pmm_alloc), between tests. */
void xm_free_all(void);

/* One letter into the log. */
void xm_note(char c);

#endif
