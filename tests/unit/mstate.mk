UNIT_TESTS += mstate
mstate_SRCS := tests/unit/test_mstate.c kernel/mstate.c kernel/cpuid_snap.c kernel/topo.c
