UNIT_TESTS += usb_xhci
usb_xhci_SRCS := tests/unit/test_usb_xhci.c tests/unit/xhci_model.c tests/unit/xhci_model_dev.c \
	kernel/usb/xhci.c kernel/usb/xhci_cmd.c kernel/usb/xhci_port.c kernel/usb/xhci_dev.c kernel/usb/xhci_xfer.c \
	kernel/usb/xhci_ring.c kernel/usb/usb.c kernel/usb/usb_enum.c kernel/usb/bot.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
