/* usb_enum.c - devices and hubs on the stick's controller; see usb_enum.h. Hub requests are USB 2.0 §11.24. */
#include "usb_enum.h"
#include "fmt.h"
#include "lib.h"
#include "tsc.h"
#include "xhci_dev.h"
#include "xhci_port.h"
#include "xhci_xfer.h"

/* ---- Constants ------------------------------------------------------------ */
#define RT_HUB_IN 0xa0                    /* class, device (the hub), to host */
#define RT_PORT_IN 0xa3                   /* class, other (a port), to host */
#define RT_PORT_OUT 0x23
#define DESC_HUB 0x29
#define HUB_DESC_LEN 8                    /* read of the hub descriptor: up to its first port bitmap byte */
#define HUB_DESC_MIN 7
#define HUB_DESC_NPORTS 2                 /* bNbrPorts (§11.23.2.1) */
#define HUB_DESC_PWR_ON 5                 /* bPwrOn2PwrGood, in 2 ms units */
#define HUB_PORT_POWER 8                  /* port features (§11.24.2, Table 11-17) */
#define HUB_PORT_RESET 4
#define HUB_C_PORT_RESET 20
#define HUB_ST_CONNECTION (1u << 0)       /* wPortStatus (§11.24.2.7.1) */
#define HUB_ST_ENABLE (1u << 1)
#define HUB_ST_LOW_SPEED (1u << 9)
#define HUB_ST_HIGH_SPEED (1u << 10)
#define HUB_CH_RESET (1u << (16 + 4))     /* wPortChange: C_PORT_RESET */
#define HUB_STATUS_LEN 4
#define HUB_PORT_MS 500                   /* a hub port's reset */
#define HUB_POLL_MS 10
#define HUB_POWER_EXTRA_MS 20             /* on top of bPwrOn2PwrGood */
#define DEV_DESC_HEAD 8                   /* the device descriptor up to bMaxPacketSize0 */
#define DEV_DESC_MPS0 7
#define MPS0_SUPER_MASK 0xf               /* USB 3: bMaxPacketSize0 is an exponent */
#define CONFIG_HEAD 9
#define CONFIG_TOTAL 2                    /* wTotalLength */
#define CONFIG_VALUE 5                    /* bConfigurationValue */

/* ---- Private Functions ---------------------------------------------------- */
static bool hub_port_status(struct usb_stick *s, struct xhci_dev *hub, uint8_t port, uint32_t *st)
{
	uint32_t got = 0;
	if (!usb_ctrl(s, hub, RT_PORT_IN, USB_REQ_GET_STATUS, 0, port, HUB_STATUS_LEN, &got) || got < HUB_STATUS_LEN)
		return false;
	*st = (uint32_t)s->bounce[0] | (uint32_t)s->bounce[1] << 8 | (uint32_t)s->bounce[2] << 16 |
	      (uint32_t)s->bounce[3] << 24;
	return true;
}

/* Debounce port `port` of hub (USB 2.0 §7.1.7.3, as Linux's
 * hub_port_debounce), reset it and give the speed there. */
