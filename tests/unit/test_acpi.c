/* test_acpi.c - host tests of kernel/acpi*.c on well-formed QEMU q35-like tables built in fake physical memory (ACPI 6.5 ch. 5.2): the parsers' exact values.
 * Malformed tables are in test_acpi_bad.c; mutation sweeps and QBACPI01 fixture files in test_acpi_files.c.
 *
 * Usage: acpi                  run the tests
 *        acpi --write-log PATH write the synthetic smp8-numa2 layout as a dump=acpi serial log */
#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_fixture.h"
#include "acpi_testlib.h"

static struct acpi_info info;
static struct fx_table tbl;

/* ---- Well-formed q35 layouts ---------------------------------------------- */

TEST(test_checksum)
{
	CHECK(acpi_checksum_ok((uint8_t[]){ 0 }, 1));
	CHECK(acpi_checksum_ok((uint8_t[]){ 1, 0xff }, 2));
	CHECK(!acpi_checksum_ok((uint8_t[]){ 1, 0xfe }, 2));
	CHECK(acpi_checksum_ok((uint8_t[]){ 7 }, 0));
	CHECK(!acpi_checksum_ok(NULL, 0));
}

TEST(test_q35_smp1)
{
	static const char *sigs[] = { "FACP", "APIC", "HPET", "SPCR", "WAET" };
	static const uint32_t lens[] = { 244, 120, 56, 80, 40 };

	fx_build_q35(&smp1);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.rsdp.phys, FX_RSDP_PHYS);
	CHECK_EQ_U(info.rsdp.revision, 2);
	CHECK_STR(info.rsdp.oem_id, "BOCHS ");
	CHECK(info.rsdp.used_xsdt);
	CHECK_EQ_U(info.rsdp.root_phys, FX_XSDT_PHYS);
	CHECK_EQ_U(info.rsdp.root_len, 36 + 5 * 8);
	CHECK_EQ_U(info.rsdp.rsdt_phys, FX_RSDT_PHYS);
	CHECK_EQ_U(info.rsdp.xsdt_phys, FX_XSDT_PHYS);
	CHECK_EQ_U(info.n_tables, 5);
	for (uint32_t i = 0; i < 5; i++) {
		CHECK_STR(info.tables[i].sig, sigs[i]);
		CHECK_EQ_U(info.tables[i].length, lens[i]);
		CHECK_STR(info.tables[i].oem_id, "BOCHS ");
		CHECK(info.tables[i].valid);
	}
	CHECK_EQ_U(info.tables[0].revision, 3);
	CHECK(acpi_table(&info, "APIC") == &info.tables[1]);
	CHECK(acpi_table(&info, "SRAT") == NULL);

	CHECK(info.madt.present);
	CHECK_EQ_U(info.madt.lapic_addr, FX_LAPIC_ADDR);
	CHECK(!info.madt.lapic_overridden);
	CHECK(info.madt.pcat_compat);
	CHECK_EQ_U(info.madt.flags, 1);
	CHECK_EQ_U(info.madt.n_cpus, 1);
	CHECK_EQ_U(info.madt.n_enabled, 1);
	CHECK_EQ_U(info.madt.cpus[0].apic_id, 0);
	CHECK_EQ_U(info.madt.cpus[0].uid, 0);
	CHECK(info.madt.cpus[0].enabled && !info.madt.cpus[0].online_capable);
	CHECK(!info.madt.cpus[0].from_x2apic_entry);

	CHECK(!info.srat.present);
	CHECK_EQ_I(acpi_node_of_apic(&info, 0), -1);
	CHECK_EQ_I(acpi_node_of_addr(&info, 0), -1);

	CHECK(info.fadt.present);
	CHECK_EQ_U(info.fadt.revision, 3);
	CHECK_EQ_U(info.fadt.length, 244);
	CHECK_EQ_U(info.fadt.flags, FX_FADT_FLAGS);
	CHECK(!info.fadt.hw_reduced);
	CHECK(info.fadt.pm_timer_present && !info.fadt.pm_timer_mmio && !info.fadt.pm_timer_32bit);
	CHECK_EQ_U(info.fadt.pm_timer_addr, FX_PM_TMR_PORT);
	CHECK(info.fadt.reset_present);
	CHECK_EQ_U(info.fadt.reset_reg.space, ACPI_GAS_SPACE_IO);
	CHECK_EQ_U(info.fadt.reset_reg.bit_width, 8);
	CHECK_EQ_U(info.fadt.reset_reg.address, FX_RESET_PORT);
	CHECK_EQ_U(info.fadt.reset_value, FX_RESET_VALUE);

	CHECK(info.hpet.present);
	CHECK_EQ_U(info.hpet.base, FX_HPET_BASE);
	CHECK_EQ_U(info.hpet.number, 0);
	CHECK_EQ_U(info.hpet.min_tick, FX_HPET_MIN_TICK);
	CHECK_EQ_U(info.hpet.n_comparators, 3);
	CHECK(info.hpet.counter_64bit);
	CHECK_EQ_U(info.hpet.vendor_id, 0x8086);

	CHECK(info.spcr.present);
	CHECK_EQ_U(info.spcr.revision, 2);
	CHECK_EQ_U(info.spcr.interface_type, ACPI_SPCR_IF_16550);
	CHECK_EQ_U(info.spcr.base.space, ACPI_GAS_SPACE_IO);
	CHECK_EQ_U(info.spcr.base.bit_width, 8);
	CHECK_EQ_U(info.spcr.base.access_size, ACPI_GAS_ACCESS_BYTE);
	CHECK_EQ_U(info.spcr.base.address, FX_COM1_PORT);
	CHECK_EQ_U(info.spcr.interrupt_type, ACPI_SPCR_INT_8259);
	CHECK_EQ_U(info.spcr.irq, 4);
	CHECK_EQ_U(info.spcr.gsi, 4);
	CHECK_EQ_U(info.spcr.baud_code, 7);
	CHECK_EQ_U(info.spcr.baud, 115200);
}

