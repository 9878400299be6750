UNIT_TESTS += reps
reps_SRCS := tests/unit/test_reps.c kernel/run/reps.c kernel/measure/noise.c kernel/measure/stats.c kernel/measure/stats_rec.c kernel/measure/limits.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c
