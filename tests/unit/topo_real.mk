UNIT_TESTS += topo_real
topo_real_SRCS := tests/unit/test_topo_real.c kernel/measure/topo.c kernel/arch/cpuid_snap.c
