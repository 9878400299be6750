/* options_report.h - what a bad command line tells the user: each mistake with
 * the closest good word and what is valid, as text and `error` records, and
 * the refusal to measure anything with it (the kernel and the Linux twin
 * share it). */
#ifndef QB_KERNEL_OPTIONS_REPORT_H
#define QB_KERNEL_OPTIONS_REPORT_H

#include "options.h"

/*
 * Print each of errs[0 .. MIN(n, shown)) as an "error:" line naming the key,
 * the value, why, the closest good word ("did you mean workloads=counter?")
 * and what is valid, and emit one `error` record ("what":"bad option") for
 * each with the fields key, value, detail, hint and valid. n > shown adds
 * one record for the errors not listed.
 */
void options_report(const struct opt_error *errs, int n, unsigned shown);

/*
 * A run with bad options measures nothing: say so on the screen's summary
 * (each mistake and how to fix it, under a "BAD OPTIONS" banner) and in the
 * text, and mark the run failed ("bad options: nothing was measured"). fix
 * says where the user corrects them. The caller then finishes. A typo must
 * never run a more expensive default.
 */
void options_refuse(const struct opt_error *errs, int n, unsigned shown, const char *fix);

#endif
