/* acpi_dmar.c - reads Intel's DMA remapping units from the DMAR (Intel Virtualization Technology for Directed I/O, revision 3.x, ch. 8): each DRHD's register base and segment, and the table's flags. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define DMAR_SIG "DMAR"

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_dmar(const void *table, uint32_t len, struct acpi_info *out)
{
	const struct acpi_dmar_raw *raw = table;
	struct acpi_dmar_info *io = &out->dmar;
	uint32_t tlen;

	memset(io, 0, sizeof(*io));
	tlen = acpi_table_len(table, len, DMAR_SIG, sizeof(*raw), out);
	if (!tlen)
		return ACPI_ERR;
	io->present = true;
	io->haw = (uint8_t)(raw->host_address_width + 1);
	io->flags = raw->flags;
	/* VT-d §8.2: remapping structures, each naming its own length. */
	for (uint32_t off = sizeof(*raw); off < tlen;) {
		const struct acpi_dmar_sub *sub;
		const struct acpi_dmar_drhd *d;

		if (tlen - off < sizeof(*sub)) {
			acpi_error(out, DMAR_SIG, off, "%u trailing bytes", tlen - off);
			break;
		}
		sub = (const void *)((const uint8_t *)table + off);
		if (sub->length < sizeof(*sub) || sub->length > tlen - off) {
			acpi_error(out, DMAR_SIG, off, "structure length %u", sub->length);
			break;
		}
		if (sub->type == ACPI_DMAR_TYPE_RMRR)
			io->n_rmrr++;
		if (sub->type != ACPI_DMAR_TYPE_DRHD) {
			off += sub->length;
			continue;
		}
		if (sub->length < sizeof(*d)) {
			acpi_error(out, DMAR_SIG, off, "DRHD of %u bytes", sub->length);
			off += sub->length;
			continue;
		}
		d = (const void *)sub;
		if (!d->base) {
			acpi_error(out, DMAR_SIG, off, "DRHD with register base 0", 0);
		} else if (io->n_units >= ACPI_MAX_IOMMUS) {
			io->n_dropped++;
		} else {
			struct acpi_iommu *u = &io->units[io->n_units++];

			memset(u, 0, sizeof(*u));
			u->kind = ACPI_IOMMU_VTD;
			u->flags = d->flags;
			u->segment = d->segment;
			u->base = d->base;
		}
		off += sub->length;
	}
	return 0;
}
