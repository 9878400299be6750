UNIT_TESTS += reswrite
reswrite_SRCS := tests/unit/test_reswrite.c kernel/lib/reswrite.c kernel/lib/resfile.c
