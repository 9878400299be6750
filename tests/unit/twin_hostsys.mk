UNIT_TESTS += twin_hostsys
twin_hostsys_SRCS := tests/unit/test_twin_hostsys.c tools/twin/hostsys.c
twin_hostsys_CFLAGS := -Itools/twin
