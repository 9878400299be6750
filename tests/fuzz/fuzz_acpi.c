/* fuzz_acpi.c - libFuzzer harness for the whole ACPI walk: RSDP, XSDT/RSDT, then the MADT, SRAT, FADT, HPET and SPCR parsers through acpi_parse() (ACPI 6.5 ch. 5.2).
 *
 * The input is a QBACPI01 fixture file (tests/fixtures/acpi: 8 magic bytes,
 * u64 RSDP address, then {u64 phys, u32 len, bytes} records) laid out as fake
 * physical memory by tests/unit/acpi_fixture.c, whose acpi_map() hands out
 * exact-size heap blocks so ASan sees any read past a table. The magic is not
 * checked and a short last record keeps what is left. Each input is parsed
 * three times: as given; with every checksum repaired, so that mutated tables
 * also reach the table parsers; and with every table's length set to its
 * region's as well, so that a table's last entry ends where ASan watches. */
#include <stdbool.h>

#include "acpi.h"
#include "acpi_fixture.h"
#include "fuzz.h"
#include "fuzz_acpi_check.h"

/* ---- Constants ---------------------------------------------------------- */

#define REC_HEAD_LEN 12                /* u64 phys, u32 len */
#define LENGTH_OFF 4                   /* 5.2.6: the header's Length field */

/* ---- Private Variables -------------------------------------------------- */

static struct acpi_info info, again;

/* ---- Private Functions -------------------------------------------------- */

/* Lay the records out as fake memory; returns the RSDP address. */
static uint64_t load(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in(data, size);
	uint64_t rsdp;

	fixture_reset();
	in.i = FIXTURE_MAGIC_LEN < size ? FIXTURE_MAGIC_LEN : size;
	rsdp = fuzz_le(&in, 8);
	while (fuzz_left(&in) > REC_HEAD_LEN) {
		uint64_t phys = fuzz_le(&in, 8);
		size_t len = (size_t)fuzz_le(&in, 4), got;
		const uint8_t *bytes;

		if (len == 0 || len > fuzz_left(&in))
			len = fuzz_left(&in);
		bytes = fuzz_bytes(&in, len, &got);
		fixture_put(phys, bytes, (uint32_t)got);  /* -1 when full: the rest is dropped */
	}
	return rsdp;
}

/* Make every checksum right (the RSDP's two, each region's table), and with
 * fit, every table's length its region's first. */
static void repair(uint64_t rsdp, bool fit)
{
	for (unsigned i = 0; i < fixture_count(); i++) {
		uint64_t phys;
		uint32_t len;

		fixture_region(i, &phys, &len);
		if (phys == rsdp) {
			fx_fix_rsdp(phys);
			continue;
		}
		if (fit && len >= ACPI_HEADER_LEN)
			memcpy(fixture_bytes(phys) + LENGTH_OFF, &len, sizeof(len));
		fx_fix_checksum(phys);
	}
}

/* Parse, check the invariants, and check that a second parse agrees. */
static void parse_and_check(uint64_t rsdp)
{
	int rc = acpi_parse(rsdp, &info), rc_found;

	check_acpi_info(&info);
	FUZZ_ASSERT(rc == 0 || rc == ACPI_ERR);
	FUZZ_ASSERT((rc == 0) == (info.madt.present && info.madt.n_enabled > 0));
	if (info.rsdp.root_phys) {
		FUZZ_ASSERT(info.rsdp.root_phys == (info.rsdp.used_xsdt ? info.rsdp.xsdt_phys
									 : info.rsdp.rsdt_phys));
		FUZZ_ASSERT(info.rsdp.root_len >= ACPI_HEADER_LEN);
	}
	for (uint32_t i = 0; i < info.n_tables; i++) {
		const struct acpi_table_ref *t = &info.tables[i];
		const uint8_t *p;

		if (!t->valid)
			continue;
		p = acpi_map(t->phys, t->length);
		FUZZ_ASSERT(p && acpi_checksum_ok(p, t->length));
		FUZZ_ASSERT(acpi_table(&info, t->sig) != NULL);
	}

	/* The parse is a pure function of memory; find_tables is its first step. */
	FUZZ_ASSERT(acpi_parse(rsdp, &again) == rc);
	FUZZ_ASSERT(!memcmp(&info, &again, sizeof(info)));
	rc_found = acpi_find_tables(rsdp, &again);
	FUZZ_ASSERT((rc_found == 0) == (info.rsdp.root_phys != 0));
	FUZZ_ASSERT(!memcmp(&info.rsdp, &again.rsdp, sizeof(info.rsdp)));
	FUZZ_ASSERT(info.n_tables == again.n_tables);
	FUZZ_ASSERT(!memcmp(info.tables, again.tables, sizeof(info.tables)));
}

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t rsdp = load(data, size);

	parse_and_check(rsdp);
	repair(rsdp, false);
	parse_and_check(rsdp);
	repair(rsdp, true);
	parse_and_check(rsdp);
	fixture_reset();
	return 0;
}
