UNIT_TESTS += msr
msr_SRCS := tests/unit/test_msr.c kernel/arch/msr.c kernel/arch/extable.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/arch/spinlock.c
