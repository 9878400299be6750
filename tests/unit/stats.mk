UNIT_TESTS += stats
stats_SRCS := tests/unit/test_stats.c kernel/measure/stats.c
