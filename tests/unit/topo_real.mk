UNIT_TESTS += topo_real
topo_real_SRCS := tests/unit/test_topo_real.c tests/unit/cpuid_fixture.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/arch/cpuid_snap.c
