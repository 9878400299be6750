UNIT_TESTS += pmu
pmu_SRCS := tests/unit/test_pmu.c kernel/pmu.c kernel/cpuid_snap.c kernel/topo.c kernel/fmt.c
