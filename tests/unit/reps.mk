UNIT_TESTS += reps
reps_SRCS := tests/unit/test_reps.c kernel/reps.c kernel/noise.c kernel/stats.c kernel/record.c kernel/fmt.c kernel/crc32.c kernel/cpuid_snap.c kernel/topo.c
