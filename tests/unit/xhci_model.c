/* xhci_model.c - the model xHCI controller of xhci_model.h, behind arch/devio.h, and the rest of what the driver calls (PCI, paging, memory, the TSC, records). Section numbers are xHCI 1.2's. */
#include <stdlib.h>
#include <string.h>

#include "xhci_model.h"
#include "console.h"
#include "devio.h"
#include "paging.h"
#include "pci.h"
#include "pci_class.h"
#include "pmm.h"
#include "tsc.h"
#include "usb_handoff.h"
#include "xhci_handoff.h"
#include "xhci_regs.h"

struct xm xm;

/* ---- Layout ------------------------------------------------------------------ */
#define CAPLEN 0x20
#define RTS 0x1000
#define DB 0x2000
#define OP(r) (CAPLEN + (r))
#define PORTSC_AT(n) (uint32_t)OP(XHCI_PORTSC(n))
#define CTX 32                      /* 32-byte contexts (HCCPARAMS1.CSZ 0) */
#define SLOT_STATE_ADDRESSED (2u << 27)
#define W1C (XHCI_PORT_CHANGES | XHCI_PORT_PED)
#define PORT_PRC XHCI_PORT_PRC
#define PORT_WRC XHCI_PORT_WRC

/* ---- Registers ------------------------------------------------------------------ */
static uint32_t get(uint32_t off)
{
	uint32_t v;
	memcpy(&v, xm.regs + off, 4);
	return v;
}

static void put(uint32_t off, uint32_t v)
{
	memcpy(xm.regs + off, &v, 4);
}

static uint64_t get64(uint32_t off)
{
	return (uint64_t)get(off) | (uint64_t)get(off + 4) << 32;
}

void xm_note(char c)
{
	if (xm.n_log + 1 < XM_LOG)
		xm.log[xm.n_log++] = c;
}

/* ---- Events (§4.9.4) --------------------------------------------------------------- */
static void post(uint64_t param, uint32_t status, uint32_t control)
{
	const struct xhci_erst_entry *e = (const struct xhci_erst_entry *)(uintptr_t)get64(RTS + XHCI_IR0 + XHCI_ERSTBA);
	struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)(e->base + 16ull * xm.ev_enq);
	t->param = param;
	t->status = status;
	t->control = control | xm.ev_cycle;
	if (++xm.ev_enq == e->size) {
		xm.ev_enq = 0;
		xm.ev_cycle ^= 1;
	}
}

static void transfer_event(uint32_t slot, uint32_t dci, uint64_t trb, uint32_t cc, uint32_t left)
{
	post(trb, cc << 24 | left, XHCI_TRB_TYPE(XHCI_TRB_TRANSFER_EVENT) | XHCI_TRB_SLOT(slot) | XHCI_TRB_EP(dci));
}

/* ---- Contexts ---------------------------------------------------------------------- */
static uint8_t *out_ctx(uint32_t slot)
{
	const uint64_t *dcbaa = (const uint64_t *)(uintptr_t)get64(OP(XHCI_DCBAAP));
	return (uint8_t *)(uintptr_t)dcbaa[slot];
}

static void set_state(uint32_t slot, uint32_t dci, uint32_t state)
{
	xm.slot[slot].ep[dci].state = state;
	struct xhci_ep_ctx *e = (struct xhci_ep_ctx *)(out_ctx(slot) + CTX * dci);
	e->info = (e->info & ~7u) | state;
}

static void ep_from(uint32_t slot, uint32_t dci, const struct xhci_ep_ctx *in)
{
	struct xm_ep *ep = &xm.slot[slot].ep[dci];
	memcpy(out_ctx(slot) + CTX * dci, in, CTX);
	ep->deq = in->deq & ~0xfull;
	ep->cycle = in->deq & 1;
	ep->held = 0;
	set_state(slot, dci, XHCI_EPS_RUNNING);
}

/* ---- Transfers (§4.11) ------------------------------------------------------------------ */
static void halt(uint32_t slot, uint32_t dci, uint64_t trb, uint32_t cc, uint32_t left)
{
	transfer_event(slot, dci, trb, cc, left);
	set_state(slot, dci, XHCI_EPS_HALTED);
}

