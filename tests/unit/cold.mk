UNIT_TESTS += cold
cold_SRCS := tests/unit/test_cold.c kernel/measure/cold.c kernel/measure/stats.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
