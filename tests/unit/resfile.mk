UNIT_TESTS += resfile
resfile_SRCS := tests/unit/test_resfile.c kernel/lib/resfile.c
