UNIT_TESTS += pmu
pmu_SRCS := tests/unit/test_pmu.c kernel/measure/pmu.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
