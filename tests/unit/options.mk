UNIT_TESTS += options
options_SRCS := tests/unit/test_options.c kernel/options.c kernel/fmt.c
