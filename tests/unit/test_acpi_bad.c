/* test_acpi_bad.c - host tests of kernel/acpi*.c on malformed copies of QEMU q35-like tables in fake physical memory (ACPI 6.5 ch. 5.2): the exact error records, fallbacks and limits. */
#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_fixture.h"
#include "acpi_testlib.h"

static struct acpi_info info;
static struct fx_table tbl;

/* ---- Malformed copies ----------------------------------------------------- */

TEST(test_bad_checksum_each_table)
{
	static const struct {
		const char *sig;
		uint64_t phys;
		uint32_t index;
	} t[] = {
		{ "FACP", FX_FADT_PHYS, 0 }, { "APIC", FX_MADT_PHYS, 1 }, { "HPET", FX_HPET_PHYS, 2 },
		{ "SRAT", FX_SRAT_PHYS, 3 }, { "SPCR", FX_SPCR_PHYS, 4 }, { "WAET", FX_WAET_PHYS, 5 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		bool is_madt = !strcmp(t[i].sig, "APIC");

		fx_build_q35(&smp8_numa2);
		flip(t[i].phys, fixture_len(t[i].phys) - 1);
		CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), is_madt ? ACPI_ERR : 0);
		CHECK_EQ_U(info.n_tables, 6);
		CHECK(!info.tables[t[i].index].valid);
		CHECK_STR(info.tables[t[i].index].sig, t[i].sig);
		CHECK(acpi_table(&info, t[i].sig) == NULL);
		CHECK_EQ_U(info.n_errors, is_madt ? 2 : 1);
		CHECK_ERR(0, t[i].sig, "bad checksum", t[i].phys);
		if (is_madt)
			CHECK_ERR(1, "APIC", "no usable MADT", 0);
		CHECK_EQ_U(info.madt.present, !is_madt);
		CHECK_EQ_U(info.madt.n_cpus, is_madt ? 0 : 8);
		CHECK_EQ_U(info.srat.present, !!strcmp(t[i].sig, "SRAT"));
		CHECK_EQ_U(info.fadt.present, !!strcmp(t[i].sig, "FACP"));
		CHECK_EQ_U(info.hpet.present, !!strcmp(t[i].sig, "HPET"));
		CHECK_EQ_U(info.spcr.present, !!strcmp(t[i].sig, "SPCR"));
	}
}

