/* xhci_ring.c - producer and event rings; see xhci_ring.h. */
#include "xhci_ring.h"

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t link_control(const struct xhci_ring *r, uint32_t chain)
{
	return XHCI_TRB_TYPE(XHCI_TRB_LINK) | XHCI_TRB_TC | (r->chain_links ? XHCI_TRB_CHAIN : chain);
}

/* ---- Public Functions ----------------------------------------------------- */
void xhci_ring_init(struct xhci_ring *r, struct xhci_trb *mem, uint64_t phys, uint32_t n, bool chain_links)
{
	r->trb = mem;
	r->phys = phys;
	r->n = n;
	r->enq = 0;
	r->cycle = 1;
	r->chain_links = chain_links;
	struct xhci_trb *link = &mem[n - 1];
	link->param = phys;
	link->status = 0;
	link->control = link_control(r, 0); /* cycle 0: not yet the controller's */
}

uint64_t xhci_ring_push(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control)
{
	struct xhci_trb *t = &r->trb[r->enq];
	uint64_t at = r->phys + (uint64_t)r->enq * sizeof(struct xhci_trb);
	t->param = param;
	t->status = status;
	__atomic_thread_fence(__ATOMIC_RELEASE); /* the cycle bit hands the TRB over: written last */
	t->control = (control & ~XHCI_TRB_CYCLE) | r->cycle;
	if (++r->enq == r->n - 1) {
		struct xhci_trb *link = &r->trb[r->n - 1];
		__atomic_thread_fence(__ATOMIC_RELEASE);
		link->control = link_control(r, control & XHCI_TRB_CHAIN) | r->cycle;
		r->enq = 0;
		r->cycle ^= 1;
	}
	return at;
}

uint64_t xhci_ring_deq_ptr(const struct xhci_ring *r)
{
	return (r->phys + (uint64_t)r->enq * sizeof(struct xhci_trb)) | r->cycle;
}

void xhci_evring_init(struct xhci_evring *e, const volatile struct xhci_trb *mem, uint64_t phys, uint32_t n)
{
	e->trb = mem;
	e->phys = phys;
	e->n = n;
	e->deq = 0;
	e->cycle = 1;
}

bool xhci_evring_next(struct xhci_evring *e, struct xhci_trb *out)
{
	const volatile struct xhci_trb *t = &e->trb[e->deq];
	uint32_t control = t->control;
	if ((control & XHCI_TRB_CYCLE) != e->cycle)
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the rest of the TRB after its cycle bit */
	out->param = t->param;
	out->status = t->status;
	out->control = control;
	if (++e->deq == e->n) {
		e->deq = 0;
		e->cycle ^= 1;
	}
	return true;
}

uint64_t xhci_evring_deq_phys(const struct xhci_evring *e)
{
	return e->phys + (uint64_t)e->deq * sizeof(struct xhci_trb);
}
