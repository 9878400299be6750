UNIT_TESTS += fmt
fmt_SRCS := tests/unit/test_fmt.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
