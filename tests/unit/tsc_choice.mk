UNIT_TESTS += tsc_choice
tsc_choice_SRCS := tests/unit/test_tsc_choice.c kernel/measure/tsc_choice.c kernel/arch/cpuid_snap.c
