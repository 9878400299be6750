UNIT_TESTS += pmu
pmu_SRCS := tests/unit/test_pmu.c kernel/measure/pmu.c kernel/measure/cpuid_snap.c kernel/measure/topo.c kernel/lib/fmt.c
