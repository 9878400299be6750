UNIT_TESTS += acpi_hmat
# unit: kernel/run/numa_fw.c (the HMAT as the runtime reads it: acpi_hmat.c decodes, numa_fw.c interprets)
acpi_hmat_SRCS := tests/unit/test_acpi_hmat.c tests/unit/acpi_expect.c tests/unit/acpi_testlib.c tests/unit/acpi_fixture.c kernel/acpi/acpi.c kernel/acpi/acpi_madt.c kernel/acpi/acpi_srat.c kernel/acpi/acpi_slit.c kernel/acpi/acpi_hmat.c kernel/acpi/acpi_fixed.c kernel/acpi/acpi_dmar.c kernel/acpi/acpi_ivrs.c kernel/run/numa_fw.c
