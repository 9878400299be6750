UNIT_TESTS += plan
plan_SRCS := tests/unit/test_plan.c kernel/measure/plan.c kernel/measure/plan_fit.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
