/* acpi_expect.c - the SLIT and HMAT lines of an .expect file against a parse result; see acpi_expect.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi_expect.h"

#define VALUE_EPS 0.0005  /* the .expect file gives values to 3 decimals */

/* ---- Private Functions ---------------------------------------------------- */

static int miss(const char *name, const char *line, const char *what)
{
	printf("  %s: %s: %s", name, what, line);
	return 1;
}

static int slit_row(const struct acpi_info *info, const char *name, const char *line, unsigned *compared)
{
	const char *p = line + strlen("slit-row");
	char *end;
	unsigned long i = strtoul(p, &end, 10);
	int bad = 0;

	for (unsigned long j = 0;; j++) {
		p = end;
		unsigned long d = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (i >= QB_MAX_NODES || j >= QB_MAX_NODES)
			continue; /* past the localities kept */
		(*compared)++;
		if (!info->slit.present || i >= info->slit.n || j >= info->slit.n || info->slit.dist[i][j] != d)
			bad += miss(name, line, "SLIT distance differs");
	}
	return bad;
}

static const struct acpi_hmat_domain *hmat_domain(const struct acpi_hmat_info *h, unsigned mem)
{
	for (uint32_t k = 0; k < h->n_domains; k++)
		if (h->domains[k].memory_valid && h->domains[k].memory_domain == mem)
			return &h->domains[k];
	return NULL;
}

static int hmat_entry(const struct acpi_info *info, const char *name, const char *line, unsigned *compared)
{
	const struct acpi_hmat_info *h = &info->hmat;
	unsigned k, ini, tgt, raw;
	char value[32];
	double got;

	if (sscanf(line, "hmat-entry %u %u %u %u %31s", &k, &ini, &tgt, &raw, value) != 5)
		return miss(name, line, "unreadable line");
	if (k >= h->n_lb)
		return miss(name, line, "no such structure");
	const struct acpi_hmat_lb *lb = &h->lb[k];
	uint32_t i = 0, j = 0;
	while (i < lb->n_init && lb->init[i] != ini)
		i++;
	while (j < lb->n_target && lb->target[j] != tgt)
		j++;
	if (i == lb->n_init || j == lb->n_target)
		return miss(name, line, "initiator or target not listed");
	*compared += 2;
	if (h->entries[lb->first + i * lb->n_target + j] != raw)
		return miss(name, line, "raw entry differs");
	bool has = acpi_hmat_lb_value(h, lb, i, j, &got);
	if (!strcmp(value, "-"))
		return has ? miss(name, line, "a value where iasl's entry gives none") : 0;
	if (!has || fabs(got - strtod(value, NULL)) > VALUE_EPS) {
		printf("  %s: decoded %.3f\n", name, has ? got : -1.0);
		return miss(name, line, "decoded value differs");
	}
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */

int acpi_expect_numa_line(const struct acpi_info *info, const char *name, const char *line, unsigned *compared)
{
	const struct acpi_hmat_info *h = &info->hmat;
	unsigned a, b, c, d, e;
	uint64_t u;

	if (!strncmp(line, "slit-row ", 9))
		return slit_row(info, name, line, compared);
	if (sscanf(line, "slit %" SCNu64, &u) == 1) {
		(*compared)++;
		return info->slit.present && info->slit.localities == u ? 0 : miss(name, line, "SLIT absent or sized otherwise");
	}
	if (sscanf(line, "hmat-rev %u", &a) == 1) {
		(*compared)++;
		return h->present && h->revision == a ? 0 : miss(name, line, "HMAT absent or of another revision");
	}
	if (sscanf(line, "hmat-domain %u %u %u", &a, &b, &c) == 3) {
		const struct acpi_hmat_domain *k = hmat_domain(h, a);
		(*compared)++;
		return k && k->initiator_valid == (b != 0) && (!b || k->initiator_domain == c)
			       ? 0 : miss(name, line, "memory domain attributes differ");
	}
	if (sscanf(line, "hmat-lb %u %x %u %" SCNu64 " %u %u", &a, &b, &c, &u, &d, &e) == 6) {
		(*compared)++;
		if (a >= h->n_lb)
			return miss(name, line, "no such structure");
		const struct acpi_hmat_lb *lb = &h->lb[a];
		return lb->flags == b && lb->data_type == c && lb->base_unit == u && lb->n_init == d &&
			       lb->n_target == e ? 0 : miss(name, line, "structure differs");
	}
	if (!strncmp(line, "hmat-entry ", 11))
		return hmat_entry(info, name, line, compared);
	if (sscanf(line, "hmat-cache %u %" SCNu64 " %x %u", &a, &u, &b, &c) == 4) {
		(*compared)++;
		for (uint32_t k = 0; k < h->n_caches; k++)
			if (h->caches[k].memory_domain == a && h->caches[k].size == u &&
			    h->caches[k].attributes == b && h->caches[k].n_smbios == c)
				return 0;
		return miss(name, line, "no such memory-side cache");
	}
	return -1;
}
