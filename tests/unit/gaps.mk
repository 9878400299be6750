UNIT_TESTS += gaps gaps_attr
# unit: kernel/run/disturb.c (the noise loop with the runtime's attribution counters)
gaps_SRCS := tests/unit/test_gaps.c kernel/measure/gaps.c
gaps_attr_SRCS := tests/unit/test_gaps_attr.c kernel/measure/gaps.c kernel/run/disturb.c kernel/measure/noise.c \
	kernel/measure/stats.c kernel/arch/cpuid_snap.c kernel/measure/topo.c kernel/measure/topo_cache.c
