UNIT_TESTS += report
report_SRCS := tests/unit/test_report.c tests/unit/report_stubs.c kernel/run/report.c kernel/run/report_machine.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c kernel/measure/stats.c kernel/measure/stats_rec.c kernel/measure/limits.c
