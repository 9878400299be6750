/* acpi.c - finds the ACPI tables (RSDP, XSDT/RSDT per ACPI 6.5 5.2.5-5.2.8), validates each one and drives the table parsers. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define ACPI_SIG_XSDT "XSDT"
#define ACPI_SIG_RSDT "RSDT"
#define ACPI_SIG_RSDP "RSDP"           /* how errors name the RSDP */
#define ACPI_SIG_MADT "APIC"
#define ACPI_PRINT_MIN 0x20            /* printable ASCII, for names in errors */
#define ACPI_PRINT_MAX 0x7e
#define ACPI_UNPRINTABLE '?'
#define ACPI_DEC_DIGITS 20             /* digits of UINT64_MAX */
#define ACPI_HEX_PREFIX "0x"
#define ACPI_DEC_BASE 10
#define ACPI_HEX_BASE 16

/* ---- Private Functions -------------------------------------------------- */

/* Copy n name bytes, turning anything that could not be printed or quoted into '?'. */
static void acpi_copy_name(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < ACPI_PRINT_MIN || c > ACPI_PRINT_MAX || c == '"' || c == '\\')
			c = ACPI_UNPRINTABLE;
		dst[i] = (char)c;
	}
	dst[n] = '\0';
}

/* Append the digits of v in base (10 or 16) at msg[*pos], never past cap - 1. */
static void acpi_put_number(char *msg, size_t cap, size_t *pos, uint64_t v, unsigned base)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[ACPI_DEC_DIGITS];
	size_t n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v && n < sizeof(tmp));
	while (n && *pos + 1 < cap)
		msg[(*pos)++] = tmp[--n];
}

/* Read the root table's 32- or 64-bit entry i; entries need not be aligned. */
static uint64_t acpi_root_entry(const uint8_t *root, uint32_t i, uint32_t esz)
{
	uint64_t v64;
	uint32_t v32;

	if (esz == ACPI_XSDT_ENTRY_LEN) {
		memcpy(&v64, root + ACPI_HEADER_LEN + (size_t)i * esz, sizeof(v64));
		return v64;
	}
	memcpy(&v32, root + ACPI_HEADER_LEN + (size_t)i * esz, sizeof(v32));
	return v32;
}

/*
 * Map the table at phys: header first, then its stated length once that is
 * sane, then check the checksum. Fills ref (which may be NULL) from the header
 * as soon as it is readable. Errors are named after the header's signature,
 * or after name when the header cannot be read. Returns the mapped table or
 * NULL.
 */
static const struct acpi_sdt_header *acpi_map_checked(uint64_t phys, const char *name,
						      struct acpi_table_ref *ref,
						      struct acpi_info *out)
{
	const struct acpi_sdt_header *hdr;
	const void *whole;
	uint32_t len;

	hdr = acpi_map(phys, ACPI_HEADER_LEN);
	if (!hdr) {
		acpi_error(out, name, phys, "header unmapped at %x", phys);
		return NULL;
	}
	len = hdr->length;
	if (ref) {
		acpi_copy_name(ref->sig, hdr->signature, ACPI_SIG_LEN);
		acpi_copy_name(ref->oem_id, hdr->oem_id, ACPI_OEM_ID_LEN);
		ref->revision = hdr->revision;
		ref->length = len;
	}
	if (len < ACPI_HEADER_LEN) {
		acpi_error(out, hdr->signature, phys, "length %u below header", len);
		return NULL;
	}
	if (len > ACPI_MAX_TABLE_LEN) {
		acpi_error(out, hdr->signature, phys, "length %u above limit", len);
		return NULL;
	}
	whole = acpi_map(phys, len);
	if (!whole) {
		acpi_error(out, hdr->signature, phys, "length overruns mapping", 0);
		return NULL;
	}
	if (!acpi_checksum_ok(whole, len)) {
		acpi_error(out, hdr->signature, phys, "bad checksum", 0);
		return NULL;
	}
	return whole;
}

