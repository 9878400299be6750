UNIT_TESTS += smbios_real
smbios_real_SRCS := tests/unit/test_smbios_real.c tests/unit/smbios_fixture.c kernel/acpi/smbios.c kernel/acpi/smbios_mem.c kernel/acpi/smbios_names.c kernel/acpi/smbios_summary.c kernel/lib/smbios_ep.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
