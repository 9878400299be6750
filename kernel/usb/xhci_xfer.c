/* xhci_xfer.c - control, bulk and interrupt transfers, bounded; see xhci_xfer.h. Section numbers are xHCI 1.2's. */
#include "xhci_xfer.h"
#include "cpu.h"
#include "fmt.h"
#include "lib.h"
#include "tsc.h"
#include "xhci_cmd.h"
#include "xhci_dev.h"

/* ---- Constants ------------------------------------------------------------ */
#define CTRL_SETUP_LEN 8
#define MAX_BULK (64u * 1024)             /* one TRB's buffer (§6.4.1.1: 17 bits, never across 64 KiB) */
#define REQ_DIR_IN 0x80                   /* bmRequestType: to the host */
#define SETUP_REQ_SHIFT 8                 /* the setup packet's fields in the TRB's parameter (§6.4.1.2.1) */
#define SETUP_VALUE_SHIFT 16
#define SETUP_INDEX_SHIFT 32
#define SETUP_LENGTH_SHIFT 48

/* ---- Private Functions ---------------------------------------------------- */
static void td_begin(struct xhci_ep *ep)
{
	ep->n_td = 0;
	ep->done = false;
	ep->cc = 0;
	ep->left = 0;
	ep->short_trb = 0;
	ep->short_left = 0;
}

static void td_add(struct xhci_ep *ep, uint64_t trb)
{
	if (ep->n_td < XHCI_TD_TRBS)
		ep->td[ep->n_td++] = trb;
}

/* Wait for ep's transfer to end, until end (TSC); false when it did not. */
static bool wait_td(struct xhci *x, struct xhci_ep *ep, uint64_t end)
{
	for (;;) {
		xhci_events(x);
		if (ep->done)
			return true;
		if (x->dead)
			return false;
		if (xhci_broken(x))
			return xhci_die(x, "the controller reports a host system or controller error");
		if (tsc_read() >= end)
			return false;
		cpu_pause();
	}
}

/* No answer in time: forget the transfer (its late event is dropped from
 * now on), stop the endpoint and move its ring past it, so that neither
 * the ring nor the buffer is touched again by it. */
static bool give_up(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, const char *what, uint64_t ms,
		    bool budget)
{
	char why[XHCI_WHY_LEN];
	if (x->dead)
		return false;
	ep->n_td = 0;
	if (!xhci_ep_recover(x, d, ep, true)) {
		memcpy(why, x->why, sizeof(why));
		return xhci_fail(x, "%s: no answer within %llu ms; %s", what, (unsigned long long)ms, why);
	}
	return xhci_fail(x, "%s: no answer within %llu ms%s", what, (unsigned long long)ms,
			 budget ? " (what was left of the run's time budget)" : "");
}

/* It ended with an error: bring the endpoint back if the error halted it. */
static bool failed(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, const char *what)
{
	char why[XHCI_WHY_LEN];
	uint32_t cc = ep->cc;
	if (!xhci_ep_recover(x, d, ep, false)) {
		memcpy(why, x->why, sizeof(why));
		return xhci_fail(x, "%s failed with completion code %u; %s", what, cc, why);
	}
	if (cc == XHCI_CC_STALL)
		return xhci_fail(x, "the device stalled %s", what);
	return xhci_fail(x, "%s failed with completion code %u", what, cc);
}

/* When a bulk stage must end: XHCI_BULK_MS from now, sooner if the run's
 * budget ends sooner, but never sooner than XHCI_BULK_FLOOR_MS. */
static uint64_t bulk_end(struct xhci *x, uint64_t *ms, bool *budget)
{
	uint64_t now = tsc_read(), end = tsc_deadline_ms(XHCI_BULK_MS), floor = tsc_deadline_ms(XHCI_BULK_FLOOR_MS);
	*ms = XHCI_BULK_MS;
	*budget = false;
	if (x->bulk_deadline) {
		uint64_t by = x->bulk_deadline > floor ? x->bulk_deadline : floor;
		if (by < end) {
			end = by;
			*ms = tsc_to_us(end - now) / 1000;
			*budget = true;
		}
	}
	return end;
}

