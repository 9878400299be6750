UNIT_TESTS += placement
placement_SRCS := tests/unit/test_placement.c workloads/placement.c workloads/sizes.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/arch/cpuid_snap.c
