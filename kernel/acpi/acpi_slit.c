/* acpi_slit.c - reads the relative distances between proximity domains from the SLIT (ACPI 6.5 5.2.17), checked as Linux's slit_valid() checks them. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define SLIT_SIG "SLIT"
#define SLIT_MAX_LOCALITIES 1024u     /* 1 MiB of distances: ACPI_MAX_TABLE_LEN bounds the rest */

/* ---- Private Functions -------------------------------------------------- */

/* The distance at row i, column j of the table's N x N matrix. */
static uint8_t slit_at(const uint8_t *m, uint64_t n, uint64_t i, uint64_t j)
{
	return m[i * n + j];
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_slit(const void *table, uint32_t len, struct acpi_info *out)
{
	struct acpi_slit_info *s = &out->slit;
	const struct acpi_slit_raw *raw = table;
	const uint8_t *m;
	uint64_t n;

	memset(s, 0, sizeof(*s));
	len = acpi_table_len(table, len, SLIT_SIG, sizeof(*raw), out);
	if (!len)
		return ACPI_ERR;
	n = raw->localities;
	if (n > SLIT_MAX_LOCALITIES || n * n > len - sizeof(*raw)) {
		acpi_error(out, SLIT_SIG, sizeof(*raw), "%u localities overrun the table", n);
		return ACPI_ERR;
	}
	m = (const uint8_t *)table + sizeof(*raw);
	/* A SLIT whose distances cannot be right is not used at all: 10 from a
	 * locality to itself, more than 10 to any other (0-9 are reserved). */
	for (uint64_t i = 0; i < n; i++) {
		for (uint64_t j = 0; j < n; j++) {
			uint8_t d = slit_at(m, n, i, j);

			if (i == j ? d != ACPI_SLIT_LOCAL : d <= ACPI_SLIT_LOCAL) {
				acpi_error(out, SLIT_SIG, sizeof(*raw) + i * n + j,
					   "invalid distance %u, table not used", d);
				return ACPI_ERR;
			}
		}
	}
	s->present = true;
	s->localities = n;
	s->n = (uint32_t)MIN(n, (uint64_t)QB_MAX_NODES);
	for (uint32_t i = 0; i < s->n; i++)
		for (uint32_t j = 0; j < s->n; j++)
			s->dist[i][j] = slit_at(m, n, i, j);
	if (n > QB_MAX_NODES)
		acpi_error(out, SLIT_SIG, sizeof(*raw), "locality limit, %u localities dropped", n - QB_MAX_NODES);
	return 0;
}

int acpi_slit_distance(const struct acpi_info *info, uint32_t from, uint32_t to)
{
	const struct acpi_slit_info *s = &info->slit;

	if (!s->present || from >= s->n || to >= s->n)
		return -1;
	return s->dist[from][to];
}
