/* serial_setup.h - which UART is the serial console: console= if given, else the SPCR's, else COM1 (Microsoft SPCR rev 2-4). */
#ifndef QB_KERNEL_SERIAL_SETUP_H
#define QB_KERNEL_SERIAL_SETUP_H

#include "acpi.h"
#include "options.h"

/* Move the console as the options and the SPCR say (after ACPI is parsed and
 * MMIO can be mapped). A port that does not answer is not used: the console
 * stays where it was, with an error record. */
void serial_setup(const struct options *o, const struct acpi_info *ai);

/* Where the console came from, for the boot record: "default", "spcr",
 * "console=", or "console=none". */
const char *serial_setup_source(void);

#endif
