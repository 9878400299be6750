/* acpi_ivrs.c - reads AMD's IOMMUs from the IVRS (AMD I/O Virtualization Technology (IOMMU) Specification 48882, §5.2): each IVHD's register base, segment and requester ID, one unit per IOMMU however many IVHD types list it. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define IVRS_SIG "IVRS"

/* ---- Private Functions -------------------------------------------------- */

static bool is_ivhd(uint8_t type)
{
	return type == ACPI_IVRS_TYPE_IVHD_10 || type == ACPI_IVRS_TYPE_IVHD_11 || type == ACPI_IVRS_TYPE_IVHD_40;
}

/* Firmware describes one IOMMU in a type 10h block for old OSes and again in
 * 11h or 40h for new ones (§5.2.2): the same register base is one unit. */
static void add_ivhd(struct acpi_info *out, const struct acpi_ivhd *h)
{
	struct acpi_ivrs_info *io = &out->ivrs;
	struct acpi_iommu *u;

	for (uint32_t i = 0; i < io->n_units; i++) {
		u = &io->units[i];
		if (u->base == h->base && u->segment == h->segment) {
			if (h->head.type > u->ivhd_type)
				u->ivhd_type = h->head.type;
			return;
		}
	}
	if (io->n_units >= ACPI_MAX_IOMMUS) {
		io->n_dropped++;
		return;
	}
	u = &io->units[io->n_units++];
	memset(u, 0, sizeof(*u));
	u->kind = ACPI_IOMMU_AMD;
	u->flags = h->head.flags;
	u->ivhd_type = h->head.type;
	u->segment = h->segment;
	u->device_id = h->device_id;
	u->base = h->base;
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_ivrs(const void *table, uint32_t len, struct acpi_info *out)
{
	const struct acpi_ivrs_raw *raw = table;
	struct acpi_ivrs_info *io = &out->ivrs;
	uint32_t tlen;

	memset(io, 0, sizeof(*io));
	tlen = acpi_table_len(table, len, IVRS_SIG, sizeof(*raw), out);
	if (!tlen)
		return ACPI_ERR;
	io->present = true;
	io->ivinfo = raw->ivinfo;
	for (uint32_t off = sizeof(*raw); off < tlen;) {
		const struct acpi_ivrs_sub *sub;

		if (tlen - off < sizeof(*sub)) {
			acpi_error(out, IVRS_SIG, off, "%u trailing bytes", tlen - off);
			break;
		}
		sub = (const void *)((const uint8_t *)table + off);
		if (sub->length < sizeof(*sub) || sub->length > tlen - off) {
			acpi_error(out, IVRS_SIG, off, "block length %u", sub->length);
			break;
		}
		if (sub->type >= ACPI_IVRS_TYPE_IVMD_FIRST && sub->type <= ACPI_IVRS_TYPE_IVMD_LAST)
			io->n_ivmd++;
		if (is_ivhd(sub->type)) {
			uint32_t need = sub->type == ACPI_IVRS_TYPE_IVHD_10 ? ACPI_IVHD_10_LEN : ACPI_IVHD_11_LEN;
			const struct acpi_ivhd *h = (const void *)sub;

			io->n_ivhd++;
			if (sub->length < need)
				acpi_error(out, IVRS_SIG, off, "IVHD of %u bytes", sub->length);
			else if (!h->base)
				acpi_error(out, IVRS_SIG, off, "IVHD with base address 0", 0);
			else
				add_ivhd(out, h);
		}
		off += sub->length;       /* unknown types are skipped, as §5.2.2 asks */
	}
	return 0;
}
