/* acpi_expect.h - compares a parse result with the SLIT and HMAT lines of an .expect file that tests/fixtures/real/import.py wrote from ACPICA's iasl -d (test_acpi_real.c, test_acpi_hmat.c).
 *
 * No CHECKs here (check.h's counters are per program): each mismatch is
 * printed and counted, and the caller checks the count. */
#ifndef QB_TESTS_ACPI_EXPECT_H
#define QB_TESTS_ACPI_EXPECT_H

#include "acpi.h"

/* One line of an .expect file: -1 when it is not a SLIT or HMAT line, else
 * the number of values in it that the parse result does not hold (each
 * printed with name); *compared grows by the values compared. */
int acpi_expect_numa_line(const struct acpi_info *info, const char *name, const char *line, unsigned *compared);

#endif
