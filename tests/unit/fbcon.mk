UNIT_TESTS += fbcon
fbcon_SRCS := tests/unit/test_fbcon.c kernel/fbcon.c kernel/fbcon_px.c kernel/fmt.c $(BUILD)/gen/fbcon_font.c kernel/spinlock.c
