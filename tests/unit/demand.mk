UNIT_TESTS += demand
demand_SRCS := tests/unit/test_demand.c tests/unit/demand_fixture.c kernel/mm/demand.c kernel/mm/pmm.c kernel/arch/spinlock.c
