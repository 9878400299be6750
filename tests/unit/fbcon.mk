UNIT_TESTS += fbcon
fbcon_SRCS := tests/unit/test_fbcon.c kernel/console/fbcon.c kernel/console/fbcon_header.c kernel/console/fbcon_wrap.c kernel/console/fbcon_px.c kernel/lib/fmt.c kernel/lib/fmt_dec.c $(BUILD)/gen/fbcon_font.c kernel/arch/spinlock.c