/* ---- Public Functions ----------------------------------------------------- */
bool xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		  void *buf, uint16_t len, uint32_t *got)
{
	struct xhci_ep *ep = &d->ep0;
	char what[32];
	bool in = type & REQ_DIR_IN;
	if (x->dead)
		return false;
	fmt_snprintf(what, sizeof(what), "control request 0x%02x", req);
	uint64_t setup = type | (uint64_t)req << SETUP_REQ_SHIFT | (uint64_t)value << SETUP_VALUE_SHIFT |
			 (uint64_t)index << SETUP_INDEX_SHIFT | (uint64_t)len << SETUP_LENGTH_SHIFT;
	uint32_t trt = !len ? XHCI_TRT_NO_DATA : in ? XHCI_TRT_IN : XHCI_TRT_OUT;
	td_begin(ep);
	td_add(ep, xhci_push(&ep->ring, "xfer", setup, CTRL_SETUP_LEN,
			     XHCI_TRB_TYPE(XHCI_TRB_SETUP) | XHCI_TRB_IDT | XHCI_TRB_TRT(trt)));
	if (len)
		td_add(ep, xhci_push(&ep->ring, "xfer", xhci_phys(buf), len,
				     XHCI_TRB_TYPE(XHCI_TRB_DATA) | (in ? XHCI_TRB_DIR_IN : 0) | XHCI_TRB_ISP));
	/* The status stage goes the other way from the data (§4.11.2.2). */
	td_add(ep, xhci_push(&ep->ring, "xfer", 0, 0,
			     XHCI_TRB_TYPE(XHCI_TRB_STATUS) | XHCI_TRB_IOC | (len && in ? 0 : XHCI_TRB_DIR_IN)));
	xhci_doorbell(x, d->slot, ep->dci);
	if (!wait_td(x, ep, tsc_deadline_ms(XHCI_CTRL_MS)))
		return give_up(x, d, ep, what, XHCI_CTRL_MS, false);
	if (ep->cc != XHCI_CC_SUCCESS)
		return failed(x, d, ep, what);
	uint32_t moved = len;
	if (len && ep->short_trb == ep->td[1]) /* a short data stage ended with its own event */
		moved = len - (ep->short_left < len ? ep->short_left : len);
	ep->n_td = 0;
	if (got)
		*got = moved;
	return true;
}

bool xhci_bulk_xfer(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *got,
		    uint32_t *code)
{
	struct xhci_ep *ep = in ? &d->in : &d->out;
	uint64_t ms = 0;
	bool budget = false;
	*code = XHCI_CC_TIMEOUT;
	*got = 0;
	if (x->dead)
		return false;
	if (!ep->dci || len > MAX_BULK)
		return xhci_fail(x, "bulk transfer of %u bytes on an endpoint that is not configured", len);
	td_begin(ep);
	td_add(ep, xhci_push(&ep->ring, "xfer", xhci_phys(buf), len,
			     XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC | XHCI_TRB_ISP));
	xhci_doorbell(x, d->slot, ep->dci);
	uint64_t end = bulk_end(x, &ms, &budget);
	if (!wait_td(x, ep, end))
		return give_up(x, d, ep, in ? "a bulk in transfer" : "a bulk out transfer", ms, budget);
	*code = ep->cc;
	if (ep->cc != XHCI_CC_SUCCESS && ep->cc != XHCI_CC_SHORT_PACKET)
		return failed(x, d, ep, in ? "a bulk in transfer" : "a bulk out transfer");
	/* What did not move, as the event says, whatever the completion code
	 * (a success that reports bytes left is a short transfer: Linux
	 * process_bulk_intr_td). */
	*got = len - (ep->left < len ? ep->left : len);
	ep->n_td = 0;
	return true;
}

bool xhci_queue_in(struct xhci *x, struct xhci_dev *d, void *buf, uint32_t len)
{
	struct xhci_ep *ep = &d->in;
	if (x->dead || !ep->dci || (ep->n_td && !ep->done))
		return false;
	td_begin(ep);
	td_add(ep, xhci_push(&ep->ring, "xfer", xhci_phys(buf), len,
			     XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC | XHCI_TRB_ISP));
	xhci_doorbell(x, d->slot, ep->dci);
	return true;
}

int xhci_poll_in(struct xhci *x, struct xhci_dev *d, uint32_t len, uint32_t *got)
{
	struct xhci_ep *ep = &d->in;
	if (!ep->n_td)
		return -1;
	xhci_events(x);
	if (!ep->done)
		return x->dead ? -1 : 0;
	if (ep->cc != XHCI_CC_SUCCESS && ep->cc != XHCI_CC_SHORT_PACKET) {
		xhci_ep_recover(x, d, ep, false);
		return -1;
	}
	*got = len - (ep->left < len ? ep->left : len);
	ep->n_td = 0;
	return 1;
}
