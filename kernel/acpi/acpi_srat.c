/* acpi_srat.c - reads CPU and memory NUMA affinity from the SRAT (ACPI 6.5 5.2.16) and numbers its proximity domains densely. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define SRAT_SIG "SRAT"
#define SRAT_BITS_PER_BYTE 8
#define SRAT_HI_SHIFT 32              /* base_hi/length_hi hold bits 63:32 */

/* ---- Types -------------------------------------------------------------- */

/* What one SRAT entry says, once decoded. */
enum srat_kind {
	SRAT_SKIP,                     /* unknown type, disabled or empty: ignored */
	SRAT_CPU,
	SRAT_MEM,
	SRAT_BAD,                      /* malformed: the walk stops here */
};

struct srat_entry {
	uint32_t domain;
	uint32_t apic_id;              /* SRAT_CPU */
	uint64_t base;                 /* SRAT_MEM */
	uint64_t length;               /* SRAT_MEM */
	uint32_t flags;
};

/* Where the first entry of each kind of drop was, for the errors. */
struct srat_drops {
	uint32_t domain_off;
	uint32_t cpu_off;
	uint32_t cpu_limit;            /* CPU affinities past QB_MAX_CPUS */
	uint32_t mem_off;
};

/* The kept proximity domains, sorted: index = dense node number. */
struct srat_domains {
	uint32_t n;
	uint32_t dom[QB_MAX_NODES];
};

/* ---- Private Functions -------------------------------------------------- */

/*
 * Decode entry e at offset off. Errors (wrong length for a known type, a
 * memory range that wraps) are recorded only when out is non-NULL, so the
 * second pass over the same entries stays quiet.
 */
static enum srat_kind srat_decode(const struct acpi_subtable *e, uint32_t off,
				  struct srat_entry *d, struct acpi_info *out)
{
	size_t want;

	switch (e->type) {
	case ACPI_SRAT_TYPE_CPU:
		want = sizeof(struct acpi_srat_cpu);
		break;
	case ACPI_SRAT_TYPE_MEM:
		want = sizeof(struct acpi_srat_mem);
		break;
	case ACPI_SRAT_TYPE_X2APIC:
		want = sizeof(struct acpi_srat_x2apic);
		break;
	default:
		return SRAT_SKIP;
	}
	if (e->length != want) {
		if (out)
			acpi_error(out, SRAT_SIG, off, "entry at offset %u has wrong length", off);
		return SRAT_BAD;
	}

	memset(d, 0, sizeof(*d));
	if (e->type == ACPI_SRAT_TYPE_CPU) {
		const struct acpi_srat_cpu *c = (const void *)e;

		d->flags = c->flags;
		d->apic_id = c->apic_id;
		d->domain = c->domain_lo;
		for (uint32_t i = 0; i < ACPI_SRAT_DOMAIN_HI_LEN; i++)
			d->domain |= (uint32_t)c->domain_hi[i]
				     << (ACPI_SRAT_DOMAIN_HI_SHIFT + i * SRAT_BITS_PER_BYTE);
	} else if (e->type == ACPI_SRAT_TYPE_X2APIC) {
		const struct acpi_srat_x2apic *x = (const void *)e;

		d->flags = x->flags;
		d->apic_id = x->x2apic_id;
		d->domain = x->domain;
	} else {
		const struct acpi_srat_mem *m = (const void *)e;

		d->flags = m->flags;
		d->domain = m->domain;
		d->base = (uint64_t)m->base_hi << SRAT_HI_SHIFT | m->base_lo;
		d->length = (uint64_t)m->length_hi << SRAT_HI_SHIFT | m->length_lo;
	}
	if (!(d->flags & ACPI_SRAT_ENABLED))
		return SRAT_SKIP;
	if (e->type != ACPI_SRAT_TYPE_MEM)
		return SRAT_CPU;
	if (!d->length)
		return SRAT_SKIP;
	if (d->base + d->length < d->base) {
		if (out)
			acpi_error(out, SRAT_SIG, off, "memory at offset %u wraps", off);
		return SRAT_SKIP;
	}
	return SRAT_MEM;
}

/* Dense node of domain, or -1 if it is not among the kept domains. */
static int srat_node(const struct srat_domains *s, uint32_t domain)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->dom[i] == domain)
			return (int)i;
	return -1;
}

/* Add domain to the sorted set, keeping the QB_MAX_NODES lowest domains. */
static void srat_add_domain(struct srat_domains *s, uint32_t domain)
{
	uint32_t i;

	if (srat_node(s, domain) >= 0)
		return;
	if (s->n == QB_MAX_NODES) {
		if (domain > s->dom[s->n - 1])
			return;
		s->n--; /* the highest domain makes room */
	}
	for (i = s->n; i > 0 && s->dom[i - 1] > domain; i--)
		s->dom[i] = s->dom[i - 1];
	s->dom[i] = domain;
	s->n++;
}

