/* console.h - text for people and checksummed records for tools, on the serial port (and later the screen).
 *
 * Layer 3: console. Where text and records go: the serial port, the screen,
 * the record format and the console written once for both platforms
 * (console_platform.h is what a platform gives it). Includes lib and arch;
 * every layer from mm up may include it and report through it; lib and arch
 * must not. */
#ifndef QB_KERNEL_CONSOLE_H
#define QB_KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>
#include "record.h"

#define CONSOLE_REC_BUF (64 * 1024) /* longest record line (a 64-CPU matrix fits) */

/* Write raw bytes to every console. */
void console_write(const char *s, size_t n);

/* printf-style text line(s) to the consoles. */
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start a record of the given kind in the shared record buffer. Holds the
 * record lock until console_rec_emit(); build it with the rec_* calls. */
struct rec *console_rec_open(const char *kind);

/* Finish, print and release the record. A record that overflowed or is
 * malformed is replaced by an `error` record saying so, never truncated. */
void console_rec_emit(struct rec *r);

/* Convenience: an `error` record {"what": what, "detail": detail}. */
void console_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line of a workload's key numbers for the end-of-run summary (the
 * screen's summary on bare metal; a text line in the Linux twin). */
void console_summary(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replace the status line (the screen's bottom line on bare metal; nothing in
 * the Linux twin, whose text already says it). */
void console_status(const char *line);

/* One line on the end-of-run summary screen, not printed as text (bare
 * metal; nothing in the twin). */
void console_summary_line(const char *line);

/* From now on locks are taken with a short bound and then broken, so that a
 * CPU stopped while holding one cannot silence the report of a fatal fault. */
void console_panic_mode(void);

/* What printing has cost so far, in bytes per second of the time spent
 * printing (serial and screen), given the TSC's frequency; 0 until there
 * is enough to tell, or when printing costs nothing worth counting. */
double console_bytes_per_s(uint64_t tsc_hz);

/* The tee: a copy of every byte the serial port was given (CR LF as sent),
 * kept from the start in a small buffer, for the results file on the stick
 * (bare metal only). console_tee_move copies it into buf (cap bytes, at
 * least what it holds) and goes on there; false if it cannot. console_tee_stop
 * ends it. console_tee gives the copy, its length and whether bytes were
 * lost because it was full. */
bool console_tee_move(char *buf, size_t cap);
void console_tee_stop(void);
const char *console_tee(size_t *len, bool *full);

/* Records emitted so far, and errors among them (the done record reports these). */
unsigned long console_records(void);
unsigned long console_errors(void);

#endif