/* One bulk TRB: the device moves data; an event if asked for. */
static void bulk_trb(uint32_t slot, uint32_t dci, struct xhci_trb *t, bool late)
{
	uint32_t len = t->status & 0x1ffff;
	uint8_t *buf = (uint8_t *)(uintptr_t)t->param;
	int n = xm_dev_bulk(xm.slot[slot].dev, dci & 1, buf, len);
	if (late && (dci & 1))
		xm.late_writes++;
	if (n < 0) {
		halt(slot, dci, (uint64_t)(uintptr_t)t, XHCI_CC_STALL, len);
		return;
	}
	uint32_t left = len - (uint32_t)n;
	if (left && (t->control & XHCI_TRB_ISP))
		transfer_event(slot, dci, (uint64_t)(uintptr_t)t, XHCI_CC_SHORT_PACKET, left);
	else if (t->control & XHCI_TRB_IOC)
		transfer_event(slot, dci, (uint64_t)(uintptr_t)t, XHCI_CC_SUCCESS, 0);
}

/* One EP0 TRB: setup, data or status stage (§4.11.2.2). */
static bool control_trb(uint32_t slot, struct xhci_trb *t)
{
	struct xm_slot *s = &xm.slot[slot];
	uint32_t type = XHCI_TRB_GET_TYPE(t->control), len = t->status & 0x1ffff;
	uint64_t at = (uint64_t)(uintptr_t)t;
	if (type == XHCI_TRB_SETUP) {
		memcpy(s->setup, &t->param, 8);
		s->data_done = false;
		return true;
	}
	if (type == XHCI_TRB_DATA) {
		int n = xm_dev_control(s->dev, s->setup, (uint8_t *)(uintptr_t)t->param, len);
		s->data_done = true;
		if (n < 0) {
			halt(slot, 1, at, XHCI_CC_STALL, len);
			return false;
		}
		if ((uint32_t)n < len && (t->control & XHCI_TRB_ISP))
			transfer_event(slot, 1, at, XHCI_CC_SHORT_PACKET, len - (uint32_t)n);
		return true;
	}
	if (!s->data_done && xm_dev_control(s->dev, s->setup, 0, 0) < 0) {
		halt(slot, 1, at, XHCI_CC_STALL, 0);
		return false;
	}
	if (t->control & XHCI_TRB_IOC)
		transfer_event(slot, 1, at, XHCI_CC_SUCCESS, 0);
	return true;
}

/* The doorbell of an endpoint: work through its ring (§4.9.2). */
static void run_ep(uint32_t slot, uint32_t dci)
{
	struct xm_ep *ep = &xm.slot[slot].ep[dci];
	if (ep->state == XHCI_EPS_HALTED || ep->state == XHCI_EPS_DISABLED) {
		xm_note('X');
		return;
	}
	if (ep->held)
		return; /* still busy with the transfer it holds */
	set_state(slot, dci, XHCI_EPS_RUNNING);
	for (;;) {
		struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)ep->deq;
		if ((t->control & XHCI_TRB_CYCLE) != ep->cycle)
			return;
		if (XHCI_TRB_GET_TYPE(t->control) == XHCI_TRB_LINK) {
			if (t->control & XHCI_TRB_CHAIN)
				xm.links_chained++;
			else
				xm.links_unchained++;
			if (t->control & XHCI_TRB_TC)
				ep->cycle ^= 1;
			ep->deq = t->param & ~0xfull;
			continue;
		}
		if (t->param == 0xdeadull)
			xm.stale_trbs++;
		if (dci == 1) {
			if (!control_trb(slot, t))
				return; /* halted on it */
		} else if (xm.fail_dci == dci) {
			xm.fail_dci = 0;
			halt(slot, dci, ep->deq, xm.fail_cc, t->status & 0x1ffff);
			return;
		} else if (xm.hold_dci == dci && (t->status & 0x1ffff) > sizeof(struct bot_csw)) {
			xm.hold_dci = 0; /* a data stage: held, no answer */
			ep->held = xm.held_trb = ep->deq;
			return;
		} else {
			bulk_trb(slot, dci, t, false);
			if (ep->state == XHCI_EPS_HALTED)
				return;
		}
		ep->deq += 16;
	}
}

