UNIT_TESTS += usb_bot
usb_bot_SRCS := tests/unit/test_usb_bot.c kernel/usb/usb.c kernel/usb/usb_enum.c kernel/usb/bot.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
