UNIT_TESTS += record
record_SRCS := tests/unit/test_record.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
