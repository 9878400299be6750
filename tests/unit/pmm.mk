UNIT_TESTS += pmm
pmm_SRCS := tests/unit/test_pmm.c kernel/pmm.c
