/* fuzz_acpi_table.c - libFuzzer harness for the ACPI table parsers called directly: MADT, SRAT, SLIT, HMAT, FADT, HPET, SPCR, DMAR and IVRS (ACPI 6.5 5.2.9, 5.2.12, 5.2.16, 5.2.17, 5.2.28; IA-PC HPET 1.0a; Microsoft SPCR; Intel VT-d 3.x ch. 8; AMD IOMMU 48882 §5.2).
 *
 * The input is one table's bytes, copied to an exact-size heap block so ASan
 * sees any read past it, and handed to every parser (all but the one whose
 * signature matches reject it at once). The parsers trust no length: the
 * buffer may be shorter or longer than the header says. Each input is parsed
 * twice: as given, and with the header's length set to the buffer's, so that
 * the last entry ends exactly where ASan watches. */
#include "acpi.h"
#include "fuzz.h"
#include "fuzz_acpi_check.h"

/* ---- Constants ---------------------------------------------------------- */

#define LENGTH_OFF 4                   /* 5.2.6: the header's Length field */

/* ---- Private Variables -------------------------------------------------- */

static struct acpi_info info, again;

static const struct {
	const char *sig;
	int (*parse)(const void *table, uint32_t len, struct acpi_info *out);
} parsers[] = {
	{ "APIC", acpi_parse_madt },
	{ "SRAT", acpi_parse_srat },
	{ "FACP", acpi_parse_fadt },
	{ "HPET", acpi_parse_hpet },
	{ "SPCR", acpi_parse_spcr },
	{ "DMAR", acpi_parse_dmar },
	{ "IVRS", acpi_parse_ivrs },
	{ "SLIT", acpi_parse_slit },
	{ "HMAT", acpi_parse_hmat },
};

/* ---- Private Functions -------------------------------------------------- */

/* Whether the part of *a that parser i fills says "present". */
static bool present(const struct acpi_info *a, size_t i)
{
	switch (i) {
	case 0: return a->madt.present;
	case 1: return a->srat.present;
	case 2: return a->fadt.present;
	case 3: return a->hpet.present;
	case 4: return a->spcr.present;
	case 5: return a->dmar.present;
	case 6: return a->ivrs.present;
	case 7: return a->slit.present;
	default: return a->hmat.present;
	}
}

/* Every parser on the len bytes at table, checked. */
static void parse_all(const uint8_t *table, uint32_t len)
{
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		int rc;

		memset(&info, 0, sizeof(info));
		rc = parsers[i].parse(table, len, &info);
		check_acpi_info(&info);
		FUZZ_ASSERT(rc == 0 || rc == ACPI_ERR);
		FUZZ_ASSERT((rc == 0) == present(&info, i));
		if (rc == 0)
			FUZZ_ASSERT(len >= ACPI_HEADER_LEN && !memcmp(table, parsers[i].sig, ACPI_SIG_LEN));
		else
			FUZZ_ASSERT(info.n_errors > 0);

		/* A pure function of the bytes: the same again, even over stale output. */
		memset(&again, 0xa5, sizeof(again));
		again.n_errors = 0;
		again.n_errors_lost = 0;
		FUZZ_ASSERT(parsers[i].parse(table, len, &again) == rc);
		FUZZ_ASSERT(!memcmp(&info.madt, &again.madt, sizeof(info.madt)) || i != 0);
		FUZZ_ASSERT(!memcmp(&info.srat, &again.srat, sizeof(info.srat)) || i != 1);
		FUZZ_ASSERT(!memcmp(&info.fadt, &again.fadt, sizeof(info.fadt)) || i != 2);
		FUZZ_ASSERT(!memcmp(&info.hpet, &again.hpet, sizeof(info.hpet)) || i != 3);
		FUZZ_ASSERT(!memcmp(&info.spcr, &again.spcr, sizeof(info.spcr)) || i != 4);
		FUZZ_ASSERT(!memcmp(&info.dmar, &again.dmar, sizeof(info.dmar)) || i != 5);
		FUZZ_ASSERT(!memcmp(&info.ivrs, &again.ivrs, sizeof(info.ivrs)) || i != 6);
		FUZZ_ASSERT(!memcmp(&info.slit, &again.slit, sizeof(info.slit)) || i != 7);
		FUZZ_ASSERT(!memcmp(&info.hmat, &again.hmat, sizeof(info.hmat)) || i != 8);
		FUZZ_ASSERT(info.n_errors == again.n_errors);
	}
}

/* ---- Public Functions --------------------------------------------------- */

/* The table parsers map nothing themselves; acpi.c's walk, linked in, needs the symbol. */
const void *acpi_map(uint64_t phys, uint64_t len)
{
	(void)phys;
	(void)len;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *table;
	uint32_t len;

	if (size > ACPI_MAX_TABLE_LEN)
		return 0;
	len = (uint32_t)size;
	table = malloc(size ? size : 1);
	if (!table)
		return 0;
	memcpy(table, data, size);
	parse_all(table, len);
	if (len >= LENGTH_OFF + sizeof(len)) {
		memcpy(table + LENGTH_OFF, &len, sizeof(len));
		parse_all(table, len);
	}
	free(table);
	return 0;
}
