/* xhci_ring.h - xHCI rings as the software sees them (xHCI 1.2 §4.9): a producer ring (command or transfer ring: one segment closed by a link TRB that toggles the cycle) and the consumer side of an event ring. Plain C over memory given to it: the host tests run it against recorded events. */
#ifndef QB_KERNEL_XHCI_RING_H
#define QB_KERNEL_XHCI_RING_H

#include <stdbool.h>
#include <stdint.h>
#include "xhci_regs.h"

/* A command or transfer ring: n TRBs, the last a link back to the first. */
struct xhci_ring {
	struct xhci_trb *trb;
	uint64_t phys;          /* the controller's address of trb[0] */
	uint32_t n;
	uint32_t enq;           /* the next TRB the software writes */
	uint32_t cycle;         /* the producer cycle state, 0 or 1 */
	bool chain_links;       /* every link TRB chained (xHCI 0.95 controllers: Linux's XHCI_LINK_TRB_QUIRK) */
};

/* Take n (at least 2) zeroed TRBs at mem (the controller sees them at phys).
 * chain_links: see struct xhci_ring. */
void xhci_ring_init(struct xhci_ring *r, struct xhci_trb *mem, uint64_t phys, uint32_t n, bool chain_links);

/* Write one TRB (control without the cycle bit, which is added last) and
 * return the controller's address of it. At the end of the segment the
 * link TRB is handed over and the cycle toggles; the link carries the
 * Chain bit of the TRB before it, so that a TD that goes on past the end
 * stays one TD (xHCI 4.11.5.1, Linux inc_enq), or always with chain_links. */
uint64_t xhci_ring_push(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control);

/* The address of the next TRB to be written, with the cycle state in bit 0
 * (as CRCR and a TR dequeue pointer want it). */
uint64_t xhci_ring_deq_ptr(const struct xhci_ring *r);

/* The consumer side of a one-segment event ring. */
struct xhci_evring {
	const volatile struct xhci_trb *trb;
	uint64_t phys;
	uint32_t n;
	uint32_t deq;           /* the next TRB the software reads */
	uint32_t cycle;         /* the consumer cycle state: an event is new when its cycle bit equals it */
};

void xhci_evring_init(struct xhci_evring *e, const volatile struct xhci_trb *mem, uint64_t phys, uint32_t n);

/* Copy the next event into *out and advance; false if the controller has not written it yet. */
bool xhci_evring_next(struct xhci_evring *e, struct xhci_trb *out);

/* The controller's address of the next event to be read, for ERDP. */
uint64_t xhci_evring_deq_phys(const struct xhci_evring *e);

#endif
