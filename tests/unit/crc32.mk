UNIT_TESTS += crc32
crc32_SRCS := tests/unit/test_crc32.c kernel/lib/crc32.c
