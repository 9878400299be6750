UNIT_TESTS += twin_perf
twin_perf_SRCS := tests/unit/test_twin_perf.c tools/twin/perf.c tools/twin/perfcount.c tools/twin/perfnoise.c \
	kernel/measure/pmu.c kernel/measure/noise.c kernel/measure/stats.c kernel/arch/cpuid_snap.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
twin_perf_CFLAGS := -Itools/twin
