UNIT_TESTS += twin_instr
twin_instr_SRCS := tests/unit/test_twin_instr.c tools/twin/instr.c tools/twin/perf.c tools/twin/perfcount.c \
	tools/twin/perfnoise.c tools/twin/perfirq.c tools/twin/hostsys.c kernel/measure/pmu.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/measure/noise.c kernel/measure/stats.c \
	kernel/arch/cpuid_snap.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
twin_instr_CFLAGS := -Itools/twin
