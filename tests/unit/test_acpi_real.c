/* test_acpi_real.c - kernel/acpi*.c against ACPI tables captured on real machines (tests/fixtures/real).
 *
 * Each NAME.bin holds the tables QuietBench reads from one machine of the
 * public linuxhw/ACPI collection, and NAME.expect what ACPICA's own
 * disassembler (iasl -d) decodes from the same bytes (tests/fixtures/real/
 * import.py writes both). For every machine: no error record (they are
 * healthy machines), every processor with its enabled state (placeholders
 * left out, repeated entries merged), every enabled SRAT processor and
 * memory affinity on its proximity domain, the HPET and the PM timer, and
 * the DMA remapping units: every DMAR DRHD with its segment and flags, the
 * RMRR count, and every IVRS IVHD, an IOMMU listed by several IVHD types
 * (10h for old OSes, 11h or 40h for new ones) kept once, at its highest type;
 * the SLIT's every distance, and the HMAT's every structure and entry
 * (acpi_expect.c).
 *
 * QB_ACPI_REAL_DIR overrides the directory; paths are relative to the repository root. */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>

#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_expect.h"
#include "acpi_fixture.h"
#include "acpi_testlib.h"

#define REAL_DIR_DEFAULT "tests/fixtures/real"
#define MAX_EXPECT_CPUS 4096
#define LAPIC_NONE 0xffu
#define X2APIC_NONE 0xffffffffu

static struct acpi_info info;

/* What the .expect file says: processors by APIC ID (enabled if any entry is). */
static struct expect {
	uint32_t n_ids;
	uint32_t id[MAX_EXPECT_CPUS];
	bool enabled[MAX_EXPECT_CPUS];
} ex;

static int expect_index(uint32_t id)
{
	for (uint32_t i = 0; i < ex.n_ids; i++)
		if (ex.id[i] == id)
			return (int)i;
	return -1;
}

static const struct acpi_cpu *madt_cpu(uint32_t id)
{
	for (uint32_t i = 0; i < info.madt.n_cpus; i++)
		if (info.madt.cpus[i].apic_id == id)
			return &info.madt.cpus[i];
	return NULL;
}

static bool srat_cpu_on(uint32_t apic, uint32_t domain)
{
	for (uint32_t i = 0; i < info.srat.n_cpus; i++)
		if (info.srat.cpus[i].apic_id == apic)
			return info.srat.nodes[info.srat.cpus[i].node].domain == domain;
	return false;
}

static bool srat_mem_on(uint64_t base, uint64_t len, uint32_t domain)
{
	for (uint32_t i = 0; i < info.srat.n_mem; i++)
		if (info.srat.mem[i].base == base && info.srat.mem[i].length == len)
			return info.srat.nodes[info.srat.mem[i].node].domain == domain;
	return false;
}

static const struct acpi_iommu *unit_at(const struct acpi_iommu *u, uint32_t n, uint64_t base, uint32_t seg)
{
	for (uint32_t i = 0; i < n; i++)
		if (u[i].base == base && u[i].segment == seg)
			return &u[i];
	return NULL;
}

/* The IOMMU lines of an .expect: drhd BASE SEG FLAGS, ivhd TYPE BASE SEG DEVID. */
struct iommu_expect {
	unsigned n_drhd, n_ivhd, n_ivrs_units;
	uint64_t ivrs_base[ACPI_MAX_IOMMUS];
	unsigned ivrs_seg[ACPI_MAX_IOMMUS], ivrs_type[ACPI_MAX_IOMMUS];
};

static unsigned check_iommu_line(const char *name, const char *line, struct iommu_expect *ie)
{
	uint64_t a;
	unsigned x, y, z;
	const struct acpi_iommu *u;
	if (sscanf(line, "dmar %x %x", &x, &y) == 2) {
		CHECK(info.dmar.present);
		CHECK_EQ_U(info.dmar.haw, x + 1);
		CHECK_EQ_U(info.dmar.flags, y);
	} else if (sscanf(line, "drhd %" SCNx64 " %u %x", &a, &x, &y) == 3) {
		ie->n_drhd++;
		u = unit_at(info.dmar.units, info.dmar.n_units, a, x);
		if (!u)
			printf("  %s: no DRHD at 0x%" PRIx64 " segment %u\n", name, a, x);
		CHECK(u != NULL && u->kind == ACPI_IOMMU_VTD && u->flags == y);
	} else if (sscanf(line, "dmar-rmrr %u", &x) == 1) {
		CHECK_EQ_U(info.dmar.n_rmrr, x);
	} else if (sscanf(line, "ivrs %x", &x) == 1) {
		CHECK(info.ivrs.present);
		CHECK_EQ_U(info.ivrs.ivinfo, x);
	} else if (sscanf(line, "ivhd %x %" SCNx64 " %u %x", &x, &a, &y, &z) == 4) {
		ie->n_ivhd++;
		u = unit_at(info.ivrs.units, info.ivrs.n_units, a, y);
		if (!u)
			printf("  %s: no IOMMU at 0x%" PRIx64 " segment %u\n", name, a, y);
		CHECK(u != NULL && u->kind == ACPI_IOMMU_AMD && u->device_id == z);
		unsigned k = 0;
		while (k < ie->n_ivrs_units && (ie->ivrs_base[k] != a || ie->ivrs_seg[k] != y))
			k++;
		if (k == ie->n_ivrs_units && k < ACPI_MAX_IOMMUS) {
			ie->ivrs_base[k] = a, ie->ivrs_seg[k] = y, ie->ivrs_type[k] = 0;
			ie->n_ivrs_units++;
		}
		if (k < ACPI_MAX_IOMMUS && x > ie->ivrs_type[k])
			ie->ivrs_type[k] = x;
	} else {
		return 0;
	}
	return 1;
}

