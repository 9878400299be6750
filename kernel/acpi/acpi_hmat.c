/* acpi_hmat.c - reads what the firmware claims memory costs each initiator from the HMAT (ACPI 6.5 5.2.28, and revision 1 of ACPI 6.2 5.2.27): memory proximity domain attributes, latency and bandwidth structures of every data type, memory-side caches.
 *
 * Revision 1's units. Its structures have revision 2's sizes and offsets;
 * where readers part is what entry x Entry Base Unit means:
 *  - revision 2 (ACPI 6.3 on): picoseconds for a latency, MB/s for a
 *    bandwidth;
 *  - ACPI 6.2: the specification's own text was not at hand for this code;
 *    QEMU's HMAT patches written against it (2018-19) carry "the base unit
 *    for latency in nanoseconds" and "for bandwidth in megabytes per second";
 *  - Linux (drivers/acpi/numa/hmat.c, hmat_normalize()): for revision 1,
 *    entry x base divided by 10, rounded up, for every data type, unexplained
 *    there.
 * The real revision-1 table of tests/fixtures/real/supermicro-2s-clx (two
 * 24-core Cascade Lake sockets) gives its local read latency as entry 760,
 * base 100: 76 ns as picoseconds, 7.6 us by Linux's rule, 76 us as
 * nanoseconds; remote 135.6 ns, 13.6 us, 136 us. Local DRAM on such a
 * machine answers in 70-90 ns, so its firmware wrote revision 2's units, and
 * revision 1 is decoded exactly as revision 2 (ACPI_HMAT_RULE_REV1_AS_REV2);
 * the records name the rule (docs/records.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define HMAT_SIG "HMAT"
#define HMAT_PS_PER_NS 1000.0         /* latency entries x base unit are picoseconds */
#define HMAT_LIST_ENTRY 4u            /* bytes per proximity domain in a list */
#define HMAT_ENTRY 2u                 /* bytes per latency or bandwidth entry */

/* ---- Types -------------------------------------------------------------- */

/* Where the first structure of each kind of drop was, for the error. */
struct hmat_drops {
	uint32_t off;
	uint32_t n;
};

/* ---- Private Functions -------------------------------------------------- */

static void hmat_drop(struct hmat_drops *d, uint32_t off)
{
	if (!d->n++)
		d->off = off;
}

static uint32_t hmat_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t hmat_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* 5.2.28.3: false (with an error) when the structure is malformed. */
static bool hmat_domain(const uint8_t *p, uint32_t slen, uint32_t off, struct acpi_info *out,
			struct hmat_drops *drops)
{
	const struct acpi_hmat_domain_raw *d = (const void *)p;
	struct acpi_hmat_info *h = &out->hmat;
	struct acpi_hmat_domain *k;

	if (slen != sizeof(*d)) {
		acpi_error(out, HMAT_SIG, off, "structure at offset %u has wrong length", off);
		return false;
	}
	if (h->n_domains >= ACPI_HMAT_MAX_DOMAINS) {
		hmat_drop(drops, off);
		return true;
	}
	k = &h->domains[h->n_domains++];
	k->memory_domain = d->memory_domain;
	k->initiator_domain = d->initiator_domain;
	k->initiator_valid = d->flags & ACPI_HMAT_INITIATOR_VALID;
	/* Bit 1 is reserved from revision 2 on, where the field is always valid. */
	k->memory_valid = h->revision != ACPI_HMAT_REV_62 || (d->flags & ACPI_HMAT_MEMORY_VALID_REV1);
	return true;
}

/* 5.2.28.4: the lists and entries must lie inside the structure. */
static bool hmat_locality(const uint8_t *p, uint32_t slen, uint32_t off, struct acpi_info *out,
			  struct hmat_drops *drops)
{
	const struct acpi_hmat_locality_raw *l = (const void *)p;
	struct acpi_hmat_info *h = &out->hmat;
	struct acpi_hmat_lb *k;
	uint64_t ni, nt, need;

