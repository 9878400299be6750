UNIT_TESTS += mtrr
mtrr_SRCS := tests/unit/test_mtrr.c kernel/mtrr.c kernel/fmt.c
