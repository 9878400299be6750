UNIT_TESTS += msr
msr_SRCS := tests/unit/test_msr.c kernel/arch/msr.c kernel/arch/extable.c kernel/lib/fmt.c kernel/arch/spinlock.c
