/* test_acpi.c - host tests of kernel/acpi*.c on QEMU q35-like tables built in fake physical memory (ACPI 6.5 ch. 5.2), their malformed copies, and QBACPI01 fixture files.
 *
 * Usage: acpi                  run the tests
 *        acpi --write-log PATH write the synthetic smp8-numa2 layout as a dump=acpi serial log */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_fixture.h"

#define FIXTURE_DIR_DEFAULT "tests/fixtures/acpi"
#define MIB (1024ull * 1024)

static struct acpi_info info;
static struct fx_table tbl;

static const struct fx_q35 smp1 = { .n_cpus = 1, .n_enabled = 1, .rsdp_rev = 2 };
static const struct fx_q35 smp4 = { .n_cpus = 4, .n_enabled = 4, .rsdp_rev = 2 };
static const struct fx_q35 smp8_numa2 = {
	.n_cpus = 8, .n_enabled = 8, .n_nodes = 2, .node_mem = 512 * MIB, .rsdp_rev = 2,
};
static const uint32_t ids_x2[] = { 0, 1, 2, 300 };
static const struct fx_q35 x2apic300 = {
	.n_cpus = 4, .n_enabled = 4, .apic_ids = ids_x2, .n_nodes = 2, .node_mem = 512 * MIB,
	.rsdp_rev = 2,
};
static const struct fx_q35 smp4_max8 = { .n_cpus = 8, .n_enabled = 4, .rsdp_rev = 2 };

