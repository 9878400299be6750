UNIT_TESTS += usb_trace
usb_trace_SRCS := tests/unit/test_usb_trace.c kernel/usb/xhci_ring.c kernel/usb/bot.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/lib.c
