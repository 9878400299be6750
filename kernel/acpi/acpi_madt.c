/* acpi_madt.c - reads the processors and the local APIC address from the MADT (ACPI 6.5 5.2.12). */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define MADT_SIG "APIC"

/* ---- Private Functions -------------------------------------------------- */

/* The kept processor with this APIC ID, or NULL. */
static struct acpi_cpu *madt_find_apic(struct acpi_madt_info *m, uint32_t apic_id)
{
	for (uint32_t i = 0; i < m->n_cpus; i++)
		if (m->cpus[i].apic_id == apic_id)
			return &m->cpus[i];
	return NULL;
}

/*
 * A second entry for an APIC ID already kept. Firmware commonly lists a CPU
 * twice, as a LAPIC entry and again as an x2APIC entry, and may list a
 * disabled placeholder before the enabled entry: both are normal, the entries
 * are merged and the enabled one wins. Only two enabled entries of the same
 * type are a real duplicate (an error; the later one is dropped).
 */
static void madt_repeat(struct acpi_info *out, struct acpi_cpu *cpu, uint32_t uid, uint32_t flags, bool x2apic,
			uint32_t off)
{
	struct acpi_madt_info *m = &out->madt;
	bool enabled = flags & ACPI_MADT_CPU_ENABLED;

	if (enabled && cpu->enabled && x2apic == cpu->from_x2apic_entry) {
		acpi_error(out, MADT_SIG, off, "duplicate APIC ID %u", cpu->apic_id);
		m->n_duplicates++;
		return;
	}
	m->n_merged++;
	if (enabled && !cpu->enabled) {
		cpu->enabled = true;
		cpu->uid = uid;
		cpu->from_x2apic_entry = x2apic;
		m->n_enabled++;
	}
	cpu->online_capable |= (flags & ACPI_MADT_CPU_ONLINE_CAPABLE) != 0;
}

/*
 * Keep one processor entry (found at offset off): a placeholder ID is
 * skipped, a repeated APIC ID is merged or dropped (madt_repeat), and past
 * QB_MAX_CPUS entries are counted (*first_drop remembers where).
 */
static void madt_add_cpu(struct acpi_info *out, uint32_t apic_id, uint32_t uid, uint32_t flags,
			 bool x2apic, uint32_t off, uint32_t *first_drop)
{
	struct acpi_madt_info *m = &out->madt;
	struct acpi_cpu *cpu;

	if (apic_id == (x2apic ? ACPI_MADT_X2APIC_ID_NONE : ACPI_MADT_LAPIC_ID_NONE)) {
		m->n_placeholders++;
		return;
	}
	cpu = madt_find_apic(m, apic_id);
	if (cpu) {
		madt_repeat(out, cpu, uid, flags, x2apic, off);
		return;
	}
	if (m->n_cpus >= QB_MAX_CPUS) {
		if (!m->n_dropped)
			*first_drop = off;
		m->n_dropped++;
		return;
	}
	cpu = &m->cpus[m->n_cpus++];
	cpu->apic_id = apic_id;
	cpu->uid = uid;
	cpu->enabled = flags & ACPI_MADT_CPU_ENABLED;
	cpu->online_capable = flags & ACPI_MADT_CPU_ONLINE_CAPABLE;
	cpu->from_x2apic_entry = x2apic;
	if (cpu->enabled)
		m->n_enabled++;
}

/* True if entry e at offset off has the length its type requires; else an error. */
static bool madt_len_ok(const struct acpi_subtable *e, size_t want, uint32_t off, struct acpi_info *out)
{
	if (e->length == want)
		return true;
	acpi_error(out, MADT_SIG, off, "entry at offset %u has wrong length", off);
	return false;
}

/* Decode one entry at offset off; false stops the walk (error recorded). */
static bool madt_entry(const struct acpi_subtable *e, uint32_t off, struct acpi_info *out,
		       uint32_t *first_drop)
{
	switch (e->type) {
	case ACPI_MADT_TYPE_LAPIC: {
		const struct acpi_madt_lapic *l = (const void *)e;

		if (!madt_len_ok(e, sizeof(*l), off, out))
			return false;
		madt_add_cpu(out, l->apic_id, l->processor_uid, l->flags, false, off, first_drop);
		return true;
	}
	case ACPI_MADT_TYPE_X2APIC: {
		const struct acpi_madt_x2apic *x = (const void *)e;

		if (!madt_len_ok(e, sizeof(*x), off, out))
			return false;
		madt_add_cpu(out, x->x2apic_id, x->processor_uid, x->flags, true, off, first_drop);
		return true;
	}
	case ACPI_MADT_TYPE_LAPIC_OVERRIDE: {
		const struct acpi_madt_lapic_override *o = (const void *)e;

		if (!madt_len_ok(e, sizeof(*o), off, out))
			return false;
		out->madt.lapic_addr = o->lapic_address;
		out->madt.lapic_overridden = true;
		return true;
	}
	default:
		return true; /* other controllers: skipped by their length */
	}
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_madt(const void *table, uint32_t len, struct acpi_info *out)
{
	struct acpi_madt_info *m = &out->madt;
	const struct acpi_madt_raw *raw = table;
	const struct acpi_subtable *e;
	uint32_t off = sizeof(*raw), first_drop = 0;

	memset(m, 0, sizeof(*m));
	len = acpi_table_len(table, len, MADT_SIG, sizeof(*raw), out);
	if (!len)
		return ACPI_ERR;
	m->present = true;
	m->lapic_addr = raw->lapic_address;
	m->flags = raw->flags;
	m->pcat_compat = raw->flags & ACPI_MADT_FLAG_PCAT_COMPAT;

	while ((e = acpi_subtable_next(table, len, &off, MADT_SIG, out)))
		if (!madt_entry(e, off - e->length, out, &first_drop))
			break;

	if (m->n_dropped)
		acpi_error(out, MADT_SIG, first_drop, "cpu limit, %u entries dropped", m->n_dropped);
	return 0;
}
