/* fuzz_acpi_check.h - the invariants of a struct acpi_info (kernel/acpi/acpi.h) after any input, for the ACPI harnesses.
 *
 * Header-only: fuzz_acpi.c and fuzz_acpi_table.c include it once each. */
#ifndef QB_TESTS_FUZZ_ACPI_CHECK_H
#define QB_TESTS_FUZZ_ACPI_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "acpi.h"
#include "fuzz.h"

/* Every kept error names a printable 4-byte signature and a terminated message. */
static void check_errors(const struct acpi_info *a)
{
	FUZZ_ASSERT(a->n_errors <= ACPI_MAX_ERRORS);
	FUZZ_ASSERT(a->n_errors_lost == 0 || a->n_errors == ACPI_MAX_ERRORS);
	for (uint32_t i = 0; i < a->n_errors; i++) {
		const struct acpi_error *e = &a->errors[i];

		FUZZ_ASSERT(fuzz_cstr_ok(e->sig, sizeof(e->sig)) && strlen(e->sig) == ACPI_SIG_LEN);
		FUZZ_ASSERT(fuzz_cstr_ok(e->msg, sizeof(e->msg)) && e->msg[0]);
	}
}

/* MADT: counts agree with cpus[], APIC IDs are unique. */
static void check_madt(const struct acpi_madt_info *m)
{
	uint32_t enabled = 0;

	if (!m->present) {
		FUZZ_ASSERT(m->n_cpus == 0 && m->n_enabled == 0);
		return;
	}
	FUZZ_ASSERT(m->n_cpus <= QB_MAX_CPUS);
	FUZZ_ASSERT(m->n_dropped == 0 || m->n_cpus == QB_MAX_CPUS);
	for (uint32_t i = 0; i < m->n_cpus; i++) {
		enabled += m->cpus[i].enabled;
		for (uint32_t k = 0; k < i; k++)
			FUZZ_ASSERT(m->cpus[k].apic_id != m->cpus[i].apic_id);
	}
	FUZZ_ASSERT(enabled == m->n_enabled);
}

/* SRAT: dense nodes sorted by domain, every affinity on a kept node, sums agree. */
static void check_srat(const struct acpi_info *a)
{
	const struct acpi_srat_info *s = &a->srat;
	uint32_t cpus_on_nodes = 0;

	if (!s->present) {
		FUZZ_ASSERT(s->n_nodes == 0 && s->n_cpus == 0 && s->n_mem == 0);
		FUZZ_ASSERT(acpi_node_of_apic(a, 0) == -1 && acpi_node_of_addr(a, 0) == -1);
		return;
	}
	FUZZ_ASSERT(s->n_nodes <= QB_MAX_NODES);
	FUZZ_ASSERT(s->n_cpus <= QB_MAX_CPUS);
	FUZZ_ASSERT(s->n_mem <= QB_MAX_SRAT_MEM);
	FUZZ_ASSERT(s->n_dropped_mem == 0 || s->n_mem == QB_MAX_SRAT_MEM);
	for (uint32_t i = 1; i < s->n_nodes; i++)
		FUZZ_ASSERT(s->nodes[i - 1].domain < s->nodes[i].domain);
	for (uint32_t i = 0; i < s->n_cpus; i++) {
		FUZZ_ASSERT(s->cpus[i].node < s->n_nodes);
		for (uint32_t k = 0; k < i; k++)
			FUZZ_ASSERT(s->cpus[k].apic_id != s->cpus[i].apic_id);
		FUZZ_ASSERT(acpi_node_of_apic(a, s->cpus[i].apic_id) == (int)s->cpus[i].node);
	}
	for (uint32_t n = 0; n < s->n_nodes; n++) {
		uint64_t sum = 0;

		cpus_on_nodes += s->nodes[n].n_cpus;
		for (uint32_t i = 0; i < s->n_mem; i++) {
			if (s->mem[i].node != n)
				continue;
			sum = sum + s->mem[i].length < sum ? UINT64_MAX : sum + s->mem[i].length;
		}
		FUZZ_ASSERT(s->nodes[n].mem_bytes == sum);
	}
	FUZZ_ASSERT(cpus_on_nodes == s->n_cpus);
	for (uint32_t i = 0; i < s->n_mem; i++) {
		const struct acpi_mem_affinity *r = &s->mem[i];
		int node = acpi_node_of_addr(a, r->base + r->length - 1);

		FUZZ_ASSERT(r->length > 0 && r->base + r->length - 1 >= r->base);
		FUZZ_ASSERT(r->node < s->n_nodes);
		FUZZ_ASSERT(node >= 0 && (uint32_t)node < s->n_nodes);
	}
}

