UNIT_TESTS += msr
msr_SRCS := tests/unit/test_msr.c kernel/msr.c kernel/extable.c kernel/fmt.c kernel/spinlock.c
