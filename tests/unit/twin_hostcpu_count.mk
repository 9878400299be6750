# unit: tools/twin/hostcpu_count.c
UNIT_TESTS += twin_hostcpu_count
twin_hostcpu_count_SRCS := tests/unit/test_twin_hostcpu_count.c tools/twin/hostcpu_count.c
twin_hostcpu_count_CFLAGS := -Itools/twin
