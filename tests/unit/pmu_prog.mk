UNIT_TESTS += pmu_prog
pmu_prog_SRCS := tests/unit/test_pmu_prog.c kernel/measure/pmu.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
