UNIT_TESTS += reps
reps_SRCS := tests/unit/test_reps.c kernel/measure/reps.c kernel/measure/noise.c kernel/measure/stats.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/crc32.c kernel/measure/cpuid_snap.c kernel/measure/topo.c