/* ---- Commands (§4.6) --------------------------------------------------------------------- */
static int device_at(const struct xhci_slot_ctx *s)
{
	uint32_t route = XHCI_SLOT_ROUTE(s->info), port = (s->info2 >> 16) & 0xff;
	if (!route)
		return port <= XM_PORTS ? xm.port[port].dev : -1;
	int d = xm.default_dev; /* USB 2 below a hub: the device just reset answers at address 0 */
	if (d >= 0) {
		uint32_t tier = 0, r = route;
		while (r > 0xf) {
			r >>= 4;
			tier++;
		}
		uint32_t want = xm.dev[d].port < 15 ? xm.dev[d].port : 15;
		if (((route >> (4 * tier)) & 0xf) != want)
			xm.route_errors++;
	}
	return d;
}

static uint32_t address_device(uint32_t slot, const uint8_t *in)
{
	const struct xhci_slot_ctx *s = (const struct xhci_slot_ctx *)(in + CTX);
	const struct xhci_ep_ctx *e0 = (const struct xhci_ep_ctx *)(in + 2 * CTX);
	int d = device_at(s);
	if (d < 0 || xm.fail_address-- > 0)
		return XHCI_CC_TRANSACTION;
	xm.slot[slot].dev = d;
	xm.default_dev = -1;
	xm.addr_route[slot] = XHCI_SLOT_ROUTE(s->info);
	xm.addr_speed[slot] = (s->info >> 20) & 0xf;
	xm.addr_mps0[slot] = XHCI_EP_MPS_OF(e0->info2);
	memcpy(out_ctx(slot), s, CTX);
	((struct xhci_slot_ctx *)out_ctx(slot))->state = SLOT_STATE_ADDRESSED | slot;
	ep_from(slot, 1, e0);
	xm_note('A');
	return XHCI_CC_SUCCESS;
}

static uint32_t configure(uint32_t slot, const uint8_t *in)
{
	const struct xhci_input_ctrl *c = (const struct xhci_input_ctrl *)in;
	if (c->add & 1)
		memcpy(out_ctx(slot), in + CTX, 12); /* the slot context, its state kept */
	for (uint32_t dci = 2; dci < XM_DCI; dci++) {
		if (c->drop & (1u << dci))
			set_state(slot, dci, XHCI_EPS_DISABLED);
		if (c->add & (1u << dci))
			ep_from(slot, dci, (const struct xhci_ep_ctx *)(in + CTX * (1 + dci)));
	}
	xm_note('C');
	return XHCI_CC_SUCCESS;
}

/* Stop Endpoint with a transfer held: completed late, or reported stopped (§4.6.9). */
static void stop_held(uint32_t slot, uint32_t dci)
{
	struct xm_ep *ep = &xm.slot[slot].ep[dci];
	struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)ep->held;
	if (xm.late) {
		bulk_trb(slot, dci, t, true);
		ep->deq = ep->held + 16;
		xm_note('L');
	} else {
		transfer_event(slot, dci, ep->held, XHCI_CC_STOPPED, t->status & 0x1ffff);
		xm_note('P');
	}
	ep->held = 0;
}

