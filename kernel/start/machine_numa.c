/* machine_numa.c - the slit, hmat and hmat_lb records (docs/records.md) from the SLIT (ACPI 6.5 5.2.17) and HMAT (5.2.28) that kernel/acpi parsed. */
#include "machine_numa.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */
#define VALUES_MAX 1024               /* a structure's decoded values go in its record up to this many */
#define VALUE_DECIMALS 3

/* ---- Private Functions ---------------------------------------------------- */
/* A proximity domain's dense node, or null. */
static void node_or_null(struct rec *r, const char *key, const struct acpi_info *ai, uint32_t domain)
{
	int n = acpi_node_of_domain(ai, domain);
	if (n < 0)
		rec_null(r, key);
	else
		rec_u64(r, key, (uint64_t)n);
}

static const char *assoc_name(uint32_t a)
{
	static const char *const names[] = { "none", "direct", "complex" };
	return a < ARRAY_SIZE(names) ? names[a] : "reserved";
}

static const char *policy_name(uint32_t p)
{
	static const char *const names[] = { "none", "write-back", "write-through" };
	return p < ARRAY_SIZE(names) ? names[p] : "reserved";
}

static void report_slit(const struct acpi_info *ai)
{
	const struct acpi_slit_info *s = &ai->slit;
	struct rec *r = console_rec_open("slit");
	rec_u64(r, "localities", s->localities);
	rec_arr_begin(r, "nodes");
	for (uint32_t i = 0; i < s->n; i++)
		node_or_null(r, 0, ai, i);
	rec_arr_end(r);
	rec_arr_begin(r, "distances");
	for (uint32_t i = 0; i < s->n; i++) {
		rec_arr_begin(r, 0);
		for (uint32_t j = 0; j < s->n; j++)
			rec_u64(r, 0, s->dist[i][j]);
		rec_arr_end(r);
	}
	rec_arr_end(r);
	console_rec_emit(r);
}

/* The rule the values were decoded by (acpi.h), null when none. */
static void units_rule(struct rec *r, const struct acpi_hmat_info *h)
{
	const char *name = acpi_hmat_rule_name(acpi_hmat_rule(h));
	if (name)
		rec_str(r, "units_rule", name);
	else
		rec_null(r, "units_rule");
}

