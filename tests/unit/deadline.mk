UNIT_TESTS += deadline
deadline_SRCS := tests/unit/test_deadline.c kernel/measure/deadline.c kernel/measure/plan.c kernel/measure/plan_fit.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
