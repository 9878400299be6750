/* console_platform.h - what the shared console functions (kernel/console/console_text.c) need from a platform: which CPU is calling, and where a summary line is shown besides the text.
 *
 * The kernel implements it in kernel/console/console.c (per-CPU data, the
 * screen), the Linux twin in tools/twin/console.c (its thread, nothing). */
#ifndef QB_KERNEL_CONSOLE_PLATFORM_H
#define QB_KERNEL_CONSOLE_PLATFORM_H

#include <stdint.h>

/* The calling CPU's dense number, for `error` records. */
int64_t console_plat_cpu(void);

/* Show a summary line beside the text (the screen's summary), or nothing. */
void console_plat_summary(const char *line);

#endif
