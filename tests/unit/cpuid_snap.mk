UNIT_TESTS += cpuid_snap
cpuid_snap_SRCS := tests/unit/test_cpuid_snap.c tests/unit/cpuid_fixture.c kernel/arch/cpuid_snap.c