/* Compare two signed integers (return codes, node numbers) and print both on failure. */
#define CHECK_EQ_I(a, b)                                                       \
	do {                                                                   \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
		if (check_a_ != check_b_) {                                    \
			printf("  FAIL %s:%d: %s: %s == %s (%lld != %lld)\n",  \
			       __FILE__, __LINE__, check_cur_name, #a, #b,     \
			       check_a_, check_b_);                            \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

/* Check error i exactly: signature, message and context value. */
#define CHECK_ERR(i, sig_, msg_, value_)                                       \
	do {                                                                   \
		CHECK(info.n_errors > (i));                                    \
		if (info.n_errors > (i)) {                                     \
			CHECK_STR(info.errors[i].sig, sig_);                   \
			CHECK_STR(info.errors[i].msg, msg_);                   \
			CHECK_EQ_U(info.errors[i].value, value_);              \
		}                                                              \
	} while (0)

/* Flip one bit of the byte at off in the region at phys. */
static void flip(uint64_t phys, uint32_t off)
{
	fixture_bytes(phys)[off] ^= 0x40;
}

/* Set the header length of the table at phys, checksum fixed or not. */
static void set_len(uint64_t phys, uint32_t len, bool fix)
{
	memcpy(fixture_bytes(phys) + 4, &len, 4);
	if (fix)
		fx_fix_checksum(phys);
}

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

/* ---- Any input: truncations and mutations --------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t bound)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % bound);
}

/* What every parse result must satisfy, whatever the input was. */
static void check_invariants(void)
{
	const struct acpi_srat_info *s = &info.srat;

	CHECK(info.n_tables <= QB_MAX_ACPI_TABLES);
	CHECK(info.n_errors <= ACPI_MAX_ERRORS);
	for (uint32_t i = 0; i < info.n_errors && i < ACPI_MAX_ERRORS; i++) {
		CHECK(memchr(info.errors[i].msg, 0, ACPI_ERR_MSG_LEN) != NULL);
		CHECK(strlen(info.errors[i].sig) == 4);
	}
	CHECK(info.madt.n_cpus <= QB_MAX_CPUS);
	CHECK(info.madt.n_enabled <= info.madt.n_cpus);
	for (uint32_t i = 0; i < info.madt.n_cpus && i < QB_MAX_CPUS; i++)
		for (uint32_t j = 0; j < i; j++)
			CHECK(info.madt.cpus[i].apic_id != info.madt.cpus[j].apic_id);
	CHECK(s->n_nodes <= QB_MAX_NODES && s->n_cpus <= QB_MAX_CPUS && s->n_mem <= QB_MAX_SRAT_MEM);
	for (uint32_t i = 1; i < s->n_nodes && i < QB_MAX_NODES; i++)
		CHECK(s->nodes[i - 1].domain < s->nodes[i].domain);
	for (uint32_t i = 0; i < s->n_cpus && i < QB_MAX_CPUS; i++)
		CHECK(s->cpus[i].node < s->n_nodes);
	for (uint32_t i = 0; i < s->n_mem && i < QB_MAX_SRAT_MEM; i++) {
		CHECK(s->mem[i].node < s->n_nodes);
		CHECK(s->mem[i].length && s->mem[i].base + s->mem[i].length > s->mem[i].base);
	}
	CHECK(!info.hpet.present || info.hpet.base);
}

TEST(test_fuzz_truncate_and_mutate)
{
	static const struct {
		uint64_t phys;
		int (*parse)(const void *table, uint32_t len, struct acpi_info *out);
	} t[] = {
		{ FX_MADT_PHYS, acpi_parse_madt }, { FX_SRAT_PHYS, acpi_parse_srat },
		{ FX_FADT_PHYS, acpi_parse_fadt }, { FX_HPET_PHYS, acpi_parse_hpet },
		{ FX_SPCR_PHYS, acpi_parse_spcr },
	};

	fx_build_q35(&x2apic300);
	for (size_t k = 0; k < ARRAY_SIZE(t); k++) {
		uint32_t full = fixture_len(t[k].phys), last_cpus = 0;
		const uint8_t *orig = fixture_bytes(t[k].phys);

		for (uint32_t cut = 0; cut <= full; cut++) {
			uint8_t *buf = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */

			memcpy(buf, orig, cut);
			if (cut >= 8)
				memcpy(buf + 4, &cut, 4);
			memset(&info, 0, sizeof(info));
			t[k].parse(buf, cut, &info);
			check_invariants();
			CHECK(info.madt.n_cpus >= last_cpus);
			last_cpus = info.madt.n_cpus;
			free(buf);
		}
		if (t[k].phys == FX_MADT_PHYS)
			CHECK_EQ_U(last_cpus, 4);
		for (int iter = 0; iter < 2000; iter++) {
			uint8_t *buf = malloc(full);
			uint32_t flips = 1 + rnd(4);

			memcpy(buf, orig, full);
			while (flips--)
				buf[4 + rnd(full - 4)] = (uint8_t)rnd(256);
			memset(&info, 0, sizeof(info));
			t[k].parse(buf, full, &info);
			check_invariants();
			free(buf);
		}
	}

	/* Whole walks over mutated memory, half of them with checksums fixed up. */
	for (int iter = 0; iter < 400; iter++) {
		uint64_t phys;
		uint32_t len;

		fx_build_q35(&x2apic300);
		fixture_region(rnd(fixture_count()), &phys, &len);
		fixture_bytes(phys)[rnd(len)] = (uint8_t)rnd(256);
		if (iter & 1) {
			fx_fix_checksum(phys);
			fx_fix_rsdp(FX_RSDP_PHYS);
		}
		acpi_parse(fixture_rsdp(), &info);
		check_invariants();
	}
}

/* ---- Fixture files ---------------------------------------------------------- */

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(p, 1, n, f);
	return fclose(f);
}

TEST(test_fixture_file_format)
{
	char dir[] = "/tmp/qb-acpi-XXXXXX", path[64];
	uint8_t bad[64] = "QBACPI01";
	uint32_t n_before;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	fx_build_q35(&smp8_numa2);
	n_before = fixture_count();
	CHECK_EQ_U(fixture_save(path), 0);
	fixture_reset();
	CHECK_EQ_I(fixture_load(path), 0);
	CHECK_EQ_U(fixture_count(), n_before);
	CHECK_EQ_U(fixture_rsdp(), FX_RSDP_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_enabled, 8);
	CHECK_EQ_U(info.srat.n_nodes, 2);

	memcpy(bad + 8, &(uint64_t){ FX_RSDP_PHYS }, 8);
	CHECK(write_file(path, bad, 16) == 0);                  /* no record holds the RSDP */
	CHECK_EQ_I(fixture_load(path), -1);
	CHECK(write_file(path, bad, 21) == 0);                  /* truncated record header */
	CHECK_EQ_I(fixture_load(path), -1);
	memcpy(bad + 16, &(uint64_t){ FX_RSDP_PHYS }, 8);
	CHECK(write_file(path, bad, 28) == 0);                  /* record of length 0 */
	CHECK_EQ_I(fixture_load(path), -1);
	bad[24] = 36;
	CHECK(write_file(path, bad, 40) == 0);                  /* 36 bytes promised, 12 there */
	CHECK_EQ_I(fixture_load(path), -1);
	bad[7] = '2';
	CHECK(write_file(path, bad, 64) == 0);                  /* bad magic */
	CHECK_EQ_I(fixture_load(path), -1);
	CHECK_EQ_U(fixture_count(), 0);
	unlink(path);
	CHECK_EQ_I(fixture_load(path), -1);           /* missing */
	rmdir(dir);
}

/* Run tools/acpi-fixture on a log written from the builder and compare. */
TEST(test_fixture_tool)
{
	char dir[] = "/tmp/qb-acpi-XXXXXX", log[64], bin[64], cmd[256], *text, *hex;
	static uint8_t saved[FIXTURE_MAX_REGIONS][FX_MAX_TABLE];
	uint64_t phys[FIXTURE_MAX_REGIONS];
	uint32_t len[FIXTURE_MAX_REGIONS];
	unsigned n;
	long size;
	FILE *f;

	if (system("python3 -c '' 2>/dev/null") != 0) {
		printf("  SKIP test_fixture_tool: no python3\n");
		return;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(log, sizeof(log), "%s/serial.log", dir);
	snprintf(bin, sizeof(bin), "%s/out.bin", dir);
	fx_build_q35(&smp8_numa2);
	n = fixture_count();
	for (unsigned i = 0; i < n; i++) {
		fixture_region(i, &phys[i], &len[i]);
		memcpy(saved[i], fixture_bytes(phys[i]), len[i]);
	}
	CHECK_EQ_U(fixture_write_log(log), 0);
	snprintf(cmd, sizeof(cmd), "tools/acpi-fixture %s %s", log, bin);
	CHECK_EQ_U(system(cmd), 0);
	CHECK_EQ_I(fixture_load(bin), 0);
	CHECK_EQ_U(fixture_rsdp(), FX_RSDP_PHYS);
	CHECK_EQ_U(fixture_count(), n);
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ_U(fixture_len(phys[i]), len[i]);
		CHECK(fixture_bytes(phys[i]) && !memcmp(fixture_bytes(phys[i]), saved[i], len[i]));
	}
	unlink(bin);

	/* One hex digit changed under an unchanged CRC: the tool must refuse. */
	f = fopen(log, "rb+");
	CHECK(f != NULL);
	if (f) {
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		text = calloc(1, (size_t)size + 1);
		rewind(f);
		CHECK_EQ_U(fread(text, 1, (size_t)size, f), size);
		hex = strstr(text, "\"hex\":\"");
		CHECK(hex != NULL);
		if (hex) {
			hex[7] = hex[7] == '0' ? '1' : '0';
			rewind(f);
			fwrite(text, 1, (size_t)size, f);
		}
		fclose(f);
		free(text);
	}
	snprintf(cmd, sizeof(cmd), "tools/acpi-fixture %s %s 2>/dev/null", log, bin);
	CHECK(system(cmd) != 0);
	CHECK(access(bin, F_OK) != 0);
	unlink(log);
	rmdir(dir);
}

/* N from a "<key>N" token of a fixture name such as q35-smp4-maxcpus8.bin; -1 if absent. */
static long name_count(const char *name, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = name; *p; p++) {
		if ((p == name || p[-1] == '-' || p[-1] == '_') && !strncmp(p, key, klen) &&
		    p[klen] >= '0' && p[klen] <= '9')
			return strtol(p + klen, NULL, 10);
	}
	return -1;
}

