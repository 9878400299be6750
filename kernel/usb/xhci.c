/* xhci.c - the polled xHCI driver; see xhci.h. Section numbers are xHCI 1.2's. */
#include "xhci.h"
#include "console.h"
#include "cpu.h"
#include "fmt.h"
#include "lib.h"
#include "paging.h"
#include "pmm.h"
#include "pci_class.h"
#include "tsc.h"
#include "usb_handoff.h"
#include "xhci_handoff.h"

/* ---- Constants ------------------------------------------------------------ */
#define RING_TRBS (PMM_PAGE / sizeof(struct xhci_trb)) /* one page a ring */
#define BAR_SPAN 0x10000                  /* registers mapped: capability .. doorbells of 64 slots at least */
#define RESET_MS 1000
#define PORT_RESET_MS 500
#define BELOW_4G (1ull << 32)
#define CTRL_SETUP_LEN 8
#define MAX_BULK (64u * 1024)
#define DEFAULT_CERR 3                    /* retries on transaction errors */

/* ---- Private Variables ---------------------------------------------------- */
static bool trace;                        /* dump=usb */

/* ---- Private Functions ---------------------------------------------------- */
/* A usb_trace record of one TRB: what the driver wrote (cmd, xfer) or read (event). */
static void trace_trb(const char *dir, uint64_t at, const struct xhci_trb *t)
{
	if (!trace)
		return;
	struct rec *r = console_rec_open("usb_trace");
	rec_str(r, "dir", dir);
	rec_hex(r, "at", at);
	rec_hex(r, "param", t->param);
	rec_hex(r, "status", t->status);
	rec_hex(r, "control", t->control);
	console_rec_emit(r);
}

static uint64_t push(struct xhci_ring *ring, const char *dir, uint64_t param, uint32_t status, uint32_t control)
{
	uint64_t at = xhci_ring_push(ring, param, status, control);
	struct xhci_trb t = { param, status, (control & ~XHCI_TRB_CYCLE) | (ring->enq ? ring->cycle : ring->cycle ^ 1) };
	trace_trb(dir, at, &t);
	return at;
}

static bool next_event(struct xhci *x, struct xhci_trb *e)
{
	uint64_t at = xhci_evring_deq_phys(&x->ev);
	if (!xhci_evring_next(&x->ev, e))
		return false;
	trace_trb("event", at, e);
	return true;
}
static uint32_t rd32(volatile uint8_t *base, uint32_t off)
{
	return *(volatile uint32_t *)(base + off);
}

static void wr32(volatile uint8_t *base, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(base + off) = v;
}

/* 64-bit registers as two dword writes, low first (§5.1). */
static void wr64(volatile uint8_t *base, uint32_t off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

static bool fail(struct xhci *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct xhci *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	return false;
}

/* Wait until (reg & mask) == want, at most ms. */
static bool wait_reg(volatile uint8_t *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
	uint64_t end = tsc_deadline_ms(ms);
	for (;;) {
		if ((rd32(base, off) & mask) == want)
			return true;
		if (tsc_read() >= end)
			return false;
		cpu_pause();
	}
}

static uint64_t phys(const void *p)
{
	return (uint64_t)(uintptr_t)p; /* RAM is identity-mapped */
}

/* The firmware let go of it at start-up (usb_handoff.c). One the walk left
 * alone (its registers were not decoded then; xhci_start has turned them
 * on) or did not see is taken now, the same way. */
static void handoff(struct xhci *x)
{
	const struct hc_handoff *h = usb_handoff_find(x->pci);
	if (h && h->stop) {
		x->handoff = h->how;
		return;
	}
	static struct hc_handoff late;
	memset(&late, 0, sizeof(late));
	late.pci = x->pci;
	late.cls = PCI_CLASS_USB_XHCI;
	uint32_t id = pci_read32(x->pci, PCI_VENDOR_ID);
	late.vendor = PCI_ID_VENDOR(id);
	late.device = PCI_ID_DEVICE(id);
	xhci_handoff(&late, false);
	x->handoff = late.how;
}

static void ring_db(struct xhci *x, uint32_t slot, uint32_t target)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	x->db[slot] = target;
}

