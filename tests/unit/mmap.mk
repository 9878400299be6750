UNIT_TESTS += mmap
mmap_SRCS := tests/unit/test_mmap.c boot/mmap.c boot/efi_mmap.c
