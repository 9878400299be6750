UNIT_TESTS += options
options_SRCS := tests/unit/test_options.c kernel/run/options.c kernel/run/options_table.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
