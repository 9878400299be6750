/* xhci_dev.c - device slots, contexts and endpoint recovery; see xhci_dev.h. Section numbers are xHCI 1.2's. */
#include "xhci_dev.h"
#include "lib.h"
#include "tsc.h"
#include "xhci_cmd.h"

/* ---- Constants ------------------------------------------------------------ */
#define CTRL_SETUP_LEN 8
#define DEFAULT_CERR 3                    /* retries on transaction errors */
#define ADD_SLOT (1u << 0)                /* input control context: A0, the slot context */
#define ADD_EP0 (1u << 1)                 /* A1, EP0 */
#define MPS0_SUPER 512                    /* USB 3.2 §9.6.1: bMaxPacketSize0 = 9 (2^9) */
#define MPS0_HIGH 64                      /* USB 2.0 §5.5.3 */
#define MPS0_LOW_FULL 8                   /* until the descriptor says (a full-speed device may have 8..64) */
#define EP_MPS_MASK 0xffffu               /* endpoint context info2: what is below the max packet size */
#define SLOT_NPORTS_MASK 0x00ffffffu      /* slot context info2: what is below the number of ports */
#define EP_NUMBER_MASK 0xf
#define EP_DIR_IN 0x80
#define INTR_ESIT_SHIFT 16                /* endpoint context tx_info: max ESIT payload above the average TRB length */

/* ---- Private Functions ---------------------------------------------------- */
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

static const struct xhci_ep_ctx *out_ep(const struct xhci *x, const struct xhci_dev *d, uint32_t dci)
{
	return (const struct xhci_ep_ctx *)(d->dev_ctx + x->ctx * dci);
}

/* The input context's slot context as the device is (copied from the output
 * context), so that an Evaluate or Configure changes only what it sets. */
static void input_from_output(struct xhci *x, struct xhci_dev *d)
{
	memset(d->in_ctx, 0, x->ctx * (2 + XHCI_MAX_DCI));
	memcpy(in_slot(x, d), d->dev_ctx, x->ctx);
}

static uint32_t cmd_slot_ep(const struct xhci_dev *d, const struct xhci_ep *ep)
{
	return XHCI_TRB_SLOT(d->slot) | XHCI_TRB_EP(ep->dci);
}

static bool configure(struct xhci *x, struct xhci_dev *d, const char *what)
{
	struct xhci_trb ev;
	return xhci_command(x, xhci_phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(d->slot),
			    &ev, what);
}

/* Slot context entries: at least the highest DCI configured. */
static void slot_entries(struct xhci *x, struct xhci_dev *d, uint32_t dci)
{
	struct xhci_slot_ctx *s = in_slot(x, d);
	uint32_t entries = XHCI_SLOT_ENTRIES_OF(s->info) > dci ? XHCI_SLOT_ENTRIES_OF(s->info) : dci;
	s->info = (s->info & ~XHCI_SLOT_ENTRIES(0x1f)) | XHCI_SLOT_ENTRIES(entries);
	s->state = 0;
}

/* Set TR Dequeue Pointer past everything on ep's ring (§4.6.10). */
static bool step_over(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep)
{
	struct xhci_trb ev;
	ep->n_td = 0;
	return xhci_command(x, xhci_ring_deq_ptr(&ep->ring), XHCI_TRB_TYPE(XHCI_TRB_SET_TR_DEQUEUE) | cmd_slot_ep(d, ep),
			    &ev, "set TR dequeue pointer");
}

static bool reset_ep(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep)
{
	struct xhci_trb ev;
	/* TSP 0: the toggle (sequence number) is reset too (§4.6.8). */
	return xhci_command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_RESET_EP) | cmd_slot_ep(d, ep), &ev, "reset endpoint");
}

