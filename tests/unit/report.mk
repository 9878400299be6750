UNIT_TESTS += report
report_SRCS := tests/unit/test_report.c kernel/report.c kernel/record.c kernel/fmt.c kernel/crc32.c kernel/stats.c
