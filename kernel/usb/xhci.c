/* xhci.c - the polled xHCI driver's controller: taken, reset, started, stopped, halted when it stops answering; see xhci.h. Section numbers are xHCI 1.2's. */
#include "xhci.h"
#include "console.h"
#include "cpu.h"
#include "devio.h"
#include "fmt.h"
#include "lib.h"
#include "paging.h"
#include "pmm.h"
#include "pci_class.h"
#include "tsc.h"
#include "usb_handoff.h"
#include "xhci_cmd.h"
#include "xhci_handoff.h"
#include "xhci_port.h"

/* ---- Constants ------------------------------------------------------------ */
#define RING_TRBS (PMM_PAGE / sizeof(struct xhci_trb)) /* one page a ring */
#define BAR_SPAN 0x10000                  /* registers mapped: capability .. doorbells of 64 slots at least */
#define RESET_MS 1000
#define HALT_MS 16                        /* USBCMD R/S: halted within 16 ms of clearing it (§5.4.1) */
#define BELOW_4G (1ull << 32)
#define RTSOFF_MASK (~0x1fu)              /* §5.3.8: 32-byte aligned */
#define DBOFF_MASK (~0x3u)                /* §5.3.7: dword aligned */
#define IR0_SPAN 0x40                     /* interrupter 0's registers past RTSOFF */
#define XHCI_VERSION_095 0x0095           /* Linux XHCI_LINK_TRB_QUIRK: link TRBs always chained */

/* ---- Private Variables ---------------------------------------------------- */
static bool trace;                        /* dump=usb */

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t rd32(volatile uint8_t *base, uint32_t off)
{
	return devio_read32(base, off);
}

static void wr32(volatile uint8_t *base, uint32_t off, uint32_t v)
{
	devio_write32(base, off, v);
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

/* Halt, then reset (§4.2). */
static bool halt_and_reset(struct xhci *x)
{
	wr32(x->op, XHCI_USBCMD, rd32(x->op, XHCI_USBCMD) & ~XHCI_CMD_RS);
	if (!wait_reg(x->op, XHCI_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, RESET_MS))
		return xhci_fail(x, "the controller did not halt within %u ms", RESET_MS);
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_HCRST);
	if (!wait_reg(x->op, XHCI_USBCMD, XHCI_CMD_HCRST, 0, RESET_MS) ||
	    !wait_reg(x->op, XHCI_USBSTS, XHCI_STS_CNR, 0, RESET_MS))
		return xhci_fail(x, "the controller did not come out of reset within %u ms", RESET_MS);
	return true;
}

/* Map the registers and read what the capability registers say. */
static bool map(struct xhci *x, uint64_t bar)
{
	x->cap = paging_map_mmio(bar, BAR_SPAN);
	if (!x->cap)
		return xhci_fail(x, "its registers at 0x%llx cannot be mapped", (unsigned long long)bar);
	uint32_t caplen = rd32(x->cap, XHCI_CAPLENGTH);
	x->op = x->cap + (caplen & XHCI_CAPLENGTH_MASK);
	x->version = (uint16_t)XHCI_HCIVERSION(caplen);
	x->rt = x->cap + (rd32(x->cap, XHCI_RTSOFF) & RTSOFF_MASK);
	x->db = x->cap + (rd32(x->cap, XHCI_DBOFF) & DBOFF_MASK);
	uint32_t hcs1 = rd32(x->cap, XHCI_HCSPARAMS1), hcc1 = rd32(x->cap, XHCI_HCCPARAMS1);
	x->max_slots = XHCI_HCS1_MAX_SLOTS(hcs1);
	x->max_ports = XHCI_HCS1_MAX_PORTS(hcs1);
	x->ctx = hcc1 & XHCI_HCC1_CSZ ? 64 : 32;
	x->ac64 = hcc1 & XHCI_HCC1_AC64;
	x->chain_links = x->version == XHCI_VERSION_095;
	if (!x->max_slots || (uint64_t)(x->rt - x->cap) + IR0_SPAN > BAR_SPAN ||
	    (uint64_t)(x->db - x->cap) + 4 * (x->max_slots + 1) > BAR_SPAN)
		return xhci_fail(x, "its capability registers make no sense (slots %u, registers past 64 KiB)",
				 x->max_slots);
	xhci_ports_init(x, BAR_SPAN);
	return true;
}

