/* hostfault.h - a crash in a workload ends the run as on bare metal: an `error` record (what "exception") and `done` with status fail. */
#ifndef QB_TWIN_HOSTFAULT_H
#define QB_TWIN_HOSTFAULT_H

#include <stdbool.h>

/* Catch SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT on every thread. In the
 * sanitizer build ASan's own report is the better one: only boost and NUMA
 * balancing are put back before it ends the process (its death callback). */
void hostfault_init(void);

/* Ctrl-C (SIGINT), SIGTERM, SIGHUP, SIGQUIT and SIGPIPE end the run as a
 * run that was stopped: a `done` record with status fail whose reason says
 * it was interrupted (exit status 1, as any failed run), boost and NUMA
 * balancing put back. Call before any thread starts (they inherit the
 * blocked signals); a thread of its own waits for them. */
void hostfault_catch_interrupts(void);

/* The thread that ends the run (finish_now) writes the last lines alone:
 * from here on every other thread stops at its next console lock, and lets
 * go of the console locks it holds, so that `done` is the last record even
 * while the main thread is still measuring (a signal's waiter finishes). */
void hostfault_stop_others(void);

/* True on a thread other than the one that called hostfault_stop_others, once it was called. */
bool hostfault_others_stopped(void);

#endif
