UNIT_TESTS += fat
fat_SRCS := tests/unit/test_fat.c boot/fat.c
