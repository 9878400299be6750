UNIT_TESTS += mtrr
mtrr_SRCS := tests/unit/test_mtrr.c kernel/mm/mtrr.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