TEST(test_bad_rsdp)
{
	fx_build_q35(&smp4);
	flip(FX_RSDP_PHYS, 16);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "RSDP", "bad checksum", FX_RSDP_PHYS);
	CHECK_EQ_U(info.n_tables, 0);
	CHECK(!info.madt.present);

	fx_build_q35(&smp4);
	fixture_bytes(FX_RSDP_PHYS)[0] = 'X';
	fx_fix_rsdp(FX_RSDP_PHYS);
	CHECK_EQ_I(acpi_find_tables(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_ERR(0, "RSDP", "bad signature", FX_RSDP_PHYS);

	fx_build_q35(&smp4);
	flip(FX_RSDP_PHYS, 33); /* a reserved byte: only the extended checksum covers it */
	CHECK_EQ_I(acpi_find_tables(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "RSDP", "bad extended checksum", FX_RSDP_PHYS);

	fx_build_q35(&smp4);
	fixture_bytes(FX_RSDP_PHYS)[20] = 20;
	fx_fix_rsdp(FX_RSDP_PHYS);
	CHECK_EQ_I(acpi_find_tables(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_ERR(0, "RSDP", "length 20 below 36", FX_RSDP_PHYS);

	CHECK_EQ_I(acpi_parse(0x1234, &info), ACPI_ERR);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "RSDP", "unmapped at 0x1234", 0x1234);
}

TEST(test_xsdt_bad_falls_back_to_rsdt)
{
	fx_build_q35(&smp4);
	flip(FX_XSDT_PHYS, 40);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK(!info.rsdp.used_xsdt);
	CHECK_EQ_U(info.rsdp.root_phys, FX_RSDT_PHYS);
	CHECK_EQ_U(info.n_errors, 2);
	CHECK_ERR(0, "XSDT", "bad checksum", FX_XSDT_PHYS);
	CHECK_ERR(1, "XSDT", "rejected, falling back to RSDT", FX_XSDT_PHYS);
	CHECK_EQ_U(info.n_tables, 5);
	CHECK_EQ_U(info.madt.n_enabled, 4);

	fx_build_q35(&smp4);
	memcpy(fixture_bytes(FX_XSDT_PHYS), "XSDX", 4);
	fx_fix_checksum(FX_XSDT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_ERR(0, "XSDT", "bad signature", FX_XSDT_PHYS);
	CHECK_ERR(1, "XSDT", "rejected, falling back to RSDT", FX_XSDT_PHYS);

	fx_build_q35(&smp4);
	set_len(FX_XSDT_PHYS, 36 + 5 * 8 - 4, true); /* half an entry */
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_ERR(0, "XSDT", "length 72 not whole entries", FX_XSDT_PHYS);
	CHECK(!info.rsdp.used_xsdt);

	fx_build_q35(&smp4);
	flip(FX_XSDT_PHYS, 40);
	flip(FX_RSDT_PHYS, 40);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_EQ_U(info.n_errors, 4);
	CHECK_ERR(2, "RSDT", "bad checksum", FX_RSDT_PHYS);
	CHECK_ERR(3, "RSDP", "no usable root table", FX_RSDP_PHYS);
	CHECK_EQ_U(info.n_tables, 0);
	CHECK(!info.madt.present);
}

TEST(test_truncated_tables)
{
	fx_build_q35(&smp4);
	set_len(FX_MADT_PHYS, 20, true);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_EQ_U(info.tables[1].length, 20);
	CHECK(!info.tables[1].valid);
	CHECK_EQ_U(info.n_errors, 2);
	CHECK_ERR(0, "APIC", "length 20 below header", FX_MADT_PHYS);
	CHECK_ERR(1, "APIC", "no usable MADT", 0);
	CHECK_EQ_U(info.madt.n_cpus, 0);

	fx_build_q35(&smp4);
	set_len(FX_MADT_PHYS, fixture_len(FX_MADT_PHYS) + 1, false);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_ERR(0, "APIC", "length overruns mapping", FX_MADT_PHYS);
	CHECK(!info.madt.present);

	fx_build_q35(&smp4);
	set_len(FX_MADT_PHYS, 2 * ACPI_MAX_TABLE_LEN, false);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
	CHECK_ERR(0, "APIC", "length 2097152 above limit", FX_MADT_PHYS);

	fx_build_q35(&smp4);
	set_len(FX_HPET_PHYS, 200, false);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "HPET", "length overruns mapping", FX_HPET_PHYS);
	CHECK(!info.hpet.present && info.madt.present);

	/* A parser handed a buffer shorter than the header's length refuses it. */
	fx_build_q35(&smp4);
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_parse_madt(fixture_bytes(FX_MADT_PHYS), 100, &info), ACPI_ERR);
	CHECK_ERR(0, "APIC", "length 144 overruns buffer", 0);
	CHECK(!info.madt.present);
}

TEST(test_madt_entry_length_zero)
{
	fx_q35_madt(&smp4, &tbl);
	fx_build_q35(&smp4);
	tbl.b[44 + 2 * 8 + 1] = 0; /* third CPU entry */
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "APIC", "entry at offset 60 has length below 2", 60);
	CHECK_EQ_U(info.madt.n_cpus, 2);
	CHECK_EQ_U(info.madt.n_enabled, 2);

	tbl.b[44 + 2 * 8 + 1] = 1;
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "APIC", "entry at offset 60 has length below 2", 60);
	CHECK_EQ_U(info.madt.n_cpus, 2);
}

TEST(test_madt_entry_overruns)
{
	fx_build_q35(&smp4);
	fx_begin(&tbl, "APIC", 3, 44);
	fx_madt_lapic(&tbl, 0, 0, 1);
	fx_madt_lapic(&tbl, 1, 1, 1);
	fx_append(&tbl, (uint8_t[]){ 0, 8, 2, 2 }, 4); /* claims 8 bytes, 4 remain */
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "APIC", "entry at offset 60 overruns table", 60);
	CHECK_EQ_U(info.madt.n_cpus, 2);

	fx_begin(&tbl, "APIC", 3, 44);
	fx_madt_lapic(&tbl, 0, 0, 1);
	fx_append(&tbl, (uint8_t[]){ 9 }, 1); /* not even a whole entry head */
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_ERR(0, "APIC", "entry at offset 52 overruns table", 52);
	CHECK_EQ_U(info.madt.n_cpus, 1);
}