/* Validate the RSDP and fill out->rsdp; false (with an error) if it is unusable. */
static bool acpi_rsdp_read(uint64_t phys, struct acpi_info *out)
{
	const struct acpi_rsdp_raw *rsdp;
	uint32_t len;

	out->rsdp.phys = phys;
	rsdp = acpi_map(phys, ACPI_RSDP_V1_LEN);
	if (!rsdp) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "unmapped at %x", phys);
		return false;
	}
	if (memcmp(rsdp->signature, ACPI_RSDP_SIG, ACPI_RSDP_SIG_LEN)) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "bad signature", 0);
		return false;
	}
	if (!acpi_checksum_ok(rsdp, ACPI_RSDP_V1_LEN)) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "bad checksum", 0);
		return false;
	}
	out->rsdp.revision = rsdp->revision;
	acpi_copy_name(out->rsdp.oem_id, rsdp->oem_id, ACPI_OEM_ID_LEN);
	out->rsdp.rsdt_phys = rsdp->rsdt_address;
	if (rsdp->revision < ACPI_RSDP_REV_XSDT)
		return true;

	rsdp = acpi_map(phys, sizeof(*rsdp));
	if (!rsdp) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "extended part unmapped", 0);
		return false;
	}
	len = rsdp->length;
	if (len < sizeof(*rsdp)) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "length %u below 36", len);
		return false;
	}
	if (len > ACPI_RSDP_MAX_LEN) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "length %u above limit", len);
		return false;
	}
	rsdp = acpi_map(phys, len);
	if (!rsdp) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "length overruns mapping", 0);
		return false;
	}
	if (!acpi_checksum_ok(rsdp, len)) {
		acpi_error(out, ACPI_SIG_RSDP, phys, "bad extended checksum", 0);
		return false;
	}
	out->rsdp.xsdt_phys = rsdp->xsdt_address;
	return true;
}

/*
 * Validate the root table at phys (signature sig, entries of esz bytes) and
 * list its entries in out->tables. False (with errors, nothing listed) if the
 * root table itself is unusable.
 */
static bool acpi_root_walk(uint64_t phys, const char *sig, uint32_t esz, struct acpi_info *out)
{
	const struct acpi_sdt_header *root;
	uint32_t count;

	root = acpi_map_checked(phys, sig, NULL, out);
	if (!root)
		return false;
	if (memcmp(root->signature, sig, ACPI_SIG_LEN)) {
		acpi_error(out, sig, phys, "bad signature", 0);
		return false;
	}
	if ((root->length - ACPI_HEADER_LEN) % esz) {
		acpi_error(out, sig, phys, "length %u not whole entries", root->length);
		return false;
	}
	out->rsdp.root_phys = phys;
	out->rsdp.root_len = root->length;
	count = (root->length - ACPI_HEADER_LEN) / esz;
	if (count > QB_MAX_ACPI_TABLES) {
		acpi_error(out, sig, phys, "too many tables (%u)", count);
		count = QB_MAX_ACPI_TABLES;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct acpi_table_ref *ref = &out->tables[i];

		ref->phys = acpi_root_entry((const uint8_t *)root, i, esz);
		if (!ref->phys)
			acpi_error(out, sig, ACPI_HEADER_LEN + (uint64_t)i * esz, "entry %u is null", i);
		else
			ref->valid = acpi_map_checked(ref->phys, sig, ref, out) != NULL;
	}
	out->n_tables = count;
	return true;
}

/* ---- Public Functions --------------------------------------------------- */

bool acpi_checksum_ok(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	if (!p)
		return false;
	for (uint32_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum == 0;
}

void acpi_error(struct acpi_info *out, const char *sig, uint64_t value, const char *fmt, uint64_t arg)
{
	struct acpi_error *e;
	size_t pos = 0;

	if (out->n_errors >= ACPI_MAX_ERRORS) {
		out->n_errors_lost++;
		return;
	}
	e = &out->errors[out->n_errors++];
	acpi_copy_name(e->sig, sig, ACPI_SIG_LEN);
	e->value = value;
	while (*fmt && pos + 1 < sizeof(e->msg)) {
		if (fmt[0] == '%' && fmt[1] == 'u') {
			acpi_put_number(e->msg, sizeof(e->msg), &pos, arg, ACPI_DEC_BASE);
			fmt += 2;
		} else if (fmt[0] == '%' && fmt[1] == 'x') {
			for (const char *p = ACPI_HEX_PREFIX; *p && pos + 1 < sizeof(e->msg); p++)
				e->msg[pos++] = *p;
			acpi_put_number(e->msg, sizeof(e->msg), &pos, arg, ACPI_HEX_BASE);
			fmt += 2;
		} else {
			e->msg[pos++] = *fmt++;
		}
	}
	e->msg[pos] = '\0';
}

uint32_t acpi_table_len(const void *table, uint32_t len, const char sig[ACPI_SIG_LEN],
			uint32_t min_len, struct acpi_info *out)
{
	const struct acpi_sdt_header *hdr = table;

	if (!table || len < ACPI_HEADER_LEN) {
		acpi_error(out, sig, 0, "buffer of %u bytes below header", table ? len : 0);
		return 0;
	}
	if (memcmp(hdr->signature, sig, ACPI_SIG_LEN)) {
		acpi_error(out, sig, 0, "bad signature", 0);
		return 0;
	}
	if (hdr->length > len) {
		acpi_error(out, sig, 0, "length %u overruns buffer", hdr->length);
		return 0;
	}
	if (hdr->length < min_len || hdr->length < ACPI_HEADER_LEN) {
		acpi_error(out, sig, 0, "length %u too short", hdr->length);
		return 0;
	}
	return hdr->length;
}

const struct acpi_subtable *acpi_subtable_next(const void *table, uint32_t len, uint32_t *off,
					       const char sig[ACPI_SIG_LEN], struct acpi_info *out)
{
	const struct acpi_subtable *e;
	uint32_t o = *off;

	if (o >= len)
		return NULL;
	if (len - o < sizeof(*e)) {
		if (out)
			acpi_error(out, sig, o, "entry at offset %u overruns table", o);
		return NULL;
	}
	e = (const struct acpi_subtable *)((const uint8_t *)table + o);
	if (e->length < sizeof(*e)) {
		if (out)
			acpi_error(out, sig, o, "entry at offset %u has length below 2", o);
		return NULL;
	}
	if (e->length > len - o) {
		if (out)
			acpi_error(out, sig, o, "entry at offset %u overruns table", o);
		return NULL;
	}
	*off = o + e->length;
	return e;
}

void acpi_gas_decode(const struct acpi_gas_raw *raw, struct acpi_addr *addr)
{
	addr->space = raw->space_id;
	addr->bit_width = raw->bit_width;
	addr->bit_offset = raw->bit_offset;
	addr->access_size = raw->access_size;
	addr->address = raw->address;
}

int acpi_find_tables(uint64_t rsdp_phys, struct acpi_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!acpi_rsdp_read(rsdp_phys, out))
		return ACPI_ERR;

	if (out->rsdp.xsdt_phys) {
		if (acpi_root_walk(out->rsdp.xsdt_phys, ACPI_SIG_XSDT, ACPI_XSDT_ENTRY_LEN, out)) {
			out->rsdp.used_xsdt = true;
			return 0;
		}
		acpi_error(out, ACPI_SIG_XSDT, out->rsdp.xsdt_phys, "rejected, falling back to RSDT", 0);
	}
	if (out->rsdp.rsdt_phys &&
	    acpi_root_walk(out->rsdp.rsdt_phys, ACPI_SIG_RSDT, ACPI_RSDT_ENTRY_LEN, out))
		return 0;
	acpi_error(out, ACPI_SIG_RSDP, rsdp_phys, "no usable root table", 0);
	return ACPI_ERR;
}

