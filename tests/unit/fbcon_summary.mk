UNIT_TESTS += fbcon_summary
fbcon_summary_SRCS := tests/unit/test_fbcon_summary.c kernel/fbcon.c kernel/fbcon_px.c kernel/fmt.c $(BUILD)/gen/fbcon_font.c kernel/spinlock.c