	if (slen < sizeof(*l)) {
		acpi_error(out, HMAT_SIG, off, "structure at offset %u has wrong length", off);
		return false;
	}
	ni = l->n_initiators;
	nt = l->n_targets;
	/* The lists first: within a structure (slen < 2^32) each count is then
	 * below 2^30, so need cannot wrap past 2^64 and pass for small. */
	if (ni + nt > (slen - sizeof(*l)) / HMAT_LIST_ENTRY)
		need = ~0ull;
	else
		need = sizeof(*l) + HMAT_LIST_ENTRY * (ni + nt) + HMAT_ENTRY * ni * nt;
	if (need > slen) {
		acpi_error(out, HMAT_SIG, off, "structure at offset %u: its lists overrun it", off);
		return false;
	}
	if (h->n_lb >= ACPI_HMAT_MAX_LB || ni > ACPI_HMAT_MAX_LIST || nt > ACPI_HMAT_MAX_LIST ||
	    ni * nt > ACPI_HMAT_MAX_ENTRIES - h->n_entries) {
		hmat_drop(drops, off);
		return true;
	}
	k = &h->lb[h->n_lb++];
	k->flags = l->flags;
	k->hierarchy = l->flags & ACPI_HMAT_HIERARCHY_MASK;
	k->data_type = l->data_type;
	k->min_transfer = l->min_transfer;
	k->base_unit = l->base_unit;
	k->n_init = (uint32_t)ni;
	k->n_target = (uint32_t)nt;
	k->first = h->n_entries;
	p += sizeof(*l);
	for (uint32_t i = 0; i < k->n_init; i++, p += HMAT_LIST_ENTRY)
		k->init[i] = hmat_u32(p);
	for (uint32_t j = 0; j < k->n_target; j++, p += HMAT_LIST_ENTRY)
		k->target[j] = hmat_u32(p);
	for (uint32_t e = 0; e < k->n_init * k->n_target; e++, p += HMAT_ENTRY)
		h->entries[h->n_entries++] = hmat_u16(p);
	return true;
}

/* 5.2.28.5: the SMBIOS handles must lie inside the structure. */
static bool hmat_cache(const uint8_t *p, uint32_t slen, uint32_t off, struct acpi_info *out,
		       struct hmat_drops *drops)
{
	const struct acpi_hmat_cache_raw *c = (const void *)p;
	struct acpi_hmat_info *h = &out->hmat;
	struct acpi_hmat_cache *k;

