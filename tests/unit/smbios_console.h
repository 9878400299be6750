/* smbios_console.h - the console under kernel/run/report_smbios.c for host tests: every record and text line kept for the test to read. */
#ifndef QB_TESTS_SMBIOS_CONSOLE_H
#define QB_TESTS_SMBIOS_CONSOLE_H

#define SMBIOS_CONSOLE_RECORDS 64
#define SMBIOS_CONSOLE_LINE 65536

extern char *kept_records[SMBIOS_CONSOLE_RECORDS]; /* each emitted record's line */
extern unsigned kept_n;
extern char console_text[8192];                        /* kprintf's output, appended */
extern unsigned console_n_errors;                      /* console_error calls */

/* Forget what was kept. */
void console_reset(void);

/* The first kept record of this kind, or NULL. */
const char *console_find(const char *kind);

/* How many kept records are of this kind. */
unsigned console_count(const char *kind);

#endif