TEST(test_madt_wrong_length_entry)
{
	static const uint8_t bad[][12] = {
		{ 0, 10, 1, 1, 1, 0, 0, 0, 0, 0 },           /* Local APIC, 10 not 8 */
		{ 9, 12, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 },     /* Local x2APIC, 12 not 16 */
		{ 5, 8, 0, 0, 0, 0, 0xe0, 0xfe },            /* override, 8 not 12 */
	};

	fx_build_q35(&smp4);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fx_begin(&tbl, "APIC", 3, 44);
		fx_put(&tbl, 36, FX_LAPIC_ADDR, 4);
		fx_madt_lapic(&tbl, 0, 0, 1);
		fx_append(&tbl, bad[i], bad[i][1]);
		fx_madt_lapic(&tbl, 2, 2, 1); /* after the fault: must not be trusted */
		fx_install(&tbl, FX_MADT_PHYS);
		CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
		CHECK_EQ_U(info.n_errors, 1);
		CHECK_ERR(0, "APIC", "entry at offset 52 has wrong length", 52);
		CHECK_EQ_U(info.madt.n_cpus, 1);
		CHECK_EQ_U(info.madt.lapic_addr, FX_LAPIC_ADDR);
		CHECK(!info.madt.lapic_overridden);
	}
}

TEST(test_madt_duplicate_apic_id)
{
	static const uint32_t ids[] = { 0, 1, 1, 2 };
	struct fx_q35 cfg = smp4;

	cfg.apic_ids = ids;
	fx_build_q35(&cfg);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "APIC", "duplicate APIC ID 1", 60);
	CHECK_EQ_U(info.madt.n_cpus, 3);
	CHECK_EQ_U(info.madt.n_duplicates, 1);
	CHECK_EQ_U(info.madt.n_enabled, 3);
	CHECK_EQ_U(info.madt.cpus[1].uid, 1);
	CHECK_EQ_U(info.madt.cpus[2].apic_id, 2);
	CHECK_EQ_U(info.madt.cpus[2].uid, 3);
}

/* What real MADTs do and is no error: placeholder entries (LAPIC ID 0xFF,
 * x2APIC ID 0xFFFFFFFF) that describe no CPU; an x2APIC entry repeating a
 * LAPIC entry for the same CPU; a disabled entry, then an enabled one for the
 * same ID (the enabled one wins). */
TEST(test_madt_placeholders_and_repeats)
{
	fx_build_q35(&smp4);
	fx_begin(&tbl, "APIC", 3, 44);
	fx_put(&tbl, 36, FX_LAPIC_ADDR, 4);
	fx_madt_lapic(&tbl, 0, 0, 1);
	fx_madt_lapic(&tbl, 1, 1, 1);
	fx_madt_lapic(&tbl, 9, 0xFF, 0);            /* placeholder, disabled */
	fx_madt_lapic(&tbl, 10, 0xFF, 1);           /* placeholder even when "enabled" */
	fx_madt_x2apic(&tbl, 11, 0xFFFFFFFFu, 0);   /* x2APIC placeholder */
	fx_madt_x2apic(&tbl, 0, 0, 1);              /* repeats LAPIC 0: same CPU */
	fx_madt_lapic(&tbl, 2, 2, 0);               /* disabled first ... */
	fx_madt_x2apic(&tbl, 22, 2, 1);             /* ... then enabled: the enabled one wins */
	fx_madt_x2apic(&tbl, 300, 300, 1);          /* a plain x2APIC CPU */
	fx_madt_x2apic(&tbl, 301, 300, 0);          /* a disabled repeat of it changes nothing */
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_cpus, 4);
	CHECK_EQ_U(info.madt.n_enabled, 4);
	CHECK_EQ_U(info.madt.n_placeholders, 3);
	CHECK_EQ_U(info.madt.n_merged, 3);
	CHECK_EQ_U(info.madt.n_duplicates, 0);
	CHECK_EQ_U(info.madt.cpus[2].apic_id, 2);
	CHECK(info.madt.cpus[2].enabled);
	CHECK_EQ_U(info.madt.cpus[2].uid, 22);
	CHECK(info.madt.cpus[2].from_x2apic_entry);
	CHECK_EQ_U(info.madt.cpus[3].apic_id, 300);
	CHECK_EQ_U(info.madt.cpus[3].uid, 300);
	/* Two enabled entries of one type for one ID stay a firmware error. */
	fx_begin(&tbl, "APIC", 3, 44);
	fx_put(&tbl, 36, FX_LAPIC_ADDR, 4);
	fx_madt_x2apic(&tbl, 0, 400, 1);
	fx_madt_x2apic(&tbl, 1, 400, 1);
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_EQ_U(info.madt.n_duplicates, 1);
	CHECK_EQ_U(info.madt.n_cpus, 1);
}

