UNIT_TESTS += topo
topo_SRCS := tests/unit/test_topo.c kernel/topo.c kernel/cpuid_snap.c
