UNIT_TESTS += console
console_SRCS := tests/unit/test_console.c kernel/console/console_text.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
