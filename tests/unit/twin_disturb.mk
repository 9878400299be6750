UNIT_TESTS += twin_disturb
twin_disturb_SRCS := tests/unit/test_twin_disturb.c tools/twin/disturb.c tools/twin/perfirq.c tools/twin/perfnoise.c \
	tools/twin/perf.c kernel/measure/gaps.c kernel/measure/noise.c kernel/measure/stats.c kernel/arch/cpuid_snap.c \
	kernel/lib/fmt.c kernel/lib/fmt_dec.c
twin_disturb_CFLAGS := -Itools/twin -pthread