/* Wait for the event that completes the TRB at trb_phys (a command
 * completion or a transfer event), skipping others; bounded. */
static bool wait_event(struct xhci *x, uint64_t trb_phys, uint32_t type, struct xhci_trb *out)
{
	uint64_t end = tsc_deadline_ms(x->timeout_ms);
	for (;;) {
		struct xhci_trb e;
		bool got = false;
		while (next_event(x, &e)) {
			if (XHCI_TRB_GET_TYPE(e.control) == type && e.param == trb_phys) {
				*out = e;
				got = true;
			}
		}
		wr64(x->rt, XHCI_IR0 + XHCI_ERDP, xhci_evring_deq_phys(&x->ev) | XHCI_ERDP_EHB);
		if (got)
			return true;
		if (rd32(x->op, XHCI_USBSTS) & (XHCI_STS_HSE | XHCI_STS_HCE))
			return fail(x, "the controller stopped with a host system or controller error");
		if (tsc_read() >= end)
			return fail(x, "no answer within %llu ms", (unsigned long long)x->timeout_ms);
		cpu_pause();
	}
}

static bool command(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, const char *what)
{
	uint64_t at = push(&x->cmd, "cmd", param, 0, control);
	ring_db(x, 0, XHCI_DB_HOST);
	if (!wait_event(x, at, XHCI_TRB_COMMAND_COMPLETION, ev)) {
		char why[XHCI_WHY_LEN];
		memcpy(why, x->why, sizeof(why));
		return fail(x, "%s command: %s", what, why);
	}
	uint32_t cc = XHCI_EVT_CODE(ev->status);
	if (cc != XHCI_CC_SUCCESS)
		return fail(x, "%s command failed with completion code %u", what, cc);
	return true;
}

static struct xhci_input_ctrl *in_ctrl(struct xhci_dev *d)
{
	return (struct xhci_input_ctrl *)d->in_ctx;
}

static struct xhci_slot_ctx *in_slot(struct xhci *x, struct xhci_dev *d)
{
	return (struct xhci_slot_ctx *)(d->in_ctx + x->ctx);
}

static struct xhci_ep_ctx *in_ep(struct xhci *x, struct xhci_dev *d, uint32_t dci)
{
	return (struct xhci_ep_ctx *)(d->in_ctx + x->ctx * (1 + dci));
}

static bool new_ring(struct xhci *x, struct xhci_ring *r)
{
	struct xhci_trb *t = xhci_dma(x, PMM_PAGE);
	if (!t)
		return fail(x, "no memory for a transfer ring");
	xhci_ring_init(r, t, phys(t), RING_TRBS);
	return true;
}

/* The input context's slot context as the device is (copied from the output
 * context), so that an Evaluate or Configure changes only what it sets. */
static void input_from_output(struct xhci *x, struct xhci_dev *d)
{
	memset(d->in_ctx, 0, x->ctx * (2 + XHCI_MAX_DCI));
	memcpy(in_slot(x, d), d->dev_ctx, x->ctx);
}

static uint32_t transfer_wait(struct xhci *x, struct xhci_dev *d, uint64_t last_trb, uint32_t *remaining)
{
	struct xhci_trb ev;
	(void)d;
	if (!wait_event(x, last_trb, XHCI_TRB_TRANSFER_EVENT, &ev))
		return 0;
	*remaining = XHCI_EVT_LEN(ev.status);
	return XHCI_EVT_CODE(ev.status);
}

/* ---- Public Functions ----------------------------------------------------- */
void xhci_set_trace(bool on)
{
	trace = on;
}