static bool part_present(const char *sig)
{
	if (!strcmp(sig, "APIC"))
		return info.madt.present;
	if (!strcmp(sig, "SRAT"))
		return info.srat.present;
	if (!strcmp(sig, "FACP"))
		return info.fadt.present;
	if (!strcmp(sig, "HPET"))
		return info.hpet.present;
	if (!strcmp(sig, "SPCR"))
		return info.spcr.present;
	return false;
}

/* Damage the region at phys one way, check it is refused, then restore it. */
static void check_derivative(uint64_t phys, uint32_t len, const struct acpi_info *good, int how)
{
	uint8_t *b = fixture_bytes(phys);
	static uint8_t saved[FIXTURE_MAX_REGION_LEN];
	bool is_root = phys == good->rsdp.root_phys;
	const char *msg = how == 0 ? "bad checksum" : how == 1 ? "length 20 below header"
								: "length overruns mapping";
	char sig[5] = { 0 };
	int rc;

	memcpy(saved, b, len);
	if (how == 0)
		b[len - 1] ^= 0x40;
	else
		set_len(phys, how == 1 ? 20 : len + 1, false);
	memcpy(sig, b, 4);
	rc = acpi_parse(fixture_rsdp(), &info);
	check_invariants();
	CHECK(info.n_errors > 0);
	if (info.n_errors) {
		CHECK_STR(info.errors[0].sig, is_root ? (good->rsdp.used_xsdt ? "XSDT" : "RSDT") : sig);
		CHECK_STR(info.errors[0].msg, msg);
		CHECK_EQ_U(info.errors[0].value, phys);
	}
	if (is_root) {
		CHECK(!info.rsdp.used_xsdt);
		CHECK(good->rsdp.used_xsdt || rc < 0);
	} else {
		for (uint32_t i = 0; i < info.n_tables; i++)
			if (info.tables[i].phys == phys)
				CHECK(!info.tables[i].valid);
		if (!acpi_table(&info, sig))
			CHECK(!part_present(sig));
		if (!strcmp(sig, "APIC") && !acpi_table(&info, "APIC"))
			CHECK(rc < 0);
	}
	memcpy(b, saved, len);
}

