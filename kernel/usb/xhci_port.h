/* xhci_port.h - xHCI root ports (xHCI 1.2 §4.19, §5.4.8): which protocol each speaks and at what speed, from the Supported Protocol capabilities (§7.2) and their protocol speed IDs; connection, debounce, reset, and the warm reset a USB 3 port stuck in SS.Inactive or Compliance needs.
 *
 * Layer: usb (kernel/usb/usb.h). */
#ifndef QB_KERNEL_XHCI_PORT_H
#define QB_KERNEL_XHCI_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include "xhci.h"

#define XHCI_DEBOUNCE_MS 100          /* USB 2.0 §7.1.7.3 TATTDB: a connection stable this long (Linux HUB_DEBOUNCE_STABLE) */
#define XHCI_DEBOUNCE_STEP_MS 25      /* Linux HUB_DEBOUNCE_STEP */
#define XHCI_DEBOUNCE_MAX_MS 2000     /* Linux HUB_DEBOUNCE_TIMEOUT */
#define XHCI_RESET_RECOVERY_MS 10     /* USB 2.0 §7.1.7.5 TRSTRCY, after a reset */
#define XHCI_KBPS_LOW 1500            /* the USB 2 signalling rates (USB 2.0 §7.1.11) */
#define XHCI_KBPS_FULL 12000
#define XHCI_KBPS_HIGH 480000

/* Read the Supported Protocol capabilities in the first `span` bytes of the
 * registers into x->proto. */
void xhci_ports_init(struct xhci *x, uint32_t span);

/* The protocol root port `port` speaks, or NULL when no capability names it. */
const struct xhci_proto *xhci_port_proto(const struct xhci *x, uint8_t port);

/* What protocol speed ID psiv means on root port `port`: d->psiv, d->speed
 * (every SuperSpeed-family speed is XHCI_SPEED_SUPER) and d->kbps. False with
 * x->why when the port's protocol has no such ID. */
bool xhci_port_speed(struct xhci *x, uint8_t port, uint8_t psiv, struct xhci_dev *d);

/* True if a device is connected to root port `port`. */
bool xhci_port_connected(struct xhci *x, uint8_t port);

/* Wait for a connection on root port `port` to stay for XHCI_DEBOUNCE_MS,
 * reset the port (a USB 2 port always; a USB 3 port with a warm reset when
 * its link is stuck in SS.Inactive or Compliance, does not train, or
 * `again`: its device is being tried again), and set d's speed from it. */
bool xhci_root_port_reset(struct xhci *x, uint8_t port, struct xhci_dev *d, bool again);

#endif