void *xhci_dma(struct xhci *x, uint64_t bytes)
{
	uint64_t pages = (bytes + PMM_PAGE - 1) / PMM_PAGE;
	uint64_t p = pmm_alloc(pages, PMM_ANY_NODE, PMM_PAGE, x->ac64 ? 0 : BELOW_4G, PMM_KERNEL);
	if (!p)
		return 0;
	memset((void *)(uintptr_t)p, 0, pages * PMM_PAGE);
	return (void *)(uintptr_t)p;
}

bool xhci_start(struct xhci *x, struct pci_addr a, uint64_t timeout_ms)
{
	memset(x, 0, sizeof(*x));
	x->pci = a;
	x->timeout_ms = timeout_ms;
	x->handoff = "not reached";
	if (!pci_present(a))
		return fail(x, "no PCI function at %04x:%02x:%02x.%x", a.segment, a.bus, a.dev, a.fn);
	if (pci_class(a) != PCI_CLASS_USB_XHCI)
		return fail(x, "the controller is %s, not an xHCI", pci_usb_hc_a_name(pci_class(a)));
	uint64_t bar = pci_bar_mem(a, PCI_BAR0);
	if (!bar)
		return fail(x, "the controller has no memory BAR");
	pci_write32(a, PCI_COMMAND, (pci_read32(a, PCI_COMMAND) & 0xffff) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
					 PCI_COMMAND_INTX_DISABLE);
	x->cap = paging_map_mmio(bar, BAR_SPAN);
	if (!x->cap)
		return fail(x, "its registers at 0x%llx cannot be mapped", (unsigned long long)bar);
	x->op = x->cap + (rd32(x->cap, XHCI_CAPLENGTH) & 0xff);
	x->rt = x->cap + (rd32(x->cap, XHCI_RTSOFF) & ~0x1fu);
	x->db = (volatile uint32_t *)(x->cap + (rd32(x->cap, XHCI_DBOFF) & ~0x3u));
	uint32_t hcs1 = rd32(x->cap, XHCI_HCSPARAMS1), hcc1 = rd32(x->cap, XHCI_HCCPARAMS1);
	x->max_slots = XHCI_HCS1_MAX_SLOTS(hcs1);
	x->max_ports = XHCI_HCS1_MAX_PORTS(hcs1);
	x->ctx = hcc1 & XHCI_HCC1_CSZ ? 64 : 32;
	x->ac64 = hcc1 & XHCI_HCC1_AC64;
	if (!x->max_slots || (uint64_t)(x->rt - x->cap) + 0x40 > BAR_SPAN ||
	    (uint64_t)((volatile uint8_t *)x->db - x->cap) + 4 * (x->max_slots + 1) > BAR_SPAN)
		return fail(x, "its capability registers make no sense (slots %u, registers past 64 KiB)", x->max_slots);

	handoff(x);
	/* Halt, then reset (§4.2). */
	wr32(x->op, XHCI_USBCMD, rd32(x->op, XHCI_USBCMD) & ~XHCI_CMD_RS);
	if (!wait_reg(x->op, XHCI_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, RESET_MS))
		return fail(x, "the controller did not halt within %u ms", RESET_MS);
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_HCRST);
	if (!wait_reg(x->op, XHCI_USBCMD, XHCI_CMD_HCRST, 0, RESET_MS) ||
	    !wait_reg(x->op, XHCI_USBSTS, XHCI_STS_CNR, 0, RESET_MS))
		return fail(x, "the controller did not come out of reset within %u ms", RESET_MS);

	x->dcbaa = xhci_dma(x, PMM_PAGE);
	struct xhci_trb *cmd = xhci_dma(x, PMM_PAGE), *ev = xhci_dma(x, PMM_PAGE);
	struct xhci_erst_entry *erst = xhci_dma(x, PMM_PAGE);
	if (!x->dcbaa || !cmd || !ev || !erst)
		return fail(x, "no memory below 4 GiB for its rings");
	uint32_t scratch = XHCI_HCS2_MAX_SCRATCH(rd32(x->cap, XHCI_HCSPARAMS2));
	if (scratch) {
		uint64_t *arr = xhci_dma(x, scratch * sizeof(uint64_t));
		if (!arr)
			return fail(x, "no memory for its %u scratchpad pages", scratch);
		for (uint32_t i = 0; i < scratch; i++) {
			void *pg = xhci_dma(x, PMM_PAGE);
			if (!pg)
				return fail(x, "no memory for its %u scratchpad pages", scratch);
			arr[i] = phys(pg);
		}
		x->dcbaa[0] = phys(arr);
	}
	uint32_t slots = x->max_slots < 255 ? x->max_slots : 255;
	wr32(x->op, XHCI_CONFIG, (rd32(x->op, XHCI_CONFIG) & ~0xffu) | slots);
	wr64(x->op, XHCI_DCBAAP, phys(x->dcbaa));
	xhci_ring_init(&x->cmd, cmd, phys(cmd), RING_TRBS);
	wr64(x->op, XHCI_CRCR, xhci_ring_deq_ptr(&x->cmd));
	xhci_evring_init(&x->ev, ev, phys(ev), RING_TRBS);
	erst->base = phys(ev);
	erst->size = RING_TRBS;
	wr32(x->rt, XHCI_IR0 + XHCI_ERSTSZ, 1);
	wr64(x->rt, XHCI_IR0 + XHCI_ERDP, phys(ev));
	wr64(x->rt, XHCI_IR0 + XHCI_ERSTBA, phys(erst));
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_RS); /* no INTE: polled */
	if (!wait_reg(x->op, XHCI_USBSTS, XHCI_STS_HCH, 0, RESET_MS))
		return fail(x, "the controller did not start within %u ms", RESET_MS);
	struct xhci_trb e;
	return command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_NOOP_CMD), &e, "no-op");
}

