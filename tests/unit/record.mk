UNIT_TESTS += record
record_SRCS := tests/unit/test_record.c kernel/record.c kernel/fmt.c kernel/crc32.c
