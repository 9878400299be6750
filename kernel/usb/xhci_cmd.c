/* xhci_cmd.c - commands and events; see xhci_cmd.h. Section numbers are xHCI 1.2's. */
#include "xhci_cmd.h"
#include "cpu.h"
#include "devio.h"
#include "lib.h"
#include "tsc.h"
#include "xhci_dev.h"

/* ---- Private Functions ---------------------------------------------------- */
static bool in_td(const struct xhci_ep *ep, uint64_t trb)
{
	for (uint32_t i = 0; i < ep->n_td; i++)
		if (ep->td[i] == trb)
			return true;
	return false;
}

/* A transfer event: to the transfer in flight on its endpoint, if it names
 * one of its TRBs (§4.11.3.1 says which TRB an event names). */
static bool transfer_event(struct xhci *x, const struct xhci_trb *e)
{
	uint32_t slot = XHCI_TRB_GET_SLOT(e->control);
	struct xhci_dev *d = slot <= XHCI_MAX_SLOTS ? x->devs[slot] : 0;
	struct xhci_ep *ep = d ? xhci_dev_ep(d, (uint8_t)XHCI_TRB_GET_EP(e->control)) : 0;
	if (!ep || ep->done || !in_td(ep, e->param))
		return false;
	uint32_t cc = XHCI_EVT_CODE(e->status), left = XHCI_EVT_LEN(e->status);
	if (e->param == ep->td[ep->n_td - 1] || (cc != XHCI_CC_SUCCESS && cc != XHCI_CC_SHORT_PACKET)) {
		ep->done = true;
		ep->cc = cc;
		ep->left = left;
	} else if (cc == XHCI_CC_SHORT_PACKET) {
		ep->short_trb = e->param; /* a data stage that ended short; its status stage's event follows */
		ep->short_left = left;
	}
	return true;
}

static bool command_event(struct xhci *x, const struct xhci_trb *e)
{
	if (!x->cmd_trb || x->cmd_done || e->param != x->cmd_trb)
		return false;
	x->cmd_ev = *e;
	x->cmd_done = true;
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void xhci_events(struct xhci *x)
{
	struct xhci_trb e;
	bool any = false;
	for (;;) {
		uint64_t at = xhci_evring_deq_phys(&x->ev);
		if (!xhci_evring_next(&x->ev, &e))
			break;
		any = true;
		xhci_trace_trb("event", at, &e);
		uint32_t type = XHCI_TRB_GET_TYPE(e.control);
		bool taken = type == XHCI_TRB_TRANSFER_EVENT ? transfer_event(x, &e)
			   : type == XHCI_TRB_COMMAND_COMPLETION ? command_event(x, &e)
			   : true; /* port status changes: the port is read when it matters */
		if (!taken) {
			x->dropped++;
			xhci_trace_trb("dropped", at, &e);
		}
	}
	if (any)
		xhci_wr64(x->rt, XHCI_IR0 + XHCI_ERDP, xhci_evring_deq_phys(&x->ev) | XHCI_ERDP_EHB);
}

void xhci_doorbell(struct xhci *x, uint32_t slot, uint32_t target)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the TRBs before the doorbell */
	devio_write32(x->db, 4 * slot, target);
}

bool xhci_broken(struct xhci *x)
{
	return devio_read32(x->op, XHCI_USBSTS) & (XHCI_STS_HSE | XHCI_STS_HCE);
}

bool xhci_command_cc(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, uint32_t *cc,
		     const char *what)
{
	if (x->dead)
		return false; /* x->why says what stopped it */
	x->cmd_done = false;
	x->cmd_trb = xhci_push(&x->cmd, "cmd", param, 0, control);
	xhci_doorbell(x, 0, XHCI_DB_HOST);
	uint64_t end = tsc_deadline_ms(XHCI_CMD_MS);
	for (;;) {
		xhci_events(x);
		if (x->cmd_done)
			break;
		if (xhci_broken(x))
			return xhci_die(x, "%s command: the controller reports a host system or controller error", what);
		if (tsc_read() >= end)
			return xhci_die(x, "%s command: no answer within %u ms", what, XHCI_CMD_MS);
		cpu_pause();
	}
	x->cmd_trb = 0;
	*ev = x->cmd_ev;
	*cc = XHCI_EVT_CODE(ev->status);
	return true;
}

bool xhci_command(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, const char *what)
{
	uint32_t cc = 0;
	if (!xhci_command_cc(x, param, control, ev, &cc, what))
		return false;
	if (cc != XHCI_CC_SUCCESS)
		return xhci_fail(x, "%s command failed with completion code %u", what, cc);
	return true;
}