static bool hub_port_reset(struct usb_stick *s, struct xhci_dev *hub, uint8_t port, struct xhci_dev *d)
{
	uint32_t st = 0, stable = 0;
	for (uint32_t t = 0; stable <= XHCI_DEBOUNCE_MS; t += XHCI_DEBOUNCE_STEP_MS) {
		if (t > XHCI_DEBOUNCE_MAX_MS)
			return usb_fail(s, "nothing stayed connected to port %u of the hub for %u ms", port,
					XHCI_DEBOUNCE_MS);
		if (!hub_port_status(s, hub, port, &st))
			return usb_xfail(s, "hub port status");
		stable = st & HUB_ST_CONNECTION ? stable + XHCI_DEBOUNCE_STEP_MS : 0;
		tsc_delay_us(XHCI_DEBOUNCE_STEP_MS * 1000);
	}
	if (!usb_ctrl(s, hub, RT_PORT_OUT, USB_REQ_SET_FEATURE, HUB_PORT_RESET, port, 0, 0))
		return usb_xfail(s, "hub port reset");
	uint64_t end = tsc_deadline_ms(HUB_PORT_MS);
	do {
		tsc_delay_us(HUB_POLL_MS * 1000);
		if (!hub_port_status(s, hub, port, &st))
			return usb_xfail(s, "hub port status");
	} while ((!(st & HUB_CH_RESET) || !(st & HUB_ST_ENABLE)) && tsc_read() < end);
	if (!(st & HUB_ST_ENABLE))
		return usb_fail(s, "port %u of the hub was not enabled within %u ms of its reset", port, HUB_PORT_MS);
	usb_ctrl(s, hub, RT_PORT_OUT, USB_REQ_CLEAR_FEATURE, HUB_C_PORT_RESET, port, 0, 0);
	d->speed = st & HUB_ST_LOW_SPEED ? XHCI_SPEED_LOW : st & HUB_ST_HIGH_SPEED ? XHCI_SPEED_HIGH : XHCI_SPEED_FULL;
	d->psiv = d->speed == XHCI_SPEED_LOW ? XHCI_PSIV_LOW : d->speed == XHCI_SPEED_HIGH ? XHCI_PSIV_HIGH
										      : XHCI_PSIV_FULL;
	d->kbps = d->speed == XHCI_SPEED_LOW ? XHCI_KBPS_LOW : d->speed == XHCI_SPEED_HIGH ? XHCI_KBPS_HIGH
										  : XHCI_KBPS_FULL;
	tsc_delay_us(XHCI_RESET_RECOVERY_MS * 1000);
	return true;
}

/* Where d hangs: its root port, route string and transaction translator. */
static void place(struct xhci_dev *d, struct xhci_dev *hub, uint8_t port, uint32_t tier)
{
	if (!hub) {
		d->root_port = port;
		return;
	}
	d->root_port = hub->root_port;
	d->route = xhci_route(hub->route, tier, port);
	/* A full- or low-speed device below a high-speed hub goes through
	 * that hub's transaction translator (xHCI §6.2.2, USB 2.0 §11.14). */
	bool split = d->speed == XHCI_SPEED_FULL || d->speed == XHCI_SPEED_LOW;
	d->tt_slot = split ? (hub->speed == XHCI_SPEED_HIGH ? hub->slot : hub->tt_slot) : 0;
	d->tt_port = split ? (hub->speed == XHCI_SPEED_HIGH ? port : hub->tt_port) : 0;
}

