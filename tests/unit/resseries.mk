UNIT_TESTS += resseries
# unit: kernel/run/options.c (series= as the kernel's parser reads it, with the series' logs)
resseries_SRCS := tests/unit/test_resseries.c kernel/lib/resseries.c kernel/lib/reswrite.c kernel/lib/resfile.c \
	kernel/run/options.c kernel/run/options_table.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
