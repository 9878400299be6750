UNIT_TESTS += twin_smaps
twin_smaps_SRCS := tests/unit/test_twin_smaps.c tools/twin/smaps.c
twin_smaps_CFLAGS := -Itools/twin