static uint32_t command(const struct xhci_trb *t, uint32_t *slot_out)
{
	uint32_t type = XHCI_TRB_GET_TYPE(t->control), slot = XHCI_TRB_GET_SLOT(t->control);
	uint32_t dci = XHCI_TRB_GET_EP(t->control);
	struct xm_ep *ep = slot <= XM_SLOTS ? &xm.slot[slot].ep[dci] : 0;
	*slot_out = slot;
	switch (type) {
	case XHCI_TRB_NOOP_CMD:
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_ENABLE_SLOT:
		for (uint32_t i = 1; i <= XM_SLOTS; i++)
			if (!xm.slot[i].used) {
				memset(&xm.slot[i], 0, sizeof(xm.slot[i]));
				xm.slot[i].used = true;
				xm.slot[i].dev = -1;
				*slot_out = i;
				return XHCI_CC_SUCCESS;
			}
		return 9; /* No Slots Available */
	case XHCI_TRB_DISABLE_SLOT:
		xm.slot[slot].used = false;
		xm_note('D');
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_ADDRESS_DEVICE:
		return address_device(slot, (const uint8_t *)(uintptr_t)t->param);
	case XHCI_TRB_EVALUATE_CTX:
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_CONFIGURE_EP:
		return configure(slot, (const uint8_t *)(uintptr_t)t->param);
	case XHCI_TRB_RESET_EP:
		if (ep->state != XHCI_EPS_HALTED)
			return XHCI_CC_CONTEXT_STATE;
		set_state(slot, dci, XHCI_EPS_STOPPED);
		xm_note('E');
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_STOP_EP:
		if (ep->state != XHCI_EPS_RUNNING)
			return XHCI_CC_CONTEXT_STATE;
		if (ep->held)
			stop_held(slot, dci);
		set_state(slot, dci, XHCI_EPS_STOPPED);
		xm_note('S');
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_SET_TR_DEQUEUE:
		if (ep->state != XHCI_EPS_STOPPED)
			return XHCI_CC_CONTEXT_STATE;
		/* Mark what it skips: a TRB done from there on is a stale one. */
		for (uint64_t a = ep->deq; a < (t->param & ~0xfull); a += 16)
			((struct xhci_trb *)(uintptr_t)a)->param = 0xdeadull;
		ep->deq = t->param & ~0xfull;
		ep->cycle = t->param & 1;
		xm.set_deq[dci] = t->param;
		xm_note('Q');
		return XHCI_CC_SUCCESS;
	}
	return XHCI_CC_TRB;
}

static void run_commands(void)
{
	for (;;) {
		struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)xm.cmd_deq;
		if ((t->control & XHCI_TRB_CYCLE) != xm.cmd_cycle)
			return;
		if (XHCI_TRB_GET_TYPE(t->control) == XHCI_TRB_LINK) {
			if (t->control & XHCI_TRB_CHAIN)
				xm.links_chained++;
			else
				xm.links_unchained++;
			if (t->control & XHCI_TRB_TC)
				xm.cmd_cycle ^= 1;
			xm.cmd_deq = t->param & ~0xfull;
			continue;
		}
		uint32_t slot = 0, cc = command(t, &slot);
		post(xm.cmd_deq, cc << 24, XHCI_TRB_TYPE(XHCI_TRB_COMMAND_COMPLETION) | XHCI_TRB_SLOT(slot));
		xm.cmd_deq += 16;
	}
}

/* ---- Ports (§4.19) ------------------------------------------------------------------------ */
static void port_state(uint8_t n)
{
	struct xm_port *p = &xm.port[n];
	uint32_t v = XHCI_PORT_PP;
	if (p->dev >= 0) {
		v |= XHCI_PORT_CCS | XHCI_PORT_CSC;
		if (p->usb3 && p->stuck)
			v |= XHCI_PLS_INACTIVE << 5;
		else if (p->usb3)
			v |= XHCI_PORT_PED | p->psiv << 10; /* USB 3: the link trains by itself */
		else
			v |= XHCI_PLS_POLLING << 5;
	} else {
		v |= XHCI_PLS_RX_DETECT << 5;
	}
	p->portsc = v;
}

static void port_reset(uint8_t n, bool warm)
{
	struct xm_port *p = &xm.port[n];
	p->portsc |= PORT_PRC | (warm ? PORT_WRC : 0);
	if (p->dev < 0)
		return;
	p->stuck = false;
	p->portsc = (p->portsc & ~(0xfu << 5) & ~(0xfu << 10)) | XHCI_PORT_PED | p->psiv << 10;
	xm.default_dev = p->dev;
	if (warm)
		xm_note('W');
	else
		xm.port_resets++;
}