TEST(test_q35_smp4)
{
	fx_build_q35(&smp4);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_cpus, 4);
	CHECK_EQ_U(info.madt.n_enabled, 4);
	for (uint32_t i = 0; i < 4; i++) {
		CHECK_EQ_U(info.madt.cpus[i].apic_id, i);
		CHECK_EQ_U(info.madt.cpus[i].uid, i);
		CHECK(info.madt.cpus[i].enabled);
	}
}

TEST(test_q35_smp8_numa2)
{
	fx_build_q35(&smp8_numa2);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.n_tables, 6);
	CHECK_EQ_U(info.madt.n_enabled, 8);
	CHECK(info.srat.present);
	CHECK_EQ_U(info.srat.n_nodes, 2);
	CHECK_EQ_U(info.srat.nodes[0].domain, 0);
	CHECK_EQ_U(info.srat.nodes[1].domain, 1);
	CHECK_EQ_U(info.srat.nodes[0].n_cpus, 4);
	CHECK_EQ_U(info.srat.nodes[1].n_cpus, 4);
	CHECK_EQ_U(info.srat.nodes[0].mem_bytes, 512 * MIB - (FX_HOLE_END - FX_HOLE_START));
	CHECK_EQ_U(info.srat.nodes[1].mem_bytes, 512 * MIB);
	CHECK_EQ_U(info.srat.n_cpus, 8);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ_I(acpi_node_of_apic(&info, i), i / 4);
	CHECK_EQ_I(acpi_node_of_apic(&info, 8), -1);
	CHECK_EQ_U(info.srat.n_mem, 3); /* the disabled padding entries are ignored */
	CHECK_EQ_U(info.srat.mem[0].base, 0);
	CHECK_EQ_U(info.srat.mem[0].length, FX_HOLE_START);
	CHECK_EQ_U(info.srat.mem[1].base, FX_HOLE_END);
	CHECK_EQ_U(info.srat.mem[1].length, 512 * MIB - FX_HOLE_END);
	CHECK_EQ_U(info.srat.mem[2].base, 512 * MIB);
	CHECK_EQ_U(info.srat.mem[2].length, 512 * MIB);
	CHECK_EQ_U(info.srat.mem[2].node, 1);
	CHECK(!info.srat.mem[2].hot_pluggable && !info.srat.mem[2].non_volatile);
	CHECK_EQ_I(acpi_node_of_addr(&info, 0), 0);
	CHECK_EQ_I(acpi_node_of_addr(&info, FX_HOLE_START), -1);
	CHECK_EQ_I(acpi_node_of_addr(&info, FX_HOLE_END), 0);
	CHECK_EQ_I(acpi_node_of_addr(&info, 512 * MIB - 1), 0);
	CHECK_EQ_I(acpi_node_of_addr(&info, 512 * MIB), 1);
	CHECK_EQ_I(acpi_node_of_addr(&info, 1024 * MIB - 1), 1);
	CHECK_EQ_I(acpi_node_of_addr(&info, 1024 * MIB), -1);
}

TEST(test_q35_x2apic_300)
{
	fx_build_q35(&x2apic300);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_cpus, 4);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK_EQ_U(info.madt.cpus[i].apic_id, i);
		CHECK(!info.madt.cpus[i].from_x2apic_entry);
	}
	CHECK_EQ_U(info.madt.cpus[3].apic_id, 300);
	CHECK_EQ_U(info.madt.cpus[3].uid, 3);
	CHECK(info.madt.cpus[3].from_x2apic_entry && info.madt.cpus[3].enabled);
	CHECK_EQ_I(acpi_node_of_apic(&info, 1), 0);
	CHECK_EQ_I(acpi_node_of_apic(&info, 2), 1);
	CHECK_EQ_I(acpi_node_of_apic(&info, 300), 1); /* from the SRAT x2APIC entry */
	CHECK_EQ_I(acpi_node_of_apic(&info, 300 & 0xff), -1);
}

