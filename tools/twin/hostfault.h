/* hostfault.h - a crash in a workload ends the run as on bare metal: an `error` record (what "exception") and `done` with status fail. */
#ifndef QB_TWIN_HOSTFAULT_H
#define QB_TWIN_HOSTFAULT_H

/* Catch SIGSEGV, SIGBUS, SIGILL and SIGFPE on every thread. In the sanitizer
 * build this does nothing: ASan's own report is the better one. */
void hostfault_init(void);

#endif
