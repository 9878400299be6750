UNIT_TESTS += noise
noise_SRCS := tests/unit/test_noise.c kernel/noise.c kernel/stats.c kernel/cpuid_snap.c kernel/topo.c