bool xhci_port_connected(struct xhci *x, uint8_t port)
{
	return port && port <= x->max_ports && (rd32(x->op, XHCI_PORTSC(port)) & XHCI_PORT_CCS);
}

bool xhci_root_port_reset(struct xhci *x, uint8_t port, uint8_t *speed)
{
	if (!port || port > x->max_ports)
		return fail(x, "root port %u does not exist (the controller has %u)", port, x->max_ports);
	uint32_t off = XHCI_PORTSC(port);
	uint32_t v = rd32(x->op, off);
	if (!(v & XHCI_PORT_PP)) {
		wr32(x->op, off, (v & ~(XHCI_PORT_PED | XHCI_PORT_CHANGES)) | XHCI_PORT_PP);
		tsc_delay_us(20 * 1000);
	}
	/* A USB 3 port trains its link by itself after the controller reset; a
	 * USB 2 port needs a reset to be enabled (§4.3.1). Connection first. */
	if (!wait_reg(x->op, off, XHCI_PORT_CCS, XHCI_PORT_CCS, PORT_RESET_MS))
		return fail(x, "nothing is connected to root port %u", port);
	v = rd32(x->op, off);
	if (!(v & XHCI_PORT_PED)) {
		wr32(x->op, off, (v & ~(XHCI_PORT_PED | XHCI_PORT_CHANGES)) | XHCI_PORT_PR);
		if (!wait_reg(x->op, off, XHCI_PORT_PRC, XHCI_PORT_PRC, PORT_RESET_MS))
			return fail(x, "root port %u did not finish its reset within %u ms", port, PORT_RESET_MS);
		v = rd32(x->op, off);
		wr32(x->op, off, (v & ~(XHCI_PORT_PED | XHCI_PORT_CHANGES)) | XHCI_PORT_PRC);
	}
	if (!wait_reg(x->op, off, XHCI_PORT_PED, XHCI_PORT_PED, PORT_RESET_MS))
		return fail(x, "root port %u was not enabled after its reset", port);
	*speed = (uint8_t)XHCI_PORT_SPEED(rd32(x->op, off));
	tsc_delay_us(10 * 1000); /* USB 2.0 §7.1.7.3: TRSTRCY, recovery after reset */
	return true;
}

