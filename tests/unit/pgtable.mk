UNIT_TESTS += pgtable
pgtable_SRCS := tests/unit/test_pgtable.c kernel/mm/pgtable.c
