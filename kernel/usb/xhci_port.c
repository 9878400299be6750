/* xhci_port.c - root ports: protocols, speeds, debounce and resets; see xhci_port.h. Section numbers are xHCI 1.2's. */
#include "xhci_port.h"
#include "cpu.h"
#include "devio.h"
#include "lib.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define PORT_MS 500                       /* a port's connection, reset, enable or link training */
#define POWER_MS 20                       /* after turning a port's power on (USB 2.0 §7.1.7.3 TATTDB covers the rest) */
#define XCAP_DWORD 4
#define PSIE_BPS 0                        /* the PSI mantissa's units (Table 7-9) */
#define PSIE_KBPS 1
#define PSIE_MBPS 2
#define PSIE_GBPS 3
#define KILO 1000
#define KBPS_SS 5000000                   /* SuperSpeed Gen 1 x1 */
#define KBPS_SSP_10G 10000000             /* Gen 2 x1, Gen 1 x2 */
#define KBPS_SSP_20G 20000000             /* Gen 2 x2 */
#define KBPS_MAX 0xffffffffu
#define USB3_MAJOR 3

/* The default speed IDs' rates (Table 7-13), kb/s, by PSIV. */
static const uint32_t default_kbps[] = {
	[XHCI_PSIV_FULL] = XHCI_KBPS_FULL, [XHCI_PSIV_LOW] = XHCI_KBPS_LOW, [XHCI_PSIV_HIGH] = XHCI_KBPS_HIGH,
	[XHCI_PSIV_SS] = KBPS_SS, [XHCI_PSIV_SSP_G2X1] = KBPS_SSP_10G, [XHCI_PSIV_SSP_G1X2] = KBPS_SSP_10G,
	[XHCI_PSIV_SSP_G2X2] = KBPS_SSP_20G,
};

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t rd32(volatile uint8_t *base, uint32_t off)
{
	return devio_read32(base, off);
}

static bool wait_port(struct xhci *x, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
	uint64_t end = tsc_deadline_ms(ms);
	for (;;) {
		if ((rd32(x->op, off) & mask) == want)
			return true;
		if (tsc_read() >= end)
			return false;
		cpu_pause();
	}
}

/* Write PORTSC keeping what it holds, except PED and the change bits, which
 * a 1 would clear (§5.4.8): set is what the write means to set or clear. */
static void port_write(struct xhci *x, uint32_t off, uint32_t set)
{
	uint32_t v = rd32(x->op, off);
	devio_write32(x->op, off, (v & ~(XHCI_PORT_PED | XHCI_PORT_CHANGES)) | set);
}

/* A PSI's rate in kb/s. */
static uint32_t psi_kbps(uint32_t psi)
{
	uint64_t m = XHCI_PSI_PSIM(psi), k;
	switch (XHCI_PSI_PSIE(psi)) {
	case PSIE_BPS: k = m / KILO; break;
	case PSIE_KBPS: k = m; break;
	case PSIE_MBPS: k = m * KILO; break;
	default: k = m * KILO * KILO; break;
	}
	return k > KBPS_MAX ? KBPS_MAX : (uint32_t)k;
}

/* USB 2.0 §7.1.7.3: the connection must stay for TATTDB before the reset,
 * sampled as Linux's hub_port_debounce does. */
static bool debounce(struct xhci *x, uint32_t off)
{
	uint32_t stable = 0;
	for (uint32_t t = 0; t <= XHCI_DEBOUNCE_MAX_MS; t += XHCI_DEBOUNCE_STEP_MS) {
		stable = rd32(x->op, off) & XHCI_PORT_CCS ? stable + XHCI_DEBOUNCE_STEP_MS : 0;
		if (stable > XHCI_DEBOUNCE_MS)
			return true;
		tsc_delay_us(XHCI_DEBOUNCE_STEP_MS * 1000);
	}
	return false;
}

/* A warm reset (§4.19.5): the only way out of SS.Inactive and Compliance. */
static bool warm_reset(struct xhci *x, uint8_t port, uint32_t off)
{
	port_write(x, off, XHCI_PORT_WPR);
	if (!wait_port(x, off, XHCI_PORT_WRC, XHCI_PORT_WRC, PORT_MS))
		return xhci_fail(x, "root port %u did not finish a warm reset within %u ms", port, PORT_MS);
	port_write(x, off, XHCI_PORT_WRC | XHCI_PORT_PRC);
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void xhci_ports_init(struct xhci *x, uint32_t span)
{
	uint32_t at = XHCI_HCC1_XECP(rd32(x->cap, XHCI_HCCPARAMS1)) * XCAP_DWORD;
	x->n_proto = 0;
	for (uint32_t n = 0; at && at + XHCI_PROTO_DW_PSI <= span && n < XHCI_XCAP_WALK_MAX; n++) {
		uint32_t v = rd32(x->cap, at);
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_PROTOCOL && x->n_proto < XHCI_PROTOS) {
			uint32_t ports = rd32(x->cap, at + XHCI_PROTO_DW_PORTS);
			struct xhci_proto *p = &x->proto[x->n_proto];
			p->major = (uint8_t)XHCI_PROTO_MAJOR(v);
			p->first = (uint8_t)XHCI_PROTO_PORT_OFF(ports);
			p->count = (uint8_t)XHCI_PROTO_PORT_COUNT(ports);
			p->psic = (uint8_t)XHCI_PROTO_PSIC(ports);
			p->psi_off = at + XHCI_PROTO_DW_PSI;
			if (p->psi_off + p->psic * XCAP_DWORD > span)
				p->psic = 0; /* past the registers mapped: the default IDs */
			x->n_proto++;
		}
		uint32_t next = XHCI_XCAP_NEXT(v) * XCAP_DWORD;
		at = next ? at + next : 0;
	}
}