/* The rings, the device context array and the scratchpad (§4.2). */
static bool rings(struct xhci *x)
{
	x->dcbaa = xhci_dma(x, PMM_PAGE);
	struct xhci_trb *cmd = xhci_dma(x, PMM_PAGE), *ev = xhci_dma(x, PMM_PAGE);
	struct xhci_erst_entry *erst = xhci_dma(x, PMM_PAGE);
	if (!x->dcbaa || !cmd || !ev || !erst)
		return xhci_fail(x, "no memory below 4 GiB for its rings");
	uint32_t scratch = XHCI_HCS2_MAX_SCRATCH(rd32(x->cap, XHCI_HCSPARAMS2));
	if (scratch) {
		uint64_t *arr = xhci_dma(x, scratch * sizeof(uint64_t));
		if (!arr)
			return xhci_fail(x, "no memory for its %u scratchpad pages", scratch);
		for (uint32_t i = 0; i < scratch; i++) {
			void *pg = xhci_dma(x, PMM_PAGE);
			if (!pg)
				return xhci_fail(x, "no memory for its %u scratchpad pages", scratch);
			arr[i] = xhci_phys(pg);
		}
		x->dcbaa[0] = xhci_phys(arr);
	}
	uint32_t slots = x->max_slots < XHCI_MAX_SLOTS ? x->max_slots : XHCI_MAX_SLOTS;
	wr32(x->op, XHCI_CONFIG, (rd32(x->op, XHCI_CONFIG) & ~XHCI_CONFIG_SLOTS_MASK) | slots);
	xhci_wr64(x->op, XHCI_DCBAAP, xhci_phys(x->dcbaa));
	xhci_ring_init(&x->cmd, cmd, xhci_phys(cmd), RING_TRBS, x->chain_links);
	xhci_wr64(x->op, XHCI_CRCR, xhci_ring_deq_ptr(&x->cmd));
	xhci_evring_init(&x->ev, ev, xhci_phys(ev), RING_TRBS);
	erst->base = xhci_phys(ev);
	erst->size = RING_TRBS;
	wr32(x->rt, XHCI_IR0 + XHCI_ERSTSZ, 1);
	xhci_wr64(x->rt, XHCI_IR0 + XHCI_ERDP, xhci_phys(ev));
	xhci_wr64(x->rt, XHCI_IR0 + XHCI_ERSTBA, xhci_phys(erst));
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void xhci_set_trace(bool on)
{
	trace = on;
}

void xhci_trace_trb(const char *dir, uint64_t at, const struct xhci_trb *t)
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

uint64_t xhci_push(struct xhci_ring *ring, const char *dir, uint64_t param, uint32_t status, uint32_t control)
{
	uint32_t cycle = ring->cycle;
	uint64_t at = xhci_ring_push(ring, param, status, control);
	struct xhci_trb t = { param, status, (control & ~XHCI_TRB_CYCLE) | cycle };
	xhci_trace_trb(dir, at, &t);
	return at;
}

bool xhci_fail(struct xhci *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	return false;
}

bool xhci_die(struct xhci *x, const char *fmt, ...)
{
	char what[XHCI_WHY_LEN];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* A halted controller reads and writes no memory (§4.2): whatever it
	 * was given is safe to use again. */
	wr32(x->op, XHCI_USBCMD, rd32(x->op, XHCI_USBCMD) & ~XHCI_CMD_RS);
	bool halted = wait_reg(x->op, XHCI_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, HALT_MS);
	x->dead = true;
	return xhci_fail(x, "%s; the controller was %s", what,
			 halted ? "halted" : "told to halt and did not within 16 ms");
}

void xhci_wr64(volatile uint8_t *base, uint32_t off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
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

bool xhci_ep_ring(struct xhci *x, struct xhci_ep *ep)
{
	struct xhci_trb *t = xhci_dma(x, PMM_PAGE);
	if (!t)
		return xhci_fail(x, "no memory for a transfer ring");
	xhci_ring_init(&ep->ring, t, xhci_phys(t), RING_TRBS, x->chain_links);
	ep->n_td = 0;
	return true;
}

bool xhci_start(struct xhci *x, struct pci_addr a)
{
	memset(x, 0, sizeof(*x));
	x->pci = a;
	x->handoff = "not reached";
	if (!pci_present(a))
		return xhci_fail(x, "no PCI function at %04x:%02x:%02x.%x", a.segment, a.bus, a.dev, a.fn);
	if (pci_class(a) != PCI_CLASS_USB_XHCI)
		return xhci_fail(x, "the controller is %s, not an xHCI", pci_usb_hc_a_name(pci_class(a)));
	uint64_t bar = pci_bar_mem(a, PCI_BAR0);
	if (!bar)
		return xhci_fail(x, "the controller has no memory BAR");
	pci_write32(a, PCI_COMMAND, (pci_read32(a, PCI_COMMAND) & 0xffff) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
					 PCI_COMMAND_INTX_DISABLE);
	if (!map(x, bar))
		return false;
	handoff(x);
	if (!halt_and_reset(x) || !rings(x))
		return false;
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_RS); /* no INTE: polled */
	if (!wait_reg(x->op, XHCI_USBSTS, XHCI_STS_HCH, 0, RESET_MS))
		return xhci_fail(x, "the controller did not start within %u ms", RESET_MS);
	struct xhci_trb e;
	return xhci_command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_NOOP_CMD), &e, "no-op");
}

bool xhci_stop(struct xhci *x)
{
	if (!x->op)
		return true;
	x->dead = true;
	return halt_and_reset(x);
}
