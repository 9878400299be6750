UNIT_TESTS += flushcheck
flushcheck_SRCS := tests/unit/test_flushcheck.c tests/unit/flushcheck_fake.c kernel/run/flushcheck.c kernel/run/flushprobe.c kernel/run/flushset.c kernel/measure/cold.c \
	kernel/measure/stats.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
flushcheck_CFLAGS := -pthread
