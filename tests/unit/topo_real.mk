UNIT_TESTS += topo_real
topo_real_SRCS := tests/unit/test_topo_real.c kernel/topo.c kernel/cpuid_snap.c
