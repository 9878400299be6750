/* smbios_fixture.h - the host tests' SMBIOS dumps (tests/fixtures/smbios: dmidecode's --dump-bin format, the entry point at offset 0 and the table where it points), loaded and parsed. */
#ifndef QB_TESTS_SMBIOS_FIXTURE_H
#define QB_TESTS_SMBIOS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "smbios.h"

#define SMBIOS_FIXTURE_DIR "tests/fixtures/smbios"
#define SMBIOS_FIXTURE_MAX (1u << 20)

struct smbios_fixture {
	uint8_t data[SMBIOS_FIXTURE_MAX]; /* the file */
	size_t len;
	const uint8_t *ep;             /* the entry point (offset 0) */
	const uint8_t *table;          /* where it points in the file */
	size_t table_len;              /* its bytes: the entry point's length, within the file */
};

/* Read tests/fixtures/smbios/NAME.bin (or $QB_SMBIOS_DIR/NAME.bin) and find
 * its table through its entry point. False, with a message printed, when it
 * cannot be read or its entry point does not decode. */
bool smbios_fixture_load(const char *name, struct smbios_fixture *f);

/* smbios_parse() over the fixture's entry point and table. */
void smbios_fixture_parse(const struct smbios_fixture *f, struct smbios_info *out);

/* The path of NAME with an extension (".bin", ".expect") in the fixture folder. */
void smbios_fixture_path(const char *name, const char *ext, char *out, size_t cap);

#endif