bool xhci_dev_address(struct xhci *x, struct xhci_dev *d)
{
	struct xhci_trb ev;
	if (!command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_ENABLE_SLOT), &ev, "enable slot"))
		return false;
	d->slot = (uint8_t)XHCI_TRB_GET_SLOT(ev.control);
	if (!d->slot || d->slot > x->max_slots)
		return fail(x, "enable slot gave slot %u", d->slot);
	d->in_ctx = xhci_dma(x, x->ctx * (2 + XHCI_MAX_DCI));
	d->dev_ctx = xhci_dma(x, x->ctx * (1 + XHCI_MAX_DCI));
	if (!d->in_ctx || !d->dev_ctx || !new_ring(x, &d->ep0))
		return fail(x, "no memory for a device's contexts");
	x->dcbaa[d->slot] = phys(d->dev_ctx);
	d->mps0 = d->speed == XHCI_SPEED_SUPER ? 512 : d->speed == XHCI_SPEED_HIGH ? 64 : 8;
	in_ctrl(d)->add = 0x3; /* A0 slot, A1 EP0 (§4.3.3) */
	struct xhci_slot_ctx *s = in_slot(x, d);
	s->info = XHCI_SLOT_ROUTE(d->route) | XHCI_SLOT_SPEED(d->speed) | XHCI_SLOT_ENTRIES(1);
	s->info2 = XHCI_SLOT_ROOT_PORT(d->root_port);
	s->tt = XHCI_SLOT_TT_HUB(d->tt_slot) | XHCI_SLOT_TT_PORT(d->tt_port);
	struct xhci_ep_ctx *e = in_ep(x, d, 1);
	e->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_CONTROL) | XHCI_EP_MPS(d->mps0);
	e->deq = xhci_ring_deq_ptr(&d->ep0);
	e->tx_info = CTRL_SETUP_LEN;
	return command(x, phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_ADDRESS_DEVICE) | XHCI_TRB_SLOT(d->slot), &ev,
		       "address device");
}

bool xhci_dev_set_mps0(struct xhci *x, struct xhci_dev *d, uint16_t mps)
{
	struct xhci_trb ev;
	input_from_output(x, d);
	in_ctrl(d)->add = 0x2; /* A1: EP0 (§4.6.7) */
	memcpy(in_ep(x, d, 1), d->dev_ctx + x->ctx, x->ctx);
	struct xhci_ep_ctx *e = in_ep(x, d, 1);
	e->info2 = (e->info2 & 0xffff) | XHCI_EP_MPS(mps);
	d->mps0 = mps;
	return command(x, phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_EVALUATE_CTX) | XHCI_TRB_SLOT(d->slot), &ev,
		       "evaluate context");
}

bool xhci_dev_set_hub(struct xhci *x, struct xhci_dev *d, uint8_t nports)
{
	struct xhci_trb ev;
	input_from_output(x, d);
	in_ctrl(d)->add = 0x1; /* A0: the slot context (§4.6.6) */
	struct xhci_slot_ctx *s = in_slot(x, d);
	s->info = (s->info & ~XHCI_SLOT_ENTRIES(0x1f)) | XHCI_SLOT_HUB | XHCI_SLOT_ENTRIES(1);
	s->info2 = (s->info2 & 0x00ffffffu) | XHCI_SLOT_NPORTS(nports);
	s->state = 0;
	return command(x, phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(d->slot), &ev,
		       "configure endpoint (hub)");
}

