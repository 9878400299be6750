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

/* A bound for waits that come before the TSC is calibrated (the firmware's
 * USB and IOMMU handoffs): ms milliseconds of the reference clock from now;
 * without one, of the TSC at an assumed 10 GHz (spin_deadline_ms), so the
 * wait can only get longer. Poll timer_passed often (it reads the clock). */
struct timer_deadline {
	bool on_timer;                 /* timer ticks, else TSC ticks */
	uint64_t at;
};
struct timer_deadline timer_deadline_ms(uint64_t ms);
bool timer_passed(const struct timer_deadline *d);

#endif