TEST(test_srat_domain_limit)
{
	const uint32_t n = QB_MAX_NODES + 6;

	fx_build_q35(&smp8_numa2);
	fx_begin(&tbl, "SRAT", 3, 48);
	for (uint32_t i = 0; i < n; i++)      /* domains in decreasing order */
		fx_srat_cpu(&tbl, (uint8_t)i, n - 1 - i, 1);
	fx_srat_mem(&tbl, 0, 1024 * MIB, 0, 1);
	fx_srat_mem(&tbl, 1024 * MIB, 1024 * MIB, n - 1, 1);
	fx_install(&tbl, FX_SRAT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "SRAT", "domain limit, 7 entries dropped", 48);
	CHECK_EQ_U(info.srat.n_nodes, QB_MAX_NODES);
	for (uint32_t i = 0; i < QB_MAX_NODES; i++)
		CHECK_EQ_U(info.srat.nodes[i].domain, i);
	CHECK_EQ_U(info.srat.n_dropped_domain, 7);
	CHECK_EQ_U(info.srat.n_cpus, QB_MAX_NODES);
	CHECK_EQ_I(acpi_node_of_apic(&info, 0), -1); /* domain 69 */
	CHECK_EQ_I(acpi_node_of_apic(&info, 6), 63);
	CHECK_EQ_I(acpi_node_of_apic(&info, n - 1), 0);
	CHECK_EQ_U(info.srat.n_mem, 1);
	CHECK_EQ_I(acpi_node_of_addr(&info, 1024 * MIB), -1);
}

TEST(test_srat_malformed)
{
	fx_build_q35(&smp8_numa2);
	fx_begin(&tbl, "SRAT", 3, 48);
	fx_srat_cpu(&tbl, 0, 4, 1);
	fx_srat_mem(&tbl, ~0ull - 10, 100, 9, 1);   /* wraps: dropped, no node 9 */
	fx_srat_mem(&tbl, 0, 1024 * MIB, 4, 1);
	fx_append(&tbl, (uint8_t[]){ 2, 16, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0 }, 16);
	fx_srat_cpu(&tbl, 1, 5, 1);                  /* after the fault: not trusted */
	fx_install(&tbl, FX_SRAT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 2);
	CHECK_ERR(0, "SRAT", "memory at offset 64 wraps", 64);
	CHECK_ERR(1, "SRAT", "entry at offset 144 has wrong length", 144);
	CHECK_EQ_U(info.srat.n_nodes, 1);
	CHECK_EQ_U(info.srat.nodes[0].domain, 4);
	CHECK_EQ_U(info.srat.n_cpus, 1);
	CHECK_EQ_U(info.srat.n_mem, 1);
	CHECK_EQ_I(acpi_node_of_apic(&info, 1), -1);
}