/* One try: reset, address, settle, EP0's packet size. */
static bool try_once(struct usb_stick *s, struct xhci_dev *d, struct xhci_dev *hub, uint8_t port, uint32_t tier,
		     bool again)
{
	uint32_t got = 0;
	if (hub ? !hub_port_reset(s, hub, port, d) : !xhci_root_port_reset(&s->x, port, d, again))
		return hub ? false : usb_xfail(s, "root port");
	place(d, hub, port, tier);
	if (!xhci_dev_address(&s->x, d))
		return usb_xfail(s, "address");
	tsc_delay_us(USB_SET_ADDRESS_SETTLE_MS * 1000);
	if (!usb_ctrl(s, d, USB_RT_DEV_IN, USB_REQ_GET_DESCRIPTOR, USB_DESC_DEVICE << 8, 0, DEV_DESC_HEAD, &got))
		return usb_xfail(s, "device descriptor");
	if (got < DEV_DESC_HEAD)
		return usb_fail(s, "device descriptor: %u bytes of 8", got);
	uint8_t m = s->bounce[DEV_DESC_MPS0];
	uint16_t mps = d->speed == XHCI_SPEED_SUPER ? (uint16_t)(1u << (m & MPS0_SUPER_MASK)) : m;
	if (mps != d->mps0 && d->speed != XHCI_SPEED_SUPER && !xhci_dev_set_mps0(&s->x, d, mps))
		return usb_xfail(s, "EP0's packet size");
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
bool usb_fail(struct usb_stick *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return false;
}

bool usb_xfail(struct usb_stick *s, const char *what)
{
	return usb_fail(s, "%s: %s", what, s->x.why);
}

bool usb_ctrl(struct usb_stick *s, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
	      uint16_t len, uint32_t *got)
{
	return xhci_control(&s->x, d, type, req, value, index, len ? s->bounce : 0, len, got);
}

bool usb_enumerate(struct usb_stick *s, struct xhci_dev *d, struct xhci_dev *hub, uint8_t port, uint32_t tier,
		   const char *what)
{
	char last[USB_WHY_LEN];
	uint32_t n = 0;
	while (n < USB_ENUM_TRIES && !s->x.dead) {
		if (n++) {
			xhci_dev_disable(&s->x, d);
			tsc_delay_us(USB_ENUM_RETRY_MS * 1000);
		}
		if (try_once(s, d, hub, port, tier, n > 1))
			return true;
	}
	memcpy(last, s->why, sizeof(last));
	return usb_fail(s, "%s: %s (tried %u time%s)", what, last, n, n == 1 ? "" : "s");
}

bool usb_hub_open(struct usb_stick *s, struct xhci_dev *hub, uint8_t port)
{
	uint32_t got = 0;
	uint8_t value = 0;
	if (hub->speed == XHCI_SPEED_SUPER)
		return usb_fail(s, "a USB 3 hub is on the way to the stick: not supported (plug it into a USB 2 port or hub)");
	if (!usb_config_read(s, hub, &got, &value, "hub configuration") ||
	    !usb_set_config(s, hub, value, "hub configuration"))
		return false;
	if (!usb_ctrl(s, hub, RT_HUB_IN, USB_REQ_GET_DESCRIPTOR, DESC_HUB << 8, 0, HUB_DESC_LEN, &got) ||
	    got < HUB_DESC_MIN)
		return usb_xfail(s, "hub descriptor");
	uint8_t nports = s->bounce[HUB_DESC_NPORTS];
	uint32_t pwr_ms = s->bounce[HUB_DESC_PWR_ON] * 2u;
	if (port > nports)
		return usb_fail(s, "the hub has %u ports, the stick was on port %u", nports, port);
	if (!xhci_dev_set_hub(&s->x, hub, nports) ||
	    !usb_ctrl(s, hub, RT_PORT_OUT, USB_REQ_SET_FEATURE, HUB_PORT_POWER, port, 0, 0))
		return usb_xfail(s, "hub port power");
	tsc_delay_us((pwr_ms + HUB_POWER_EXTRA_MS) * 1000);
	return true;
}

bool usb_config_read(struct usb_stick *s, struct xhci_dev *d, uint32_t *len, uint8_t *value, const char *what)
{
	if (!usb_ctrl(s, d, USB_RT_DEV_IN, USB_REQ_GET_DESCRIPTOR, USB_DESC_CONFIG << 8, 0, CONFIG_HEAD, len))
		return usb_xfail(s, what);
	if (*len < CONFIG_HEAD)
		return usb_fail(s, "%s: its configuration descriptor is %u bytes", what, *len);
	uint16_t total = (uint16_t)(s->bounce[CONFIG_TOTAL] | s->bounce[CONFIG_TOTAL + 1] << 8);
	*value = s->bounce[CONFIG_VALUE];
	if (total > USB_CONFIG_MAX)
		total = USB_CONFIG_MAX;
	if (!usb_ctrl(s, d, USB_RT_DEV_IN, USB_REQ_GET_DESCRIPTOR, USB_DESC_CONFIG << 8, 0, total, len))
		return usb_xfail(s, what);
	return true;
}

bool usb_set_config(struct usb_stick *s, struct xhci_dev *d, uint8_t value, const char *what)
{
	return usb_ctrl(s, d, USB_RT_DEV_OUT, USB_REQ_SET_CONFIGURATION, value, 0, 0, 0) || usb_xfail(s, what);
}

bool usb_clear_halt(struct usb_stick *s, struct xhci_dev *d, struct xhci_ep *ep)
{
	return usb_ctrl(s, d, USB_RT_EP_OUT, USB_REQ_CLEAR_FEATURE, USB_FEAT_ENDPOINT_HALT, ep->addr, 0, 0) &&
	       xhci_ep_reset_toggle(&s->x, d, ep);
}
