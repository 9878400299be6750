/* console_platform.h - what the console functions written once (kernel/console/console_text.c) need from a platform: its locks, where text and record lines go, and which CPU is calling.
 *
 * Layer: console. The kernel implements it in kernel/console/console.c (spin
 * locks, the serial port and the screen), the Linux twin in
 * tools/twin/console.c (mutexes and stdout). Nothing else includes it. */
#ifndef QB_KERNEL_CONSOLE_PLATFORM_H
#define QB_KERNEL_CONSOLE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two console locks: one for output lines, one for the shared record buffer. */
enum console_lock {
	CONSOLE_LOCK_OUT,
	CONSOLE_LOCK_REC,
};

/* Take lock l. In panic mode (panic true) the wait is short and bounded, as
 * the holder may be a CPU that stopped; false: carry on without it. */
bool console_plat_lock(enum console_lock l, bool panic);
void console_plat_unlock(enum console_lock l, bool held);

/* People's text, n bytes with '\n' line ends, to every console (the serial
 * port wants CR LF; the screen shows it). Called under CONSOLE_LOCK_OUT. */
void console_plat_text(const char *s, size_t n);

/* One record line, without its line end, to the consoles that carry records
 * (not the screen). Called under CONSOLE_LOCK_OUT. */
void console_plat_record(const char *line, size_t n);

/* A `result` record line went out (the kernel shows its median on the screen). */
void console_plat_result(const char *line);

/* The calling CPU's dense number, for `error` records. */
int64_t console_plat_cpu(void);

#endif