const struct xhci_proto *xhci_port_proto(const struct xhci *x, uint8_t port)
{
	for (uint32_t i = 0; i < x->n_proto; i++) {
		const struct xhci_proto *p = &x->proto[i];
		if (port >= p->first && port < p->first + p->count)
			return p;
	}
	return 0;
}

bool xhci_port_speed(struct xhci *x, uint8_t port, uint8_t psiv, struct xhci_dev *d)
{
	const struct xhci_proto *p = xhci_port_proto(x, port);
	uint32_t kbps = 0;
	bool found = false;
	if (p && p->psic) {
		for (uint32_t i = 0; i < p->psic && !found; i++) {
			uint32_t psi = rd32(x->cap, p->psi_off + i * XCAP_DWORD);
			if (XHCI_PSI_PSIV(psi) == psiv && XHCI_PSI_PLT(psi) != XHCI_PSI_PLT_TX) {
				kbps = psi_kbps(psi);
				found = true;
			}
		}
	} else if (psiv && psiv < sizeof(default_kbps) / sizeof(default_kbps[0])) {
		kbps = default_kbps[psiv];
		found = true;
	}
	d->psiv = psiv;
	d->kbps = kbps;
	if (p && p->major >= USB3_MAJOR) {
		d->speed = XHCI_SPEED_SUPER; /* every speed of a USB 3.x port: Gen 1 or 2, one lane or two */
		return true;
	}
	if (!found)
		return xhci_fail(x, "root port %u reports speed ID %u, which its Supported Protocol capability does not list",
				 port, psiv);
	d->speed = kbps <= XHCI_KBPS_LOW ? XHCI_SPEED_LOW : kbps <= XHCI_KBPS_FULL ? XHCI_SPEED_FULL
		 : kbps <= XHCI_KBPS_HIGH ? XHCI_SPEED_HIGH : XHCI_SPEED_SUPER;
	return true;
}

bool xhci_port_connected(struct xhci *x, uint8_t port)
{
	return port && port <= x->max_ports && (rd32(x->op, XHCI_PORTSC(port)) & XHCI_PORT_CCS);
}

bool xhci_root_port_reset(struct xhci *x, uint8_t port, struct xhci_dev *d, bool again)
{
	if (!port || port > x->max_ports)
		return xhci_fail(x, "root port %u does not exist (the controller has %u)", port, x->max_ports);
	uint32_t off = XHCI_PORTSC(port);
	if (!(rd32(x->op, off) & XHCI_PORT_PP)) {
		port_write(x, off, XHCI_PORT_PP);
		tsc_delay_us(POWER_MS * 1000);
	}
	if (!wait_port(x, off, XHCI_PORT_CCS, XHCI_PORT_CCS, PORT_MS))
		return xhci_fail(x, "nothing is connected to root port %u", port);
	if (!debounce(x, off))
		return xhci_fail(x, "the connection on root port %u did not stay for %u ms", port, XHCI_DEBOUNCE_MS);
	const struct xhci_proto *p = xhci_port_proto(x, port);
	uint32_t v = rd32(x->op, off);
	if (p && p->major >= USB3_MAJOR) {
		/* A USB 3 port trains its link by itself (§4.19.1.2); one stuck in
		 * SS.Inactive or Compliance, or that does not come up, gets a warm
		 * reset (Linux hub_port_warm_reset_required), and so does one whose
		 * device is being tried again. */
		uint32_t pls = XHCI_PORT_PLS(v);
		bool stuck = pls == XHCI_PLS_INACTIVE || pls == XHCI_PLS_COMPLIANCE;
		if ((again || stuck || !wait_port(x, off, XHCI_PORT_PED, XHCI_PORT_PED, PORT_MS)) &&
		    !warm_reset(x, port, off))
			return false;
	} else {
		/* A USB 2 port is enabled by a reset (§4.3.1), every time: a device
		 * tried again may still hold the address it was given. */
		port_write(x, off, XHCI_PORT_PR);
		if (!wait_port(x, off, XHCI_PORT_PRC, XHCI_PORT_PRC, PORT_MS))
			return xhci_fail(x, "root port %u did not finish its reset within %u ms", port, PORT_MS);
		port_write(x, off, XHCI_PORT_PRC);
	}
	if (!wait_port(x, off, XHCI_PORT_PED, XHCI_PORT_PED, PORT_MS))
		return xhci_fail(x, "root port %u was not enabled after its reset (link state %u)", port,
				 XHCI_PORT_PLS(rd32(x->op, off)));
	if (!xhci_port_speed(x, port, (uint8_t)XHCI_PORT_SPEED(rd32(x->op, off)), d))
		return false;
	tsc_delay_us(XHCI_RESET_RECOVERY_MS * 1000);
	return true;
}
