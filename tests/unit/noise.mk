UNIT_TESTS += noise
noise_SRCS := tests/unit/test_noise.c kernel/measure/noise.c kernel/measure/stats.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c
