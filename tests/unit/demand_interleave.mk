UNIT_TESTS += demand_interleave
demand_interleave_SRCS := tests/unit/test_demand_interleave.c tests/unit/demand_fixture.c kernel/mm/demand.c kernel/mm/pmm.c kernel/arch/spinlock.c