	if (slen < sizeof(*c) || sizeof(*c) + (uint32_t)HMAT_ENTRY * c->n_smbios > slen) {
		acpi_error(out, HMAT_SIG, off, "structure at offset %u has wrong length", off);
		return false;
	}
	if (h->n_caches >= ACPI_HMAT_MAX_CACHES) {
		hmat_drop(drops, off);
		return true;
	}
	k = &h->caches[h->n_caches++];
	k->memory_domain = c->memory_domain;
	k->size = c->size;
	k->attributes = c->attributes;
	k->n_smbios = c->n_smbios;
	return true;
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_hmat(const void *table, uint32_t len, struct acpi_info *out)
{
	struct acpi_hmat_info *h = &out->hmat;
	struct hmat_drops drops = { 0 };
	const uint8_t *b = table;
	uint32_t off = sizeof(struct acpi_hmat_raw);

	memset(h, 0, sizeof(*h));
	len = acpi_table_len(table, len, HMAT_SIG, sizeof(struct acpi_hmat_raw), out);
	if (!len)
		return ACPI_ERR;
	h->present = true;
	h->revision = ((const struct acpi_sdt_header *)table)->revision;
	/* Every structure is read up to the first malformed one, as the other
	 * tables are: what lies before it is whole. */
	while (off < len) {
		struct acpi_hmat_sub sub;
		bool ok = true;

		if (len - off < sizeof(sub)) {
			acpi_error(out, HMAT_SIG, off, "structure at offset %u overruns table", off);
			break;
		}
		memcpy(&sub, b + off, sizeof(sub));
		if (sub.length < sizeof(sub)) {
			acpi_error(out, HMAT_SIG, off, "structure at offset %u has length below 8", off);
			break;
		}
		if (sub.length > len - off) {
			acpi_error(out, HMAT_SIG, off, "structure at offset %u overruns table", off);
			break;
		}
		if (sub.type == ACPI_HMAT_TYPE_DOMAIN)
			ok = hmat_domain(b + off, sub.length, off, out, &drops);
		else if (sub.type == ACPI_HMAT_TYPE_LOCALITY)
			ok = hmat_locality(b + off, sub.length, off, out, &drops);
		else if (sub.type == ACPI_HMAT_TYPE_CACHE)
			ok = hmat_cache(b + off, sub.length, off, out, &drops);
		if (!ok)
			break;
		off += sub.length;
	}
	h->n_dropped = drops.n;
	if (drops.n)
		acpi_error(out, HMAT_SIG, drops.off, "structure limit, %u structures dropped", drops.n);
	return 0;
}

bool acpi_hmat_units_known(const struct acpi_hmat_info *h)
{
	return h->present && h->revision == ACPI_HMAT_REV_UNITS;
}

enum acpi_hmat_rule acpi_hmat_rule(const struct acpi_hmat_info *h)
{
	if (h->present && h->revision == ACPI_HMAT_REV_UNITS)
		return ACPI_HMAT_RULE_REV2;
	if (h->present && h->revision == ACPI_HMAT_REV_62)
		return ACPI_HMAT_RULE_REV1_AS_REV2;
	return ACPI_HMAT_RULE_NONE;
}

const char *acpi_hmat_rule_name(enum acpi_hmat_rule rule)
{
	if (rule == ACPI_HMAT_RULE_REV2)
		return "rev2";
	if (rule == ACPI_HMAT_RULE_REV1_AS_REV2)
		return "rev1-as-rev2";
	return NULL;
}

bool acpi_hmat_lb_value(const struct acpi_hmat_info *h, const struct acpi_hmat_lb *lb, uint32_t i,
			uint32_t j, double *out)
{
	uint16_t e;

	if (acpi_hmat_rule(h) == ACPI_HMAT_RULE_NONE || i >= lb->n_init || j >= lb->n_target || !lb->base_unit ||
	    lb->data_type >= ACPI_HMAT_DATA_TYPES || lb->first + (uint64_t)i * lb->n_target + j >= h->n_entries)
		return false;
	e = h->entries[lb->first + i * lb->n_target + j];
	if (e == ACPI_HMAT_ENTRY_NONE || e == ACPI_HMAT_ENTRY_INVALID)
		return false;
	*out = (double)e * (double)lb->base_unit;
	if (lb->data_type <= ACPI_HMAT_WRITE_LATENCY)
		*out /= HMAT_PS_PER_NS;
	return true;
}

bool acpi_hmat_value(const struct acpi_info *info, uint32_t initiator, uint32_t target,
		     enum acpi_hmat_data type, double *out)
{
	const struct acpi_hmat_info *h = &info->hmat;

	for (uint32_t s = 0; s < h->n_lb && s < ACPI_HMAT_MAX_LB; s++) {
		const struct acpi_hmat_lb *lb = &h->lb[s];
		uint32_t i = 0, j = 0;

		if (lb->hierarchy != 0 || lb->data_type != type)
			continue;
		while (i < lb->n_init && lb->init[i] != initiator)
			i++;
		while (j < lb->n_target && lb->target[j] != target)
			j++;
		if (acpi_hmat_lb_value(h, lb, i, j, out))
			return true;
	}
	return false;
}

const char *acpi_hmat_data_name(uint8_t type)
{
	static const char *const names[ACPI_HMAT_DATA_TYPES] = {
		[ACPI_HMAT_ACCESS_LATENCY] = "access-latency",
		[ACPI_HMAT_READ_LATENCY] = "read-latency",
		[ACPI_HMAT_WRITE_LATENCY] = "write-latency",
		[ACPI_HMAT_ACCESS_BANDWIDTH] = "access-bandwidth",
		[ACPI_HMAT_READ_BANDWIDTH] = "read-bandwidth",
		[ACPI_HMAT_WRITE_BANDWIDTH] = "write-bandwidth",
	};

	return type < ACPI_HMAT_DATA_TYPES ? names[type] : "reserved";
}