TEST(test_fadt_variants)
{
	uint32_t flags = (1u << 8) | (1u << 10); /* TMR_VAL_EXT, RESET_REG_SUP */

	fx_build_q35(&smp1);
	/* ACPI 1.0: 116 bytes, RESET_REG_SUP set but the fields do not exist */
	fx_begin(&tbl, "FACP", 1, 116);
	fx_put(&tbl, 76, 0x408, 4);
	fx_put(&tbl, 91, 4, 1);
	fx_put(&tbl, 112, flags, 4);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.fadt.present);
	CHECK_EQ_U(info.fadt.revision, 1);
	CHECK_EQ_U(info.fadt.length, 116);
	CHECK(info.fadt.pm_timer_present && !info.fadt.pm_timer_mmio && info.fadt.pm_timer_32bit);
	CHECK_EQ_U(info.fadt.pm_timer_addr, 0x408);
	CHECK(!info.fadt.reset_present);

	/* Shorter than ACPI 1.0: rejected whole */
	fx_begin(&tbl, "FACP", 1, 100);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "FACP", "length 100 too short", 0);
	CHECK(!info.fadt.present && !info.fadt.pm_timer_present);

	/* X_PM_TMR_BLK in memory wins over PM_TMR_BLK */
	fx_begin(&tbl, "FACP", 5, 276);
	fx_put(&tbl, 76, 0x408, 4);
	fx_put(&tbl, 91, 4, 1);
	fx_put(&tbl, 208, 0x00002000, 4);
	fx_put(&tbl, 212, 0xfed000f0, 8);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK(info.fadt.pm_timer_present && info.fadt.pm_timer_mmio && !info.fadt.pm_timer_32bit);
	CHECK_EQ_U(info.fadt.pm_timer_addr, 0xfed000f0);

	/* X_PM_TMR_BLK in PCI config space: error, PM_TMR_BLK used */
	fx_put(&tbl, 208, ACPI_GAS_SPACE_PCI_CONFIG, 1);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_ERR(0, "FACP", "X_PM_TMR_BLK in address space 2", 208);
	CHECK(info.fadt.pm_timer_present && !info.fadt.pm_timer_mmio);
	CHECK_EQ_U(info.fadt.pm_timer_addr, 0x408);

	/* PM_TMR_LEN 0: no PM timer; HW-reduced: none either */
	fx_put(&tbl, 208, 0, 12);
	fx_put(&tbl, 91, 0, 1);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.fadt.present && !info.fadt.pm_timer_present);
	fx_put(&tbl, 91, 4, 1);
	fx_put(&tbl, 112, 1u << 20, 4);
	fx_install(&tbl, FX_FADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK(info.fadt.hw_reduced && !info.fadt.pm_timer_present);
}

TEST(test_hpet_not_memory)
{
	fx_build_q35(&smp1);
	fixture_bytes(FX_HPET_PHYS)[40] = ACPI_GAS_SPACE_IO;
	fx_fix_checksum(FX_HPET_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "HPET", "base in address space 1", 40);
	CHECK(!info.hpet.present);
	CHECK_EQ_U(info.hpet.base, 0);

	fx_build_q35(&smp1);
	memset(fixture_bytes(FX_HPET_PHYS) + 44, 0, 8);
	fx_fix_checksum(FX_HPET_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_ERR(0, "HPET", "base address is 0", 40);
	CHECK(!info.hpet.present);
}

TEST(test_spcr_baud)
{
	static const uint32_t rates[] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };

	fx_build_q35(&smp1);
	for (uint8_t code = 0; code < ARRAY_SIZE(rates); code++) {
		bool known = rates[code] || code == 0;

		fixture_bytes(FX_SPCR_PHYS)[58] = code;
		fx_fix_checksum(FX_SPCR_PHYS);
		CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
		CHECK_EQ_U(info.spcr.baud, rates[code]);
		CHECK_EQ_U(info.spcr.baud_code, code);
		CHECK_EQ_U(info.n_errors, !known);
		if (!known) {
			char msg[ACPI_ERR_MSG_LEN];

			snprintf(msg, sizeof(msg), "unknown baud rate code %u", code);
			CHECK_ERR(0, "SPCR", msg, 58);
		}
	}

	/* Revision 4: a non-zero Precise Baud Rate overrides the code */
	fx_begin(&tbl, "SPCR", 4, 88);
	fx_put(&tbl, 58, 7, 1);
	fx_put(&tbl, 80, 1500000, 4);
	fx_end(&tbl);
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_parse_spcr(tbl.b, tbl.len, &info), 0);
	CHECK_EQ_U(info.spcr.baud, 1500000);
	tbl.b[8] = 2; /* the same bytes in a revision 2 table are not read */
	CHECK_EQ_I(acpi_parse_spcr(tbl.b, tbl.len, &info), 0);
	CHECK_EQ_U(info.spcr.baud, 115200);
}

