UNIT_TESTS += demand
demand_SRCS := tests/unit/test_demand.c kernel/demand.c kernel/pmm.c kernel/spinlock.c