static void port_write(uint8_t n, uint32_t v)
{
	struct xm_port *p = &xm.port[n];
	p->portsc &= ~(v & W1C);
	if (v & XHCI_PORT_PR)
		port_reset(n, false);
	if (v & XHCI_PORT_WPR)
		port_reset(n, true);
}

static void hc_reset(void)
{
	memset(xm.slot, 0, sizeof(xm.slot));
	put(OP(XHCI_USBCMD), 0);
	put(OP(XHCI_USBSTS), XHCI_STS_HCH);
	for (uint8_t n = 1; n <= XM_PORTS; n++)
		port_state(n);
}

/* ---- arch/devio.h ---------------------------------------------------------------------------- */
uint32_t devio_read32(volatile void *base, uint32_t off)
{
	uint32_t o = (uint32_t)((const volatile uint8_t *)base + off - xm.regs);
	for (uint8_t n = 1; n <= XM_PORTS; n++)
		if (o == PORTSC_AT(n))
			return xm.port[n].portsc;
	return get(o);
}

void devio_write32(volatile void *base, uint32_t off, uint32_t v)
{
	uint32_t o = (uint32_t)((const volatile uint8_t *)base + off - xm.regs);
	for (uint8_t n = 1; n <= XM_PORTS; n++)
		if (o == PORTSC_AT(n)) {
			port_write(n, v);
			return;
		}
	if (o == OP(XHCI_USBCMD)) {
		if (v & XHCI_CMD_HCRST) {
			hc_reset();
			return;
		}
		put(o, v);
		put(OP(XHCI_USBSTS), v & XHCI_CMD_RS ? 0 : XHCI_STS_HCH);
		return;
	}
	put(o, v);
	if (o == OP(XHCI_CRCR) + 4) {
		xm.cmd_deq = get64(OP(XHCI_CRCR)) & ~0x3full;
		xm.cmd_cycle = get(OP(XHCI_CRCR)) & 1;
	} else if (o == RTS + XHCI_IR0 + XHCI_ERSTBA + 4) {
		xm.ev_enq = 0;
		xm.ev_cycle = 1;
	} else if (o == DB) {
		run_commands();
	} else if (o > DB && o <= DB + 4 * XM_SLOTS) {
		run_ep((o - DB) / 4, v & 0xff);
	}
}

uint64_t devio_read64(volatile void *base, uint32_t off)
{
	return (uint64_t)devio_read32(base, off) | (uint64_t)devio_read32(base, off + 4) << 32;
}

void devio_write64(volatile void *base, uint32_t off, uint64_t v)
{
	devio_write32(base, off, (uint32_t)v);
	devio_write32(base, off + 4, (uint32_t)(v >> 32));
}

/* ---- Set-up ----------------------------------------------------------------------------------- */
void xm_reset(uint16_t version)
{
	memset(&xm, 0, sizeof(xm));
	xm.version = version;
	xm.default_dev = -1;
	for (uint8_t n = 0; n <= XM_PORTS; n++)
		xm.port[n].dev = -1;
	put(XHCI_CAPLENGTH, CAPLEN | (uint32_t)version << 16);
	put(XHCI_HCSPARAMS1, XM_SLOTS | 1u << 8 | (uint32_t)XM_PORTS << 24);
	put(XHCI_HCCPARAMS1, XHCI_HCC1_AC64 | (XM_XECP / 4) << 16);
	put(XHCI_DBOFF, DB);
	put(XHCI_RTSOFF, RTS);
	xm.xecp_end = XM_XECP;
	hc_reset();
}

void xm_protocol(uint8_t major, uint8_t first, uint8_t count, const uint32_t *psi, uint8_t psic)
{
	uint32_t at = xm.xecp_end;
	if (at != XM_XECP) { /* link the capability before to this one */
		uint32_t prev = XM_XECP;
		while (XHCI_XCAP_NEXT(get(prev)))
			prev += XHCI_XCAP_NEXT(get(prev)) * 4;
		put(prev, get(prev) | ((at - prev) / 4) << 8);
	}
	put(at, XHCI_XCAP_PROTOCOL | (uint32_t)major << 24);
	put(at + 4, 0x20425355);            /* "USB " */
	put(at + 8, first | (uint32_t)count << 8 | (uint32_t)psic << 28);
	put(at + 12, 0);
	for (uint32_t i = 0; i < psic; i++)
		put(at + 16 + 4 * i, psi[i]);
	xm.xecp_end = at + 16 + 4 * psic;
	for (uint32_t n = first; n < (uint32_t)first + count && n <= XM_PORTS; n++)
		xm.port[n].usb3 = major >= 3;
}