TEST(test_q35_smp4_maxcpus8)
{
	struct fx_q35 hot = smp4_max8;

	fx_build_q35(&smp4_max8);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_cpus, 8);
	CHECK_EQ_U(info.madt.n_enabled, 4);
	for (uint32_t i = 0; i < 8; i++) {
		CHECK_EQ_U(info.madt.cpus[i].apic_id, i);
		CHECK_EQ_U(info.madt.cpus[i].enabled, i < 4);
		CHECK(!info.madt.cpus[i].online_capable);
	}
	hot.online_capable = true;
	fx_build_q35(&hot);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.madt.n_enabled, 4);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ_U(info.madt.cpus[i].online_capable, i >= 4);
}

TEST(test_rsdp_rev0_uses_rsdt)
{
	struct fx_q35 cfg = smp4;

	cfg.rsdp_rev = 0; /* the RSDP region is 20 bytes: ASan catches reads past it */
	fx_build_q35(&cfg);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.rsdp.revision, 0);
	CHECK(!info.rsdp.used_xsdt);
	CHECK_EQ_U(info.rsdp.xsdt_phys, 0);
	CHECK_EQ_U(info.rsdp.root_phys, FX_RSDT_PHYS);
	CHECK_EQ_U(info.n_tables, 5);
	CHECK_EQ_U(info.madt.n_enabled, 4);
}

TEST(test_madt_lapic_override)
{
	fx_build_q35(&smp1);
	fx_begin(&tbl, "APIC", 3, 44);
	fx_put(&tbl, 36, FX_LAPIC_ADDR, 4);
	fx_madt_lapic(&tbl, 0, 0, 1);
	fx_madt_override(&tbl, 0x1fee00000ull);
	fx_install(&tbl, FX_MADT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.madt.lapic_overridden);
	CHECK_EQ_U(info.madt.lapic_addr, 0x1fee00000ull);
	CHECK(!info.madt.pcat_compat);
}

TEST(test_srat_sparse_domains)
{
	fx_build_q35(&smp8_numa2);
	fx_begin(&tbl, "SRAT", 3, 48);
	fx_srat_cpu(&tbl, 0, 7, 1);
	fx_srat_cpu(&tbl, 1, 3, 1);
	fx_srat_cpu(&tbl, 2, 0x10203, 1);      /* bits 31:8 come from bytes 9-11 */
	fx_srat_cpu(&tbl, 5, 99, 0);           /* disabled: no node 99 */
	fx_srat_x2apic(&tbl, 400, 3, 1);
	fx_srat_mem(&tbl, 0, 1024 * MIB, 7, 1);
	fx_srat_mem(&tbl, 1024 * MIB, 1024 * MIB, 3, 1 | 2);
	fx_srat_mem(&tbl, 2048 * MIB, 1024 * MIB, 0x10203, 1 | 4);
	fx_srat_mem(&tbl, 4096 * MIB, 1024 * MIB, 100, 0);
	fx_append(&tbl, (uint8_t[]){ 5, 4, 0, 0 }, 4); /* unknown type, skipped */
	fx_install(&tbl, FX_SRAT_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.srat.n_nodes, 3);
	CHECK_EQ_U(info.srat.nodes[0].domain, 3);
	CHECK_EQ_U(info.srat.nodes[1].domain, 7);
	CHECK_EQ_U(info.srat.nodes[2].domain, 0x10203);
	CHECK_EQ_U(info.srat.n_cpus, 4);
	CHECK_EQ_I(acpi_node_of_apic(&info, 0), 1);
	CHECK_EQ_I(acpi_node_of_apic(&info, 1), 0);
	CHECK_EQ_I(acpi_node_of_apic(&info, 2), 2);
	CHECK_EQ_I(acpi_node_of_apic(&info, 400), 0);
	CHECK_EQ_I(acpi_node_of_apic(&info, 5), -1);
	CHECK_EQ_U(info.srat.n_mem, 3);
	CHECK(!info.srat.mem[0].hot_pluggable && !info.srat.mem[0].non_volatile);
	CHECK(info.srat.mem[1].hot_pluggable && !info.srat.mem[1].non_volatile);
	CHECK(!info.srat.mem[2].hot_pluggable && info.srat.mem[2].non_volatile);
	CHECK_EQ_I(acpi_node_of_addr(&info, 5), 1);
	CHECK_EQ_I(acpi_node_of_addr(&info, 1024 * MIB), 0);
	CHECK_EQ_I(acpi_node_of_addr(&info, 3072 * MIB - 1), 2);
	CHECK_EQ_I(acpi_node_of_addr(&info, 4096 * MIB), -1);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-log")) {
		fx_build_q35(&smp8_numa2);
		return fixture_write_log(argv[2]) ? 1 : 0;
	}
	RUN(test_checksum);
	RUN(test_q35_smp1);
	RUN(test_q35_smp4);
	RUN(test_q35_smp8_numa2);
	RUN(test_q35_x2apic_300);
	RUN(test_q35_smp4_maxcpus8);
	RUN(test_rsdp_rev0_uses_rsdt);
	RUN(test_madt_lapic_override);
	RUN(test_srat_sparse_domains);
	fixture_reset();
	return check_summary("acpi");
}
