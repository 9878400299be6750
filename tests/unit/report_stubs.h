/* report_stubs.h - the platform under kernel/run/report.c and report_machine.c for host tests: console, finish, CPUID and TSC as stubs whose values a test sets and whose output it reads. */
#ifndef QB_TESTS_UNIT_REPORT_STUBS_H
#define QB_TESTS_UNIT_REPORT_STUBS_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

extern uint64_t hz;                     /* tsc_hz(), tsc_measured_hz() */
extern char printed[2048];              /* what kprintf printed, appended */
extern const char *brand, *vendor;      /* the CPUID brand and vendor strings */
extern const char *hv_sig, *hv_name;    /* the hypervisor's signature and name; NULL: bare metal */
extern char last[4096];                 /* the last record emitted */
extern char last_error[512];            /* "what: detail" of the last console_error */
extern int n_errors, n_failed;          /* console_error and finish_mark_failed calls */

#endif
