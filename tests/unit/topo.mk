UNIT_TESTS += topo
topo_SRCS := tests/unit/test_topo.c tests/unit/test_topo_bad.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/arch/cpuid_snap.c
