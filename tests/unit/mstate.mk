UNIT_TESTS += mstate
mstate_SRCS := tests/unit/test_mstate.c kernel/measure/mstate.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c
