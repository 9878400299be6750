UNIT_TESTS += options_keys
options_keys_SRCS := tests/unit/test_options_keys.c kernel/run/options.c kernel/run/options_table.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