bool xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		  void *buf, uint16_t len, uint32_t *got)
{
	bool in = type & 0x80;
	uint64_t setup = type | (uint64_t)req << 8 | (uint64_t)value << 16 | (uint64_t)index << 32 | (uint64_t)len << 48;
	uint32_t trt = !len ? XHCI_TRT_NO_DATA : in ? XHCI_TRT_IN : XHCI_TRT_OUT;
	push(&d->ep0, "xfer", setup, CTRL_SETUP_LEN, XHCI_TRB_TYPE(XHCI_TRB_SETUP) | XHCI_TRB_IDT | XHCI_TRB_TRT(trt));
	if (len)
		push(&d->ep0, "xfer", phys(buf), len,
			       XHCI_TRB_TYPE(XHCI_TRB_DATA) | (in ? XHCI_TRB_DIR_IN : 0) | XHCI_TRB_ISP);
	/* The status stage goes the other way from the data (§4.11.2.2). */
	uint64_t last = push(&d->ep0, "xfer", 0, 0, XHCI_TRB_TYPE(XHCI_TRB_STATUS) | XHCI_TRB_IOC |
							     (len && in ? 0 : XHCI_TRB_DIR_IN));
	ring_db(x, d->slot, 1);
	struct xhci_trb ev;
	uint64_t end = tsc_deadline_ms(x->timeout_ms);
	uint32_t moved = len;
	for (;;) {
		/* A short data stage ends with its own event; the status stage's comes after. */
		struct xhci_trb e;
		bool done = false;
		while (next_event(x, &e)) {
			if (XHCI_TRB_GET_TYPE(e.control) != XHCI_TRB_TRANSFER_EVENT || XHCI_TRB_GET_SLOT(e.control) != d->slot)
				continue;
			uint32_t cc = XHCI_EVT_CODE(e.status);
			if (cc == XHCI_CC_SHORT_PACKET) {
				moved = len - XHCI_EVT_LEN(e.status);
				continue;
			}
			ev = e;
			done = e.param == last || cc != XHCI_CC_SUCCESS;
			if (done)
				break;
		}
		wr64(x->rt, XHCI_IR0 + XHCI_ERDP, xhci_evring_deq_phys(&x->ev) | XHCI_ERDP_EHB);
		if (done)
			break;
		if (tsc_read() >= end)
			return fail(x, "control request 0x%02x: no answer within %llu ms", req,
				    (unsigned long long)x->timeout_ms);
		cpu_pause();
	}
	uint32_t cc = XHCI_EVT_CODE(ev.status);
	if (cc != XHCI_CC_SUCCESS)
		return fail(x, "control request 0x%02x failed with completion code %u", req, cc);
	if (got)
		*got = moved;
	return true;
}

bool xhci_dev_bulk(struct xhci *x, struct xhci_dev *d, uint8_t ep_out, uint16_t mps_out, uint8_t ep_in,
		   uint16_t mps_in)
{
	struct xhci_trb ev;
	d->dci_out = (uint8_t)((ep_out & 0xf) * 2);
	d->dci_in = (uint8_t)((ep_in & 0xf) * 2 + 1);
	if (!new_ring(x, &d->bulk_out) || !new_ring(x, &d->bulk_in))
		return false;
	input_from_output(x, d);
	uint8_t maxdci = d->dci_out > d->dci_in ? d->dci_out : d->dci_in;
	in_ctrl(d)->add = 1u | 1u << d->dci_out | 1u << d->dci_in;
	struct xhci_slot_ctx *s = in_slot(x, d);
	s->info = (s->info & ~XHCI_SLOT_ENTRIES(0x1f)) | XHCI_SLOT_ENTRIES(maxdci);
	s->state = 0;
	struct xhci_ep_ctx *o = in_ep(x, d, d->dci_out), *i = in_ep(x, d, d->dci_in);
	o->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_BULK_OUT) | XHCI_EP_MPS(mps_out);
	o->deq = xhci_ring_deq_ptr(&d->bulk_out);
	o->tx_info = mps_out;
	i->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_BULK_IN) | XHCI_EP_MPS(mps_in);
	i->deq = xhci_ring_deq_ptr(&d->bulk_in);
	i->tx_info = mps_in;
	return command(x, phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(d->slot), &ev,
		       "configure endpoint (bulk)");
}

