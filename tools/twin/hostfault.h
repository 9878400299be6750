/* hostfault.h - a crash in a workload ends the run as on bare metal: an `error` record (what "exception") and `done` with status fail. */
#ifndef QB_TWIN_HOSTFAULT_H
#define QB_TWIN_HOSTFAULT_H

/* Catch SIGSEGV, SIGBUS, SIGILL and SIGFPE on every thread. In the sanitizer
 * build this does nothing: ASan's own report is the better one. */
void hostfault_init(void);

/* Ctrl-C (SIGINT) and SIGTERM end the run as a run that was stopped: a
 * `done` record with status fail whose reason says it was interrupted (exit
 * status 1, as any failed run). Call before any thread starts (they inherit
 * the blocked signals); a thread of its own waits for them. */
void hostfault_catch_interrupts(void);

#endif
