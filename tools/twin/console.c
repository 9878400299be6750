/* console.c - the twin's console platform (console_platform.h): mutexes, and stdout through write(2) (no stdio buffer to lose); the console itself is kernel/console/console_text.c, as in the kernel. */
#include "console.h"
#include "console_platform.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include "hostcpu.h"
#include "hostfault.h"

/* ---- Constants ------------------------------------------------------------ */
#define PANIC_TRIES 100000          /* lock attempts before a lock is ignored in panic mode */

/* ---- Private Variables ---------------------------------------------------- */
static pthread_mutex_t locks[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER }; /* enum console_lock */
static __thread unsigned held;      /* this thread's console locks, a bit each */

/* ---- Private Functions ---------------------------------------------------- */
/* The run is ending on another thread (hostfault_stop_others): let go of the
 * console and stop here, so that nothing follows its `done`. */
static void stop_if_finishing(void)
{
	if (!hostfault_others_stopped())
		return;
	for (unsigned i = 0; i < 2; i++)
		if (held & (1u << i))
			pthread_mutex_unlock(&locks[i]);
	held = 0;
	for (;;)
		pause(); /* the process ends with the finisher's exit */
}

static void out(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE)   /* the writer's own SIGPIPE is blocked: the process's ends the run */
			kill(getpid(), SIGPIPE);
		if (w <= 0)
			return; /* stdout is gone: nothing else can report it */
		s += w;
		n -= (size_t)w;
	}
}

/* ---- Platform hooks (console_platform.h) ---------------------------------- */
bool console_plat_lock(enum console_lock which, bool panic)
{
	pthread_mutex_t *l = &locks[which];
	bool got = false;
	if (!panic) {
		got = pthread_mutex_lock(l) == 0;
	} else {
		for (unsigned i = 0; i < PANIC_TRIES && !got; i++) { /* its holder may be the thread that faulted */
			got = pthread_mutex_trylock(l) == 0;
			if (!got)
				sched_yield();
		}
	}
	if (got)
		held |= 1u << which;
	stop_if_finishing();
	return got;
}

void console_plat_unlock(enum console_lock which, bool was_held)
{
	if (!was_held)
		return;
	held &= ~(1u << which);
	pthread_mutex_unlock(&locks[which]);
}

void console_plat_text(const char *s, size_t n)
{
	out(s, n); /* Linux wants LF: no CR added, unlike the serial port */
}

void console_plat_record(const char *line, size_t n)
{
	out(line, n);
	out("\n", 1);
}

void console_plat_result(const char *line)
{
	(void)line; /* no screen */
}

int64_t console_plat_cpu(void)
{
	return hostcpu_self();
}

/* ---- Public Functions ----------------------------------------------------- */
void console_status(const char *line)
{
	(void)line; /* no status line: the text says it */
}

void console_summary_line(const char *line)
{
	(void)line; /* no screen: the text line says it */
}

double console_bytes_per_s(uint64_t hz)
{
	(void)hz;
	return 0; /* stdout: printing is not what takes time */
}
