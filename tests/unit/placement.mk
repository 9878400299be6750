UNIT_TESTS += placement
placement_SRCS := tests/unit/test_placement.c workloads/placement.c kernel/measure/topo.c kernel/measure/cpuid_snap.c