/* The fixed tables: what "present" promises. */
static void check_fixed(const struct acpi_info *a)
{
	if (a->fadt.present) {
		FUZZ_ASSERT(a->fadt.length >= 116);  /* the ACPI 1.0 FADT */
		FUZZ_ASSERT(!(a->fadt.hw_reduced && a->fadt.pm_timer_present));
	} else {
		FUZZ_ASSERT(!a->fadt.pm_timer_present && !a->fadt.reset_present);
	}
	if (a->hpet.present) {
		FUZZ_ASSERT(a->hpet.base != 0);
		FUZZ_ASSERT(a->hpet.n_comparators >= 1 && a->hpet.n_comparators <= 32);
	}
	if (!a->spcr.present)
		FUZZ_ASSERT(a->spcr.baud == 0 && a->spcr.base.address == 0);
}

/* The remapping units: as many as kept, each with a register base, of its table's kind. */
static void check_units(bool present, uint32_t n, const struct acpi_iommu *u, uint8_t kind)
{
	FUZZ_ASSERT(n <= ACPI_MAX_IOMMUS);
	FUZZ_ASSERT(present || n == 0);
	for (uint32_t i = 0; i < n; i++) {
		FUZZ_ASSERT(u[i].base != 0 && u[i].kind == kind);
		for (uint32_t j = 0; j < i && kind == ACPI_IOMMU_AMD; j++)
			FUZZ_ASSERT(u[j].base != u[i].base || u[j].segment != u[i].segment);
	}
}

/* SLIT and HMAT: within their limits, every kept distance valid, every
 * structure's entries inside the pool, every decoded value positive. */
static void check_numa_fw(const struct acpi_info *a)
{
	const struct acpi_slit_info *s = &a->slit;
	const struct acpi_hmat_info *h = &a->hmat;

	FUZZ_ASSERT(s->present || s->n == 0);
	FUZZ_ASSERT(s->n <= QB_MAX_NODES && s->n <= s->localities);
	for (uint32_t i = 0; i < s->n; i++)
		for (uint32_t j = 0; j < s->n; j++)
			FUZZ_ASSERT(i == j ? s->dist[i][j] == 10 : s->dist[i][j] > 10);
	FUZZ_ASSERT(h->present || (h->n_domains == 0 && h->n_lb == 0 && h->n_caches == 0));
	FUZZ_ASSERT(h->n_domains <= ACPI_HMAT_MAX_DOMAINS && h->n_lb <= ACPI_HMAT_MAX_LB);
	FUZZ_ASSERT(h->n_caches <= ACPI_HMAT_MAX_CACHES && h->n_entries <= ACPI_HMAT_MAX_ENTRIES);
	for (uint32_t k = 0; k < h->n_lb; k++) {
		const struct acpi_hmat_lb *lb = &h->lb[k];
		double v;

		FUZZ_ASSERT(lb->n_init <= ACPI_HMAT_MAX_LIST && lb->n_target <= ACPI_HMAT_MAX_LIST);
		FUZZ_ASSERT(lb->first + lb->n_init * lb->n_target <= h->n_entries);
		for (uint32_t i = 0; i < lb->n_init; i++)
			for (uint32_t j = 0; j < lb->n_target; j++)
				FUZZ_ASSERT(!acpi_hmat_lb_value(h, lb, i, j, &v) || v > 0);
	}
}

/* Everything that holds for any acpi_info, however it was filled. */
static void check_acpi_info(const struct acpi_info *a)
{
	check_errors(a);
	FUZZ_ASSERT(a->n_tables <= QB_MAX_ACPI_TABLES);
	for (uint32_t i = 0; i < a->n_tables; i++) {
		const struct acpi_table_ref *t = &a->tables[i];

		FUZZ_ASSERT(fuzz_cstr_ok(t->sig, sizeof(t->sig)));
		FUZZ_ASSERT(fuzz_cstr_ok(t->oem_id, sizeof(t->oem_id)));
		if (t->valid)
			FUZZ_ASSERT(t->phys && t->length >= ACPI_HEADER_LEN &&
				    t->length <= ACPI_MAX_TABLE_LEN);
	}
	FUZZ_ASSERT(fuzz_cstr_ok(a->rsdp.oem_id, sizeof(a->rsdp.oem_id)));
	check_madt(&a->madt);
	check_srat(a);
	check_numa_fw(a);
	check_fixed(a);
	check_units(a->dmar.present, a->dmar.n_units, a->dmar.units, ACPI_IOMMU_VTD);
	check_units(a->ivrs.present, a->ivrs.n_units, a->ivrs.units, ACPI_IOMMU_AMD);
	FUZZ_ASSERT(a->ivrs.n_units <= a->ivrs.n_ivhd);
}

#endif
