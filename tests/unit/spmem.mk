UNIT_TESTS += spmem
spmem_SRCS := tests/unit/test_spmem.c kernel/mm/spmem.c
