UNIT_TESTS += usb_handoff
usb_handoff_SRCS := tests/unit/test_usb_handoff.c tests/unit/hc_model.c kernel/usb/usb_handoff.c kernel/usb/hc.c \
	kernel/usb/uhci.c kernel/usb/ohci.c kernel/usb/ehci.c kernel/usb/xhci_handoff.c \
	kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
