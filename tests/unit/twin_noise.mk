UNIT_TESTS += twin_noise
twin_noise_SRCS := tests/unit/test_twin_noise.c tools/twin/perf.c tools/twin/perfnoise.c \
	kernel/measure/noise.c kernel/measure/stats.c kernel/arch/cpuid_snap.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
twin_noise_CFLAGS := -Itools/twin