/* Record an enabled CPU affinity on node (dropped if repeated or past the limit). */
static void srat_add_cpu(struct acpi_info *out, const struct srat_entry *d, uint32_t node,
			 uint32_t off, struct srat_drops *drops)
{
	struct acpi_srat_info *s = &out->srat;

	for (uint32_t i = 0; i < s->n_cpus; i++) {
		if (s->cpus[i].apic_id == d->apic_id) {
			acpi_error(out, SRAT_SIG, off, "duplicate APIC ID %u", d->apic_id);
			s->n_dropped_cpu++;
			return;
		}
	}
	if (s->n_cpus >= QB_MAX_CPUS) {
		if (!drops->cpu_limit++)
			drops->cpu_off = off;
		s->n_dropped_cpu++;
		return;
	}
	s->cpus[s->n_cpus].apic_id = d->apic_id;
	s->cpus[s->n_cpus].node = node;
	s->n_cpus++;
	s->nodes[node].n_cpus++;
}

/* Record an enabled memory range on node (dropped past the limit). */
static void srat_add_mem(struct acpi_info *out, const struct srat_entry *d, uint32_t node,
			 uint32_t off, struct srat_drops *drops)
{
	struct acpi_srat_info *s = &out->srat;
	struct acpi_mem_affinity *r;
	uint64_t sum;

	if (s->n_mem >= QB_MAX_SRAT_MEM) {
		if (!s->n_dropped_mem)
			drops->mem_off = off;
		s->n_dropped_mem++;
		return;
	}
	r = &s->mem[s->n_mem++];
	r->base = d->base;
	r->length = d->length;
	r->node = node;
	r->hot_pluggable = d->flags & ACPI_SRAT_MEM_HOT_PLUGGABLE;
	r->non_volatile = d->flags & ACPI_SRAT_MEM_NON_VOLATILE;
	sum = s->nodes[node].mem_bytes + d->length;
	s->nodes[node].mem_bytes = sum < d->length ? UINT64_MAX : sum;
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_srat(const void *table, uint32_t len, struct acpi_info *out)
{
	struct acpi_srat_info *s = &out->srat;
	struct srat_domains doms = { 0 };
	struct srat_drops drops = { 0 };
	const struct acpi_subtable *e;
	struct srat_entry d;
	uint32_t off, end;

	memset(s, 0, sizeof(*s));
	len = acpi_table_len(table, len, SRAT_SIG, sizeof(struct acpi_srat_raw), out);
	if (!len)
		return ACPI_ERR;

	/* Pass 1: find where the walk ends and which domains are used. */
	off = sizeof(struct acpi_srat_raw);
	while ((e = acpi_subtable_next(table, len, &off, SRAT_SIG, out))) {
		enum srat_kind k = srat_decode(e, off - e->length, &d, out);

		if (k == SRAT_BAD) {
			off -= e->length;
			break;
		}
		if (k != SRAT_SKIP)
			srat_add_domain(&doms, d.domain);
	}
	end = off;

	s->present = true;
	s->n_nodes = doms.n;
	for (uint32_t i = 0; i < doms.n; i++)
		s->nodes[i].domain = doms.dom[i];

	/* Pass 2: the same entries, up to end, now with dense node numbers. */
	off = sizeof(struct acpi_srat_raw);
	while (off < end && (e = acpi_subtable_next(table, end, &off, SRAT_SIG, NULL))) {
		uint32_t eoff = off - e->length;
		enum srat_kind k = srat_decode(e, eoff, &d, NULL);
		int node;

		if (k == SRAT_SKIP || k == SRAT_BAD)
			continue;
		node = srat_node(&doms, d.domain);
		if (node < 0) {
			if (!s->n_dropped_domain++)
				drops.domain_off = eoff;
		} else if (k == SRAT_CPU) {
			srat_add_cpu(out, &d, (uint32_t)node, eoff, &drops);
		} else {
			srat_add_mem(out, &d, (uint32_t)node, eoff, &drops);
		}
	}

	if (s->n_dropped_domain)
		acpi_error(out, SRAT_SIG, drops.domain_off, "domain limit, %u entries dropped",
			   s->n_dropped_domain);
	if (drops.cpu_limit)
		acpi_error(out, SRAT_SIG, drops.cpu_off, "cpu limit, %u entries dropped", drops.cpu_limit);
	if (s->n_dropped_mem)
		acpi_error(out, SRAT_SIG, drops.mem_off, "memory limit, %u ranges dropped",
			   s->n_dropped_mem);
	return 0;
}

int acpi_node_of_apic(const struct acpi_info *info, uint32_t apic_id)
{
	const struct acpi_srat_info *s = &info->srat;

	if (!s->present)
		return -1;
	for (uint32_t i = 0; i < s->n_cpus && i < QB_MAX_CPUS; i++)
		if (s->cpus[i].apic_id == apic_id)
			return (int)s->cpus[i].node;
	return -1;
}

int acpi_node_of_addr(const struct acpi_info *info, uint64_t phys)
{
	const struct acpi_srat_info *s = &info->srat;

	if (!s->present)
		return -1;
	for (uint32_t i = 0; i < s->n_mem && i < QB_MAX_SRAT_MEM; i++)
		if (phys >= s->mem[i].base && phys - s->mem[i].base < s->mem[i].length)
			return (int)s->mem[i].node;
	return -1;
}

int acpi_node_of_domain(const struct acpi_info *info, uint32_t domain)
{
	const struct acpi_srat_info *s = &info->srat;

	for (uint32_t i = 0; s->present && i < s->n_nodes && i < QB_MAX_NODES; i++)
		if (s->nodes[i].domain == domain)
			return (int)i;
	return -1;
}
