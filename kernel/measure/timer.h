/* timer.h - the fixed-frequency reference clocks used to calibrate the TSC: HPET (IA-PC HPET 1.0a) or the ACPI PM timer (ACPI 6.5 §4.8.3.3). */
#ifndef QB_KERNEL_TIMER_H
#define QB_KERNEL_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "acpi.h"

enum timer_kind { TIMER_NONE = 0, TIMER_HPET, TIMER_PM };

/* Pick a reference clock: the HPET if its table is valid and its counter
 * runs, else the PM timer. Returns the kind chosen (TIMER_NONE if neither). */
enum timer_kind timer_init(const struct acpi_info *ai);

/* The chosen clock, its frequency in Hz and its name ("hpet", "pm-timer", "none"). */
enum timer_kind timer_kind(void);
uint64_t timer_hz(void);
const char *timer_name(void);

/* Read the counter, extended to 64 bits across wraps (call at least once per
 * wrap period: 4 s for a 24-bit PM timer). */
uint64_t timer_read(void);

#endif