static int add(enum xm_kind kind, int parent, uint8_t port)
{
	int d = xm.n_dev++;
	memset(&xm.dev[d], 0, sizeof(xm.dev[d]));
	xm.dev[d].kind = kind;
	xm.dev[d].parent = parent;
	xm.dev[d].port = port;
	for (int i = 0; i <= XM_HUB_PORTS; i++)
		xm.dev[d].child[i] = -1;
	if (parent >= 0)
		xm.dev[parent].child[port] = d;
	return d;
}

static void plug(int d, uint8_t port, uint8_t psiv)
{
	xm.port[port].dev = d;
	xm.port[port].psiv = psiv;
	port_state(port);
}

int xm_stick(int parent, uint8_t port, uint8_t psiv, bool super, bool high)
{
	int d = add(XM_STICK, parent, port);
	xm.dev[d].super = super;
	xm.dev[d].high = high;
	xm.stick.unit_attention = 1;
	if (parent < 0)
		plug(d, port, psiv);
	return d;
}

int xm_hub(int parent, uint8_t port, uint8_t psiv, uint8_t nports)
{
	int d = add(XM_HUB, parent, port);
	xm.dev[d].nports = nports;
	xm.dev[d].high = true;
	if (parent < 0)
		plug(d, port, psiv);
	return d;
}

/* ---- What the driver calls besides the registers -------------------------------------------------- */
static struct hc_handoff taken = { .how = "taken from the BIOS", .stop = "halted" };
const struct hc_handoff *usb_handoff_find(struct pci_addr a) { (void)a; return &taken; }
void xhci_handoff(struct hc_handoff *h, bool intel_ehci) { (void)intel_ehci; h->how = "late"; }
bool pci_present(struct pci_addr a) { (void)a; return true; }
uint32_t pci_class(struct pci_addr a) { (void)a; return PCI_CLASS_USB_XHCI; }
uint64_t pci_bar_mem(struct pci_addr a, uint32_t off) { (void)a, (void)off; return 0xfe000000; }
uint32_t pci_read32(struct pci_addr a, uint32_t off) { (void)a, (void)off; return 0; }
void pci_write32(struct pci_addr a, uint32_t off, uint32_t v) { (void)a, (void)off, (void)v; }
void *paging_map_mmio(uint64_t phys, uint64_t size) { (void)phys, (void)size; return xm.regs; }

/* 1000 ticks a millisecond: a 30 s bound passes in a few real milliseconds. */
uint64_t tsc_deadline_ms(uint64_t ms) { return tsc_read() + ms * 1000; }
uint64_t tsc_to_us(uint64_t ticks) { return ticks; }
void tsc_delay_us(uint64_t us) { (void)us; }

struct rec *console_rec_open(const char *kind) { (void)kind; return 0; }
void console_rec_emit(struct rec *r) { (void)r; }
void rec_str(struct rec *r, const char *k, const char *v) { (void)r, (void)k, (void)v; }
void rec_hex(struct rec *r, const char *k, uint64_t v) { (void)r, (void)k, (void)v; }

/* Memory the driver takes and never gives back; the test frees it between runs. */
static void *taken_mem[256];
static unsigned n_taken;

uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	(void)node, (void)max_end, (void)owner;
	void *p = n_taken < 256 ? aligned_alloc(align, pages * PMM_PAGE) : NULL;
	if (p) {
		memset(p, 0, pages * PMM_PAGE);
		taken_mem[n_taken++] = p;
	}
	return (uint64_t)(uintptr_t)p;
}

void xm_free_all(void)
{
	while (n_taken)
		free(taken_mem[--n_taken]);
}
