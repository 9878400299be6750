UNIT_TESTS += acpi_bad
acpi_bad_SRCS := tests/unit/test_acpi_bad.c tests/unit/acpi_testlib.c tests/unit/acpi_fixture.c kernel/acpi/acpi.c kernel/acpi/acpi_madt.c kernel/acpi/acpi_srat.c kernel/acpi/acpi_slit.c kernel/acpi/acpi_hmat.c kernel/acpi/acpi_fixed.c kernel/acpi/acpi_dmar.c kernel/acpi/acpi_ivrs.c
