/* usb_handoff.h - every USB host controller on the bus taken from the firmware at start-up, on every boot path, before the TSC is calibrated and before any workload (Linux drivers/usb/host/pci-quirks.c, quirk_usb_early_handoff): UHCI, OHCI, EHCI and xHCI by PCI class, so that the firmware's SMM code no longer runs on their events (a moved mouse) while QuietBench measures.
 *
 * Layer: usb (kernel/usb/usb.h). The reference clock (timer_init) must be
 * chosen first: every wait is bounded by it. */
#ifndef QB_KERNEL_USB_HANDOFF_H
#define QB_KERNEL_USB_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "hc.h"
#include "record.h"

#define USB_HANDOFF_MAX 32             /* controllers kept; more are counted, and still taken */

/* Walk PCI segment 0 and take each USB host controller from the firmware,
 * in bus order; a text line for each. bsp: the BSP's CPUID (IA32_SMI_COUNT
 * is read around each handoff where the CPU has one). Call once. */
void usb_handoff_all(const struct cpuid_snap *bsp);

/* What the handoff did to the controller at a, or NULL if it was not taken
 * (not a USB host controller, or the walk has not run). */
const struct hc_handoff *usb_handoff_find(struct pci_addr a);

/* The `usb_controllers` list of the `state` record (docs/records.md). */
void usb_handoff_rec(struct rec *r);

/* Put back the Intel port routing the handoff changed, before
 * finish=reboot|poweroff hands the machine back to the firmware. */
void usb_handoff_restore_routing(void);

#endif
