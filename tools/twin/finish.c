/* finish.c - finish.h on Linux: the same `done` record as kernel/run/finish.c, then exit(3) with status 0 exactly when it says ok. */
#include "finish.h"
#include "report.h"
#include <stdlib.h>
#include <unistd.h>
#include "console.h"
#include "hostcpu.h"
#include "hostfault.h"
#include "hostsys.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define EXIT_FAILED 1

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t start_tsc;
static volatile int failed, finishing;
static volatile unsigned long n_failures;
static const char *first_failure;

/* ---- Public Functions ----------------------------------------------------- */
void finish_setup(enum finish_mode m, uint64_t efi_reset_system, uint64_t boot_tsc)
{
	(void)m;                /* finish= has no meaning for a process (reported by main.c) */
	(void)efi_reset_system;
	start_tsc = boot_tsc;
}

void finish_set_banner(const char *text)
{
	(void)text; /* a process has no screen of its own: the text says it */
}

void finish_mark_failed(const char *why)
{
	if (!failed)
		first_failure = why;
	failed = 1;
	__atomic_add_fetch(&n_failures, 1, __ATOMIC_RELAXED);
}

unsigned long finish_failures(void)
{
	return n_failures;
}

void finish_now(bool ok)
{
	if (__atomic_exchange_n(&finishing, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause(); /* someone is already finishing: the process ends with them */
	ok = ok && !failed;
	hostfault_stop_others(); /* from here this thread writes alone: done is the last record */
	if (hostsys_restore())  /* a run stopped early (Ctrl-C, a crash) still puts boost and NUMA balancing back */
		kprintf("state: boost and NUMA balancing put back as they were\n");

	struct report_cpus cpus;
	hostcpu_counts(&cpus);
	report_done(ok, first_failure, &cpus, -1, -1, start_tsc);
	kprintf("quietbench: done, status %s, %u of %u CPUs online\n", ok ? "ok" : "FAIL", hostcpu_online(),
		hostcpu_found());
	/* The worker threads (lost ones included) end with the process. */
	exit(ok ? 0 : EXIT_FAILED);
}
