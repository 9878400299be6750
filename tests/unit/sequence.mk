UNIT_TESTS += sequence
sequence_SRCS := tests/unit/test_sequence.c kernel/bench/sequence.c kernel/bench/seq_item.c kernel/bench/seq_report.c kernel/measure/plan.c kernel/measure/plan_fit.c kernel/measure/deadline.c kernel/run/report.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c kernel/measure/stats.c kernel/measure/stats_rec.c kernel/measure/limits.c
