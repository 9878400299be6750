UNIT_TESTS += twin_dmi
twin_dmi_SRCS := tests/unit/test_twin_dmi.c tools/twin/hostdmi.c tests/unit/smbios_console.c tests/unit/smbios_fixture.c kernel/run/report_smbios.c kernel/run/report_smbios_dev.c kernel/acpi/smbios.c kernel/acpi/smbios_mem.c kernel/acpi/smbios_names.c kernel/acpi/smbios_summary.c kernel/lib/smbios_ep.c kernel/lib/sha256.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
twin_dmi_CFLAGS := -Itools/twin