bool xhci_bulk_xfer(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *got,
		    uint32_t *code)
{
	struct xhci_ring *r = in ? &d->bulk_in : &d->bulk_out;
	uint8_t dci = in ? d->dci_in : d->dci_out;
	*code = 0;
	*got = 0;
	if (!dci || len > MAX_BULK)
		return fail(x, "bulk transfer of %u bytes on an endpoint that is not configured", len);
	uint64_t last = push(r, "xfer", phys(buf), len, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC | XHCI_TRB_ISP);
	ring_db(x, d->slot, dci);
	uint32_t remaining = 0;
	*code = transfer_wait(x, d, last, &remaining);
	if (!*code)
		return false; /* x->why: no answer */
	if (*code == XHCI_CC_STALL) {
		/* Reset the endpoint and move its dequeue pointer past the stalled TD
		 * (§4.6.8, §4.6.10); the caller clears the device's halt. */
		struct xhci_trb ev;
		command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_RESET_EP) | XHCI_TRB_SLOT(d->slot) | XHCI_TRB_EP(dci), &ev,
			"reset endpoint");
		command(x, xhci_ring_deq_ptr(r), XHCI_TRB_TYPE(XHCI_TRB_SET_TR_DEQUEUE) | XHCI_TRB_SLOT(d->slot) |
							 XHCI_TRB_EP(dci), &ev, "set TR dequeue pointer");
		return fail(x, "the device stalled a bulk %s transfer", in ? "in" : "out");
	}
	if (*code != XHCI_CC_SUCCESS && *code != XHCI_CC_SHORT_PACKET)
		return fail(x, "bulk %s transfer failed with completion code %u", in ? "in" : "out", *code);
	*got = len - remaining;
	return true;
}

bool xhci_dev_intr_in(struct xhci *x, struct xhci_dev *d, uint8_t ep_in, uint16_t mps, uint8_t interval)
{
	struct xhci_trb ev;
	d->dci_in = (uint8_t)((ep_in & 0xf) * 2 + 1);
	if (!new_ring(x, &d->bulk_in))
		return false;
	input_from_output(x, d);
	in_ctrl(d)->add = 1u | 1u << d->dci_in;
	struct xhci_slot_ctx *s = in_slot(x, d);
	uint32_t entries = (s->info >> 27) > d->dci_in ? (s->info >> 27) : d->dci_in;
	s->info = (s->info & ~XHCI_SLOT_ENTRIES(0x1f)) | XHCI_SLOT_ENTRIES(entries);
	s->state = 0;
	struct xhci_ep_ctx *e = in_ep(x, d, d->dci_in);
	e->info = XHCI_EP_INTERVAL(interval);
	e->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_INTR_IN) | XHCI_EP_MPS(mps);
	e->deq = xhci_ring_deq_ptr(&d->bulk_in);
	e->tx_info = mps | (uint32_t)mps << 16; /* average TRB length, max ESIT payload */
	return command(x, phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(d->slot), &ev,
		       "configure endpoint (interrupt)");
}

uint64_t xhci_queue_in(struct xhci *x, struct xhci_dev *d, void *buf, uint32_t len)
{
	uint64_t at = push(&d->bulk_in, "xfer", phys(buf), len, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC | XHCI_TRB_ISP);
	ring_db(x, d->slot, d->dci_in);
	return at;
}

int xhci_poll_in(struct xhci *x, uint64_t trb, uint32_t len, uint32_t *got)
{
	struct xhci_trb e;
	int result = 0;
	while (result == 0 && next_event(x, &e)) {
		if (XHCI_TRB_GET_TYPE(e.control) != XHCI_TRB_TRANSFER_EVENT || e.param != trb)
			continue;
		uint32_t cc = XHCI_EVT_CODE(e.status);
		*got = len - XHCI_EVT_LEN(e.status);
		result = cc == XHCI_CC_SUCCESS || cc == XHCI_CC_SHORT_PACKET ? 1 : -1;
	}
	wr64(x->rt, XHCI_IR0 + XHCI_ERDP, xhci_evring_deq_phys(&x->ev) | XHCI_ERDP_EHB);
	return result;
}