const struct acpi_table_ref *acpi_table(const struct acpi_info *info, const char sig[ACPI_SIG_LEN])
{
	for (uint32_t i = 0; i < info->n_tables && i < QB_MAX_ACPI_TABLES; i++) {
		const struct acpi_table_ref *ref = &info->tables[i];

		if (ref->valid && !memcmp(ref->sig, sig, ACPI_SIG_LEN))
			return ref;
	}
	return NULL;
}

const void *acpi_table_map(const struct acpi_table_ref *ref, struct acpi_info *out)
{
	const struct acpi_sdt_header *hdr;

	if (!ref->valid)
		return NULL;
	hdr = acpi_map(ref->phys, ref->length);
	/* Checked again: the listing may be older than the memory it describes. */
	if (!hdr || hdr->length != ref->length || !acpi_checksum_ok(hdr, ref->length)) {
		acpi_error(out, ref->sig, ref->phys, "changed since it was listed", 0);
		return NULL;
	}
	return hdr;
}

int acpi_parse(uint64_t rsdp_phys, struct acpi_info *out)
{
	static const struct {
		const char *sig;
		int (*parse)(const void *table, uint32_t len, struct acpi_info *out);
	} parsers[] = {
		{ ACPI_SIG_MADT, acpi_parse_madt },
		{ "SRAT", acpi_parse_srat },
		{ "SLIT", acpi_parse_slit },
		{ "HMAT", acpi_parse_hmat },
		{ "FACP", acpi_parse_fadt },
		{ "HPET", acpi_parse_hpet },
		{ "SPCR", acpi_parse_spcr },
		{ "DMAR", acpi_parse_dmar },
		{ "IVRS", acpi_parse_ivrs },
	};
	const struct acpi_table_ref *madt;

	if (acpi_find_tables(rsdp_phys, out) < 0)
		return ACPI_ERR;
	for (size_t i = 0; i < ARRAY_SIZE(parsers); i++) {
		const struct acpi_table_ref *ref = acpi_table(out, parsers[i].sig);
		const void *table;

		if (!ref)
			continue;
		table = acpi_table_map(ref, out);
		if (table)
			parsers[i].parse(table, ref->length, out);
	}
	madt = acpi_table(out, ACPI_SIG_MADT);
	if (!out->madt.present) {
		acpi_error(out, ACPI_SIG_MADT, madt ? madt->phys : 0, "no usable MADT", 0);
		return ACPI_ERR;
	}
	if (!out->madt.n_enabled) {
		acpi_error(out, ACPI_SIG_MADT, madt ? madt->phys : 0, "no enabled cpu", 0);
		return ACPI_ERR;
	}
	return 0;
}
