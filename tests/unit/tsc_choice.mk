UNIT_TESTS += tsc_choice
tsc_choice_SRCS := tests/unit/test_tsc_choice.c kernel/tsc_choice.c kernel/cpuid_snap.c
