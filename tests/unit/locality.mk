UNIT_TESTS += locality
locality_SRCS := tests/unit/test_locality.c workloads/locality_loops.c