static void check_fixture_file(const char *path, const char *name)
{
	static struct acpi_info good;
	long smp = name_count(name, "smp"), numa = name_count(name, "numa");
	long max = name_count(name, "maxcpus") >= 0 ? name_count(name, "maxcpus") : name_count(name, "max");
	uint64_t phys;
	uint32_t len;

	CHECK_EQ_I(fixture_load(path), 0);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	for (uint32_t i = 0; i < info.n_errors && i < ACPI_MAX_ERRORS; i++)
		printf("  %s: error %s: %s (0x%llx)\n", name, info.errors[i].sig, info.errors[i].msg,
		       (unsigned long long)info.errors[i].value);
	CHECK_EQ_U(info.n_errors, 0);
	for (uint32_t i = 0; i < info.n_tables; i++)
		CHECK(info.tables[i].valid);
	CHECK(info.madt.present);
	CHECK(smp > 0);
	CHECK_EQ_U(info.madt.n_enabled, smp);
	CHECK_EQ_U(info.madt.n_cpus, max > 0 ? max : smp);
	CHECK_EQ_U(info.srat.n_nodes, numa > 0 ? numa : 0);
	printf("  %s: %u tables, %u cpus (%u enabled), %u nodes\n", name, info.n_tables,
	       info.madt.n_cpus, info.madt.n_enabled, info.srat.n_nodes);
	good = info;

	for (unsigned i = 0; fixture_region(i, &phys, &len); i++) {
		bool listed = false;

		for (uint32_t k = 0; k < good.n_tables; k++)
			listed |= good.tables[k].phys == phys;
		if (phys == fixture_rsdp()) {
			fixture_bytes(phys)[8] ^= 0x40;
			CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
			CHECK_ERR(0, "RSDP", "bad checksum", phys);
			fixture_bytes(phys)[8] ^= 0x40;
		} else if (listed || phys == good.rsdp.root_phys) {
			for (int how = 0; how < 3; how++)
				check_derivative(phys, len, &good, how);
		}
	}
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0); /* restored intact */
	CHECK_EQ_U(info.n_errors, 0);
}

TEST(test_fixture_files)
{
	const char *dir = getenv("QB_ACPI_FIXTURE_DIR") ? getenv("QB_ACPI_FIXTURE_DIR")
							: FIXTURE_DIR_DEFAULT;
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int n = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".bin"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		check_fixture_file(path, e->d_name);
		n++;
	}
	closedir(d);
	printf("  %d fixture file(s) in %s\n", n, dir);
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
	RUN(test_bad_checksum_each_table);
	RUN(test_bad_rsdp);
	RUN(test_xsdt_bad_falls_back_to_rsdt);
	RUN(test_truncated_tables);
	RUN(test_madt_entry_length_zero);
	RUN(test_madt_entry_overruns);
	RUN(test_madt_wrong_length_entry);
	RUN(test_madt_duplicate_apic_id);
	RUN(test_srat_domain_limit);
	RUN(test_srat_malformed);
	RUN(test_fadt_variants);
	RUN(test_hpet_not_memory);
	RUN(test_spcr_baud);
	RUN(test_madt_cpu_limit);
	RUN(test_root_entries);
	RUN(test_first_valid_table_wins);
	RUN(test_fuzz_truncate_and_mutate);
	RUN(test_fixture_file_format);
	RUN(test_fixture_tool);
	RUN(test_fixture_files);
	fixture_reset();
	return check_summary("acpi");
}
