UNIT_TESTS += handoff_pt
handoff_pt_SRCS := tests/unit/test_handoff_pt.c boot/handoff_pt.c kernel/mm/pgtable.c
