UNIT_TESTS += paging
paging_SRCS := tests/unit/test_paging.c kernel/mm/paging.c kernel/mm/pgtable.c kernel/mm/pmm.c \
	kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
