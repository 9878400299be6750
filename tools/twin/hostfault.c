/* hostfault.c - fatal signals as `error` records (signal(7), sigaction(2)); see hostfault.h. */
#define _GNU_SOURCE
#include "hostfault.h"
#include <pthread.h>
#include <signal.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include "console.h"
#include "finish.h"
#include "hostcpu.h"
#include "hostsys.h"

/* ---- Private Variables ---------------------------------------------------- */
static pthread_t finisher;           /* hostfault_stop_others: the thread that writes the last lines */
static volatile int others_stopped;

/* ---- Private Functions ---------------------------------------------------- */
#if !defined(__SANITIZE_ADDRESS__)
static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGABRT: return "SIGABRT";
	}
	return "signal";
}

/* Not async-signal-safe in general; in panic mode the console's locks are
 * bounded, as the kernel's are after an exception. */
static void on_fault(int sig, siginfo_t *si, void *uc_void)
{
	const ucontext_t *uc = uc_void;
	console_panic_mode();
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "exception");
	rec_str(r, "name", signal_name(sig));
	rec_u64(r, "signal", (uint64_t)sig);
	rec_u64(r, "code", (uint64_t)si->si_code);
	rec_hex(r, "rip", (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
	rec_hex(r, "addr", (uint64_t)(uintptr_t)si->si_addr);
	rec_u64(r, "cpu", hostcpu_self());
	console_rec_emit(r);
	finish_mark_failed("a workload crashed (fatal signal)");
	finish_now(false);
}
#endif

#if defined(__SANITIZE_ADDRESS__)
/* The sanitizers' report ends the process: boost and NUMA balancing go back first. */
static void on_sanitizer_death(void)
{
	hostsys_restore();
}
#endif

static const char *stop_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT, Ctrl-C";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP, its terminal went away";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE, its output was closed";
	}
	return "signal";
}

/* The thread that waits for the signals that stop a run: not a handler, so
 * the done record is written from an ordinary thread, under the console's
 * bounded locks. */
static void *interrupt_waiter(void *arg)
{
	sigset_t *set = arg;
	int sig = 0;
	if (sigwait(set, &sig))
		return 0;
	static char why[80];
	snprintf(why, sizeof(why), "interrupted: %s (the run was stopped)", stop_name(sig));
	finish_mark_failed(why);
	finish_now(false);
}

/* ---- Public Functions ----------------------------------------------------- */
void hostfault_catch_interrupts(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	static sigset_t set;
	sigemptyset(&set);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, 0);
	pthread_t t;
	if (pthread_create(&t, 0, interrupt_waiter, &set) == 0)
		pthread_detach(t);
	else
		pthread_sigmask(SIG_UNBLOCK, &set, 0); /* no waiter: the default action, as before */
}

void hostfault_init(void)
{
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(on_sanitizer_death);
#else
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND; /* a fault inside the handler ends the process */
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, 0);
#endif
}

void hostfault_stop_others(void)
{
	finisher = pthread_self();
	__atomic_store_n(&others_stopped, 1, __ATOMIC_RELEASE);
}

bool hostfault_others_stopped(void)
{
	return __atomic_load_n(&others_stopped, __ATOMIC_ACQUIRE) && !pthread_equal(finisher, pthread_self());
}
