/* usb_enum.h - devices on the stick's controller, as Linux's hub driver and EDK2's UsbBusDxe bring them up: a port debounced and reset, the device addressed and left to settle, its EP0 packet size read, the whole tried again when a step fails; USB 2 hubs on the way (USB 2.0 §11.24), and configuration descriptors. Standard requests are USB 2.0 §9.4.
 *
 * Layer: usb (kernel/usb/usb.h). Control data goes through the stick's bounce buffer. */
#ifndef QB_KERNEL_USB_ENUM_H
#define QB_KERNEL_USB_ENUM_H

#include <stdbool.h>
#include <stdint.h>
#include "usb.h"

#define USB_ENUM_TRIES 4                 /* Linux hub_port_connect: PORT_INIT_TRIES */
#define USB_ENUM_RETRY_MS 100            /* between tries (Linux hub_port_init's msleep(100)) */
#define USB_SET_ADDRESS_SETTLE_MS 10     /* after SET_ADDRESS: Linux hub_port_init's msleep(10), "some device
					  * hardware wants it"; EDK2 UsbBusDxe waits USB 2.0 §9.2.6.3's 2 ms */
#define USB_CONFIG_MAX 512               /* bytes of configuration descriptor read */

/* Standard requests and descriptors (USB 2.0 §9.4, Tables 9-4, 9-5). */
#define USB_REQ_GET_STATUS 0
#define USB_REQ_CLEAR_FEATURE 1
#define USB_REQ_SET_FEATURE 3
#define USB_REQ_GET_DESCRIPTOR 6
#define USB_REQ_SET_CONFIGURATION 9
#define USB_RT_DEV_IN 0x80               /* standard, device, to host */
#define USB_RT_DEV_OUT 0x00
#define USB_RT_EP_OUT 0x02               /* standard, endpoint */
#define USB_RT_IFACE_CLASS_OUT 0x21      /* class, interface, to the device */
#define USB_DESC_DEVICE 1
#define USB_DESC_CONFIG 2
#define USB_DESC_INTERFACE 4
#define USB_DESC_ENDPOINT 5
#define USB_FEAT_ENDPOINT_HALT 0
#define USB_EP_DIR_IN 0x80
#define USB_EP_XFER_MASK 3               /* bmAttributes: the transfer type */
#define USB_EP_XFER_BULK 2
#define USB_EP_XFER_INTR 3
#define USB_EP_MPS_MASK 0x7ff            /* wMaxPacketSize: the size, without the extra transactions */

/* A control transfer on d's EP0, its data (len bytes) in the bounce buffer. */
bool usb_ctrl(struct usb_stick *s, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
	      uint16_t len, uint32_t *got);

/* Bring up the device on `port`: of the root hub when hub is NULL, else of
 * hub (which sits tier - 1 hubs below the root; configured by
 * usb_hub_open). Up to USB_ENUM_TRIES times: reset the port (debounced),
 * address the device, let the address settle, read the first 8 bytes of
 * its device descriptor and fix EP0's packet size; between tries the slot
 * is given back. False with s->why, prefixed by what. */
bool usb_enumerate(struct usb_stick *s, struct xhci_dev *d, struct xhci_dev *hub, uint8_t port, uint32_t tier,
		   const char *what);

/* Configure hub (addressed) as a USB 2 hub and power its port `port`. */
bool usb_hub_open(struct usb_stick *s, struct xhci_dev *hub, uint8_t port);

/* d's first configuration descriptor, whole, into the bounce buffer: *len
 * bytes, its bConfigurationValue in *value. */
bool usb_config_read(struct usb_stick *s, struct xhci_dev *d, uint32_t *len, uint8_t *value, const char *what);

/* SET_CONFIGURATION(value): after the controller's endpoints are configured. */
bool usb_set_config(struct usb_stick *s, struct xhci_dev *d, uint8_t value, const char *what);

/* CLEAR_FEATURE(ENDPOINT_HALT) to the device for ep, and the controller's
 * toggle for it with it (xhci_ep_reset_toggle). */
bool usb_clear_halt(struct usb_stick *s, struct xhci_dev *d, struct xhci_ep *ep);

/* s->why = what the format says; false. */
bool usb_fail(struct usb_stick *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s->why = "what: " and the controller's why; false. */
bool usb_xfail(struct usb_stick *s, const char *what);

#endif
