UNIT_TESTS += twin_demand
twin_demand_SRCS := tests/unit/test_twin_demand.c tools/twin/demand.c tools/twin/smaps.c tools/twin/thp.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
twin_demand_CFLAGS := -Itools/twin
