UNIT_TESTS += plan
plan_SRCS := tests/unit/test_plan.c kernel/plan.c kernel/fmt.c workloads/placement.c kernel/topo.c kernel/cpuid_snap.c