TEST(test_madt_cpu_limit)
{
	struct fx_q35 cfg = { .n_cpus = QB_MAX_CPUS + 8, .n_enabled = QB_MAX_CPUS + 8,
			      .n_nodes = 2, .node_mem = 512 * MIB, .rsdp_rev = 2 };

	fx_build_q35(&cfg);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.madt.n_cpus, QB_MAX_CPUS);
	CHECK_EQ_U(info.madt.n_enabled, QB_MAX_CPUS);
	CHECK_EQ_U(info.madt.n_dropped, 8);
	CHECK_EQ_U(info.madt.cpus[QB_MAX_CPUS - 1].apic_id, QB_MAX_CPUS - 1);
	CHECK(info.madt.cpus[QB_MAX_CPUS - 1].from_x2apic_entry);
	CHECK_EQ_U(info.n_errors, 2);
	CHECK_ERR(0, "APIC", "cpu limit, 8 entries dropped", 44 + 255 * 8 + (QB_MAX_CPUS - 255) * 16);
	CHECK_ERR(1, "SRAT", "cpu limit, 8 entries dropped", 48 + 255 * 16 + (QB_MAX_CPUS - 255) * 24);
	CHECK_EQ_U(info.srat.n_cpus, QB_MAX_CPUS);
	CHECK_EQ_I(acpi_node_of_apic(&info, QB_MAX_CPUS), -1);
}

TEST(test_root_entries)
{
	uint64_t list[QB_MAX_ACPI_TABLES + 6];

	fx_build_q35(&smp4);
	list[0] = FX_FADT_PHYS;
	list[1] = 0x12345000;                        /* nothing there */
	list[2] = FX_MADT_PHYS;
	list[3] = 0;
	fx_install_roots(2, list, 4);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_tables, 4);
	CHECK(!info.tables[1].valid && !info.tables[3].valid);
	CHECK_STR(info.tables[1].sig, "");
	CHECK_EQ_U(info.n_errors, 2);
	CHECK_ERR(0, "XSDT", "header unmapped at 0x12345000", 0x12345000);
	CHECK_ERR(1, "XSDT", "entry 3 is null", 36 + 3 * 8);
	CHECK_EQ_U(info.madt.n_cpus, 4);

	/* Above 4 GiB: only the XSDT's 64-bit entries can reach it */
	fixture_put(0x100000400ull, fixture_bytes(FX_HPET_PHYS), fixture_len(FX_HPET_PHYS));
	list[1] = 0x100000400ull;
	fx_install_roots(2, list, 3);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.tables[1].phys, 0x100000400ull);
	CHECK(info.tables[1].valid && info.hpet.present);

	for (uint32_t i = 0; i < ARRAY_SIZE(list); i++)
		list[i] = i < 2 ? (i ? FX_MADT_PHYS : FX_FADT_PHYS) : FX_WAET_PHYS;
	fx_install_roots(2, list, ARRAY_SIZE(list));
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_tables, QB_MAX_ACPI_TABLES);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "XSDT", "too many tables (70)", FX_XSDT_PHYS);

	for (uint32_t i = 0; i < 21; i++)
		list[i] = i == 20 ? FX_MADT_PHYS : 0x10000000 + i * 0x1000;
	fx_install_roots(2, list, 21);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, ACPI_MAX_ERRORS);
	CHECK_EQ_U(info.n_errors_lost, 20 - ACPI_MAX_ERRORS);
	CHECK_EQ_U(info.madt.n_enabled, 4);
}

TEST(test_first_valid_table_wins)
{
	uint64_t list[] = { FX_MADT_PHYS, FX_MADT_PHYS + 0x1000 };

	fx_build_q35(&smp4);
	fx_q35_madt(&smp1, &tbl);
	fx_install(&tbl, FX_MADT_PHYS + 0x1000);
	flip(FX_MADT_PHYS, 50);
	fx_install_roots(2, list, 2);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK(acpi_table(&info, "APIC") == &info.tables[1]);
	CHECK_EQ_U(info.madt.n_cpus, 1);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "APIC", "bad checksum", FX_MADT_PHYS);
}

int main(void)
{
	RUN(test_bad_checksum_each_table);
	RUN(test_bad_rsdp);
	RUN(test_xsdt_bad_falls_back_to_rsdt);
	RUN(test_truncated_tables);
	RUN(test_madt_entry_length_zero);
	RUN(test_madt_entry_overruns);
	RUN(test_madt_wrong_length_entry);
	RUN(test_madt_duplicate_apic_id);
	RUN(test_madt_placeholders_and_repeats);
	RUN(test_srat_domain_limit);
	RUN(test_srat_malformed);
	RUN(test_fadt_variants);
	RUN(test_hpet_not_memory);
	RUN(test_spcr_baud);
	RUN(test_madt_cpu_limit);
	RUN(test_root_entries);
	RUN(test_first_valid_table_wins);
	fixture_reset();
	return check_summary("acpi_bad");
}
