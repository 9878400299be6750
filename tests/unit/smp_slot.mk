UNIT_TESTS += smp_slot
smp_slot_SRCS := tests/unit/test_smp_slot.c kernel/run/smp_slot.c