static void report_hmat(const struct acpi_info *ai)
{
	const struct acpi_hmat_info *h = &ai->hmat;
	struct rec *r = console_rec_open("hmat");
	enum acpi_hmat_rule rule = acpi_hmat_rule(h);
	rec_u64(r, "revision", h->revision);
	rec_bool(r, "units_known", acpi_hmat_units_known(h));
	units_rule(r, h);
	if (rule == ACPI_HMAT_RULE_REV1_AS_REV2)
		rec_str(r, "units_note", "revision 1 (ACPI 6.2) read with revision 2's units, entry x base_unit in ps "
			"or MB/s, as the real revision-1 table at hand was written; Linux divides entry x base_unit by 10");
	else if (rule == ACPI_HMAT_RULE_NONE)
		rec_str(r, "units_note", "only revisions 2 (ACPI 6.3 and later: latency in ps, bandwidth in MB/s) "
			"and 1 (read the same way) have known units");
	rec_arr_begin(r, "memory_domains");
	for (uint32_t k = 0; k < h->n_domains; k++) {
		const struct acpi_hmat_domain *d = &h->domains[k];
		rec_obj_begin(r, 0);
		if (d->memory_valid) {
			rec_u64(r, "memory_domain", d->memory_domain);
			node_or_null(r, "node", ai, d->memory_domain);
		} else {
			rec_null(r, "memory_domain");
			rec_null(r, "node");
		}
		if (d->initiator_valid) {
			rec_u64(r, "initiator_domain", d->initiator_domain);
			node_or_null(r, "initiator_node", ai, d->initiator_domain);
		} else {
			rec_null(r, "initiator_domain");
		}
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr_begin(r, "caches");
	for (uint32_t k = 0; k < h->n_caches; k++) {
		const struct acpi_hmat_cache *c = &h->caches[k];
		rec_obj_begin(r, 0);
		rec_u64(r, "memory_domain", c->memory_domain);
		node_or_null(r, "node", ai, c->memory_domain);
		rec_u64(r, "size", c->size);
		rec_u64(r, "level", ACPI_HMAT_CACHE_LEVEL(c->attributes));
		rec_u64(r, "total_levels", ACPI_HMAT_CACHE_LEVELS(c->attributes));
		rec_str(r, "associativity", assoc_name(ACPI_HMAT_CACHE_ASSOC(c->attributes)));
		rec_str(r, "write_policy", policy_name(ACPI_HMAT_CACHE_POLICY(c->attributes)));
		rec_u64(r, "line_bytes", ACPI_HMAT_CACHE_LINE(c->attributes));
		rec_hex(r, "attributes", c->attributes);
		rec_u64(r, "smbios_handles", c->n_smbios);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_u64(r, "structures", h->n_lb);
	rec_u64(r, "dropped", h->n_dropped);
	console_rec_emit(r);
}

static void report_lb(const struct acpi_info *ai, uint32_t k)
{
	const struct acpi_hmat_info *h = &ai->hmat;
	const struct acpi_hmat_lb *lb = &h->lb[k];
	char hier[16];
	struct rec *r = console_rec_open("hmat_lb");
	rec_u64(r, "index", k);
	if (lb->hierarchy)
		fmt_snprintf(hier, sizeof(hier), "cache-%u", lb->hierarchy);
	rec_str(r, "hierarchy", lb->hierarchy ? hier : "memory");
	rec_str(r, "data_type", acpi_hmat_data_name(lb->data_type));
	rec_u64(r, "data_type_raw", lb->data_type);
	rec_str(r, "unit", lb->data_type <= ACPI_HMAT_WRITE_LATENCY ? "ns" : "MB/s");
	rec_u64(r, "base_unit", lb->base_unit);
	units_rule(r, h);
	rec_hex(r, "flags", lb->flags);
	rec_bool(r, "min_transfer_applies", lb->flags & ACPI_HMAT_MIN_TRANSFER);
	rec_bool(r, "non_sequential", lb->flags & ACPI_HMAT_NON_SEQUENTIAL);
	rec_u64(r, "min_transfer_size", lb->min_transfer);
	rec_arr_begin(r, "initiators");
	for (uint32_t i = 0; i < lb->n_init; i++)
		rec_u64(r, 0, lb->init[i]);
	rec_arr_end(r);
	rec_arr_begin(r, "initiator_nodes");
	for (uint32_t i = 0; i < lb->n_init; i++)
		node_or_null(r, 0, ai, lb->init[i]);
	rec_arr_end(r);
	rec_arr_begin(r, "targets");
	for (uint32_t j = 0; j < lb->n_target; j++)
		rec_u64(r, 0, lb->target[j]);
	rec_arr_end(r);
	rec_arr_begin(r, "target_nodes");
	for (uint32_t j = 0; j < lb->n_target; j++)
		node_or_null(r, 0, ai, lb->target[j]);
	rec_arr_end(r);
	rec_arr_begin(r, "entries");
	for (uint32_t i = 0; i < lb->n_init; i++) {
		rec_arr_begin(r, 0);
		for (uint32_t j = 0; j < lb->n_target; j++)
			rec_u64(r, 0, h->entries[lb->first + i * lb->n_target + j]);
		rec_arr_end(r);
	}
	rec_arr_end(r);
	if (lb->n_init * lb->n_target > VALUES_MAX) {
		rec_str(r, "values_note", "left out for size: each value is entry x base_unit (/ 1000 for ns)");
	} else {
		rec_arr_begin(r, "values");
		for (uint32_t i = 0; i < lb->n_init; i++) {
			rec_arr_begin(r, 0);
			for (uint32_t j = 0; j < lb->n_target; j++) {
				double v;
				if (acpi_hmat_lb_value(h, lb, i, j, &v))
					rec_f64(r, 0, v, VALUE_DECIMALS);
				else
					rec_null(r, 0);
			}
			rec_arr_end(r);
		}
		rec_arr_end(r);
	}
	console_rec_emit(r);
}

/* ---- Public Functions ----------------------------------------------------- */
void machine_report_numa_fw(const struct acpi_info *ai)
{
	if (ai->slit.present)
		report_slit(ai);
	if (ai->hmat.present) {
		report_hmat(ai);
		for (uint32_t k = 0; k < ai->hmat.n_lb && k < ACPI_HMAT_MAX_LB; k++)
			report_lb(ai, k);
	}
	if (ai->slit.present || ai->hmat.present)
		kprintf("firmware: SLIT %s; HMAT %s (%u latency/bandwidth structures, %u memory-side caches)\n",
			ai->slit.present ? "given" : "none", ai->hmat.present ? "given" : "none", ai->hmat.n_lb,
			ai->hmat.n_caches);
}
