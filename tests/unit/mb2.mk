UNIT_TESTS += mb2
mb2_SRCS := tests/unit/test_mb2.c boot/mb2.c boot/mb2_mem.c boot/mmap.c