/* Stop Endpoint (§4.6.9). It may find the endpoint halted meanwhile. */
static bool stop_ep(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep)
{
	struct xhci_trb ev;
	uint32_t cc = 0;
	if (!xhci_command_cc(x, 0, XHCI_TRB_TYPE(XHCI_TRB_STOP_EP) | cmd_slot_ep(d, ep), &ev, &cc, "stop endpoint"))
		return false;
	if (cc == XHCI_CC_CONTEXT_STATE && xhci_ep_state(x, d, ep) == XHCI_EPS_HALTED)
		return reset_ep(x, d, ep);
	if (cc != XHCI_CC_SUCCESS && cc != XHCI_CC_CONTEXT_STATE)
		return xhci_fail(x, "stop endpoint command failed with completion code %u", cc);
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
struct xhci_ep *xhci_dev_ep(struct xhci_dev *d, uint8_t dci)
{
	if (dci && dci == d->ep0.dci)
		return &d->ep0;
	if (dci && dci == d->out.dci)
		return &d->out;
	if (dci && dci == d->in.dci)
		return &d->in;
	return 0;
}

uint32_t xhci_ep_state(const struct xhci *x, const struct xhci_dev *d, const struct xhci_ep *ep)
{
	return XHCI_EP_STATE(out_ep(x, d, ep->dci)->info);
}

uint32_t xhci_route(uint32_t hub_route, uint32_t tier, uint32_t port)
{
	uint32_t nibble = port < XHCI_ROUTE_PORT_MAX ? port : XHCI_ROUTE_PORT_MAX;
	if (!tier || tier > XHCI_ROUTE_TIERS)
		return hub_route;
	return hub_route | nibble << (4 * (tier - 1));
}

bool xhci_dev_address(struct xhci *x, struct xhci_dev *d)
{
	struct xhci_trb ev;
	if (!xhci_command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_ENABLE_SLOT), &ev, "enable slot"))
		return false;
	d->slot = (uint8_t)XHCI_TRB_GET_SLOT(ev.control);
	if (!d->slot || d->slot > x->max_slots)
		return xhci_fail(x, "enable slot gave slot %u", d->slot);
	if (!d->in_ctx)
		d->in_ctx = xhci_dma(x, x->ctx * (2 + XHCI_MAX_DCI));
	if (!d->dev_ctx)
		d->dev_ctx = xhci_dma(x, x->ctx * (1 + XHCI_MAX_DCI));
	if (!d->in_ctx || !d->dev_ctx || !xhci_ep_ring(x, &d->ep0))
		return xhci_fail(x, "no memory for a device's contexts");
	memset(d->in_ctx, 0, x->ctx * (2 + XHCI_MAX_DCI));
	memset(d->dev_ctx, 0, x->ctx * (1 + XHCI_MAX_DCI));
	d->ep0.dci = 1;
	x->dcbaa[d->slot] = xhci_phys(d->dev_ctx);
	x->devs[d->slot] = d;
	d->mps0 = d->speed == XHCI_SPEED_SUPER ? MPS0_SUPER : d->speed == XHCI_SPEED_HIGH ? MPS0_HIGH : MPS0_LOW_FULL;
	in_ctrl(d)->add = ADD_SLOT | ADD_EP0; /* §4.3.3 */
	struct xhci_slot_ctx *s = in_slot(x, d);
	s->info = XHCI_SLOT_ROUTE(d->route) | XHCI_SLOT_SPEED(d->psiv) | XHCI_SLOT_ENTRIES(1);
	s->info2 = XHCI_SLOT_ROOT_PORT(d->root_port);
	s->tt = XHCI_SLOT_TT_HUB(d->tt_slot) | XHCI_SLOT_TT_PORT(d->tt_port);
	struct xhci_ep_ctx *e = in_ep(x, d, 1);
	e->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_CONTROL) | XHCI_EP_MPS(d->mps0);
	e->deq = xhci_ring_deq_ptr(&d->ep0.ring);
	e->tx_info = CTRL_SETUP_LEN;
	return xhci_command(x, xhci_phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_ADDRESS_DEVICE) | XHCI_TRB_SLOT(d->slot),
			    &ev, "address device");
}

void xhci_dev_disable(struct xhci *x, struct xhci_dev *d)
{
	struct xhci_trb ev;
	if (!d->slot)
		return;
	xhci_command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_DISABLE_SLOT) | XHCI_TRB_SLOT(d->slot), &ev, "disable slot");
	x->devs[d->slot] = 0;
	x->dcbaa[d->slot] = 0;
	d->slot = 0;
	d->out.dci = d->in.dci = 0;
}

bool xhci_dev_set_mps0(struct xhci *x, struct xhci_dev *d, uint16_t mps)
{
	struct xhci_trb ev;
	input_from_output(x, d);
	in_ctrl(d)->add = ADD_EP0; /* §4.6.7 */
	memcpy(in_ep(x, d, 1), d->dev_ctx + x->ctx, x->ctx);
	struct xhci_ep_ctx *e = in_ep(x, d, 1);
	e->info2 = (e->info2 & EP_MPS_MASK) | XHCI_EP_MPS(mps);
	d->mps0 = mps;
	return xhci_command(x, xhci_phys(d->in_ctx), XHCI_TRB_TYPE(XHCI_TRB_EVALUATE_CTX) | XHCI_TRB_SLOT(d->slot), &ev,
			    "evaluate context");
}

bool xhci_dev_set_hub(struct xhci *x, struct xhci_dev *d, uint8_t nports)
{
	input_from_output(x, d);
	in_ctrl(d)->add = ADD_SLOT; /* §4.6.6 */
	struct xhci_slot_ctx *s = in_slot(x, d);
	s->info |= XHCI_SLOT_HUB;
	s->info2 = (s->info2 & SLOT_NPORTS_MASK) | XHCI_SLOT_NPORTS(nports);
	slot_entries(x, d, 1);
	return configure(x, d, "configure endpoint (hub)");
}

