UNIT_TESTS += placement
placement_SRCS := tests/unit/test_placement.c workloads/placement.c kernel/topo.c kernel/cpuid_snap.c
