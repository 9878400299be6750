UNIT_TESTS += pmm
pmm_SRCS := tests/unit/test_pmm.c kernel/mm/pmm.c