/* After the lines: as many units as the .expect lists, each IOMMU at its highest IVHD type. */
static void check_iommu_counts(const struct iommu_expect *ie)
{
	CHECK_EQ_U(info.dmar.n_units, ie->n_drhd);
	CHECK_EQ_U(info.ivrs.n_ivhd, ie->n_ivhd);
	CHECK_EQ_U(info.ivrs.n_units, ie->n_ivrs_units);
	for (unsigned k = 0; k < ie->n_ivrs_units; k++) {
		const struct acpi_iommu *u = unit_at(info.ivrs.units, info.ivrs.n_units, ie->ivrs_base[k], ie->ivrs_seg[k]);
		CHECK(u != NULL && u->ivhd_type == ie->ivrs_type[k]);
	}
}

/* Check one machine; returns the number of expectations compared. */
static unsigned check_machine(const char *dir, const char *name)
{
	char path[512], line[256];
	unsigned compared = 0;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	fixture_reset();
	if (fixture_load(path)) {
		printf("  FAIL %s: cannot load %s\n", name, path);
		check_cur_failed = 1;
		return 0;
	}
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	if (info.n_errors)
		printf("  %s: first error: %s at 0x%" PRIx64 ": %s\n", name, info.errors[0].sig, info.errors[0].value,
		       info.errors[0].msg);
	CHECK_EQ_U(info.n_errors, 0); /* a healthy machine shows no error record */

	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return 0;
	memset(&ex, 0, sizeof(ex));
	struct iommu_expect ie;
	memset(&ie, 0, sizeof(ie));
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b;
		unsigned id, dom, en;
		if (sscanf(line, "cpu %u %u", &id, &en) == 2) {
			if (id == LAPIC_NONE || id == X2APIC_NONE)
				continue; /* placeholders describe no processor */
			int k = expect_index(id);
			if (k < 0 && ex.n_ids < MAX_EXPECT_CPUS) {
				k = (int)ex.n_ids++;
				ex.id[k] = id;
			}
			if (k >= 0)
				ex.enabled[k] |= en != 0;
		} else if (sscanf(line, "srat-cpu %u %u %u", &id, &dom, &en) == 3) {
			if (en && id != LAPIC_NONE && id != X2APIC_NONE) {
				if (!srat_cpu_on(id, dom))
					printf("  %s: SRAT CPU %u not on domain %u\n", name, id, dom);
				CHECK(srat_cpu_on(id, dom));
				compared++;
			}
		} else if (sscanf(line, "srat-mem %" SCNx64 " %" SCNx64 " %u %u", &a, &b, &dom, &en) == 4) {
			if (en && b) {
				if (!srat_mem_on(a, b, dom))
					printf("  %s: SRAT memory 0x%" PRIx64 "+0x%" PRIx64 " not on domain %u\n", name, a, b, dom);
				CHECK(srat_mem_on(a, b, dom));
				compared++;
			}
		} else if (sscanf(line, "hpet %" SCNx64, &a) == 1) {
			CHECK(info.hpet.present);
			CHECK_EQ_U(info.hpet.base, a);
			compared++;
		} else if (sscanf(line, "pm-timer %" SCNx64, &a) == 1) {
			if (a && !info.fadt.hw_reduced) {
				CHECK(info.fadt.pm_timer_present);
				CHECK_EQ_U(info.fadt.pm_timer_addr, a);
				compared++;
			}
		} else if (sscanf(line, "spcr %" SCNx64, &a) == 1) {
			/* base 0 means console redirection is off: ignored, and no error */
			if (a)
				CHECK_EQ_U(info.spcr.base.address, a);
			compared++;
		} else {
			int bad = acpi_expect_numa_line(&info, name, line, &compared);
			if (bad < 0)
				compared += check_iommu_line(name, line, &ie);
			else
				CHECK_EQ_I(bad, 0);
		}
	}
	fclose(f);
	check_iommu_counts(&ie);

	CHECK_EQ_U(info.madt.n_cpus, ex.n_ids);
	for (uint32_t i = 0; i < ex.n_ids; i++) {
		const struct acpi_cpu *c = madt_cpu(ex.id[i]);
		if (!c || c->enabled != ex.enabled[i])
			printf("  %s: APIC ID %u: %s, expected %s\n", name, ex.id[i],
			       !c ? "missing" : c->enabled ? "enabled" : "disabled", ex.enabled[i] ? "enabled" : "disabled");
		CHECK(c != NULL && c->enabled == ex.enabled[i]);
		compared++;
	}
	printf("  %-28s %4u processors (%u enabled), %u nodes, %u memory ranges, %u IOMMUs, %u values compared\n",
	       name, info.madt.n_cpus, info.madt.n_enabled, info.srat.n_nodes, info.srat.n_mem,
	       info.dmar.n_units + info.ivrs.n_units, compared);
	return compared;
}

TEST(test_real_machines)
{
	const char *dir = getenv("QB_ACPI_REAL_DIR") ? getenv("QB_ACPI_REAL_DIR") : REAL_DIR_DEFAULT;
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned machines = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char name[256];
		if (n < 5 || strcmp(e->d_name + n - 4, ".bin") || n - 4 >= sizeof(name))
			continue;
		memcpy(name, e->d_name, n - 4);
		name[n - 4] = 0;
		CHECK(check_machine(dir, name) > 0);
		machines++;
	}
	closedir(d);
	CHECK(machines >= 12);
}

int main(void)
{
	RUN(test_real_machines);
	return check_summary("acpi_real");
}
