UNIT_TESTS += acpi
acpi_SRCS := tests/unit/test_acpi.c tests/unit/acpi_testlib.c tests/unit/acpi_fixture.c kernel/acpi.c kernel/acpi_madt.c kernel/acpi_srat.c kernel/acpi_fixed.c
