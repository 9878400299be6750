/* series.h - this boot's place in a series of boots (series=N, issue 37): planned by the UEFI loader from the stick's /quietbench/series/ logs (kernel/lib/resseries.h), checked here against the options, said on serial and the screen, and how each boot ends: by resetting the machine until the last, which ends as finish= says. */
#ifndef QB_KERNEL_SERIES_H
#define QB_KERNEL_SERIES_H

#include <stdbool.h>
#include "boot_info.h"
#include "finish.h"
#include "options.h"

#define SERIES_TRIES_RESET 3         /* from a boot's third start (two cut before it) no reset: a person looks */

/* After the options are parsed: whether this boot is boot k of a series (the
 * loader planned it and the options, without a mistake, ask for the same
 * series), and so how it ends: a reset before the last boot, else finish=. */
enum finish_mode series_setup(const struct boot_info *bi, const struct options *o, int opt_errors);

/* This boot's series (the loader's plan), or NULL when it is not one: then
 * results.c writes results.log as usual. */
const struct boot_series *series_current(void);

/* After results_open: "series: boot k of N" on serial and the screen; or,
 * when series= was asked and this boot cannot be one (legacy BIOS, not a USB
 * stick, a stick without room), an error saying why, and the run stops. A
 * series boot whose log cannot be written goes on without the reset. */
void series_check(const struct boot_info *bi);

/* The `series` record (docs/records.md), after `results_file`. */
void series_report(void);

/* Before the last save, after `done`: what happens next ("resets for boot
 * k + 1", "the series is whole"). */
void series_end_note(void);

#endif