bool xhci_dev_bulk(struct xhci *x, struct xhci_dev *d, uint8_t ep_out, uint16_t mps_out, uint8_t ep_in,
		   uint16_t mps_in)
{
	d->out.dci = (uint8_t)((ep_out & EP_NUMBER_MASK) * 2);
	d->in.dci = (uint8_t)((ep_in & EP_NUMBER_MASK) * 2 + 1);
	d->out.addr = ep_out;
	d->in.addr = ep_in;
	if (!xhci_ep_ring(x, &d->out) || !xhci_ep_ring(x, &d->in))
		return false;
	input_from_output(x, d);
	in_ctrl(d)->add = ADD_SLOT | 1u << d->out.dci | 1u << d->in.dci;
	slot_entries(x, d, d->out.dci > d->in.dci ? d->out.dci : d->in.dci);
	struct xhci_ep_ctx *o = in_ep(x, d, d->out.dci), *i = in_ep(x, d, d->in.dci);
	o->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_BULK_OUT) | XHCI_EP_MPS(mps_out);
	o->deq = xhci_ring_deq_ptr(&d->out.ring);
	o->tx_info = mps_out;
	i->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_BULK_IN) | XHCI_EP_MPS(mps_in);
	i->deq = xhci_ring_deq_ptr(&d->in.ring);
	i->tx_info = mps_in;
	return configure(x, d, "configure endpoint (bulk)");
}

bool xhci_dev_intr_in(struct xhci *x, struct xhci_dev *d, uint8_t ep_in, uint16_t mps, uint8_t interval)
{
	d->in.dci = (uint8_t)((ep_in & EP_NUMBER_MASK) * 2 + 1);
	d->in.addr = ep_in | EP_DIR_IN;
	if (!xhci_ep_ring(x, &d->in))
		return false;
	input_from_output(x, d);
	in_ctrl(d)->add = ADD_SLOT | 1u << d->in.dci;
	slot_entries(x, d, d->in.dci);
	struct xhci_ep_ctx *e = in_ep(x, d, d->in.dci);
	e->info = XHCI_EP_INTERVAL(interval);
	e->info2 = XHCI_EP_CERR(DEFAULT_CERR) | XHCI_EP_TYPE(XHCI_EP_INTR_IN) | XHCI_EP_MPS(mps);
	e->deq = xhci_ring_deq_ptr(&d->in.ring);
	e->tx_info = mps | (uint32_t)mps << INTR_ESIT_SHIFT; /* average TRB length, max ESIT payload */
	return configure(x, d, "configure endpoint (interrupt)");
}

bool xhci_ep_recover(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, bool stop)
{
	uint32_t st = xhci_ep_state(x, d, ep);
	if (st == XHCI_EPS_HALTED) {
		if (!reset_ep(x, d, ep))
			return xhci_die(x, "a halted endpoint could not be reset: %s", x->why);
	} else if (st == XHCI_EPS_RUNNING && stop) {
		if (!stop_ep(x, d, ep))
			return x->dead ? false : xhci_die(x, "a transfer that got no answer could not be stopped: %s", x->why);
	} else if (st == XHCI_EPS_RUNNING) {
		ep->n_td = 0; /* the controller went past the failed transfer itself */
		return true;
	} else if (st != XHCI_EPS_STOPPED) {
		return xhci_die(x, "endpoint %u is in state %u, which no command brings back", ep->dci, st);
	}
	if (!step_over(x, d, ep))
		return x->dead ? false : xhci_die(x, "the ring could not be moved past a failed transfer: %s", x->why);
	return true;
}

bool xhci_ep_reset_toggle(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep)
{
	uint32_t st = xhci_ep_state(x, d, ep);
	if (st == XHCI_EPS_HALTED)
		return xhci_ep_recover(x, d, ep, false);
	if (st == XHCI_EPS_RUNNING && !stop_ep(x, d, ep))
		return false;
	/* Drop and add in one Configure Endpoint: the controller starts the
	 * endpoint afresh, toggle 0, at the ring's next TRB. */
	input_from_output(x, d);
	in_ctrl(d)->drop = 1u << ep->dci;
	in_ctrl(d)->add = ADD_SLOT | 1u << ep->dci;
	slot_entries(x, d, ep->dci);
	struct xhci_ep_ctx *e = in_ep(x, d, ep->dci);
	memcpy(e, out_ep(x, d, ep->dci), x->ctx);
	e->info &= ~(uint32_t)XHCI_EP_STATE(~0u);
	e->deq = xhci_ring_deq_ptr(&ep->ring);
	ep->n_td = 0;
	return configure(x, d, "configure endpoint (data toggle)");
}
