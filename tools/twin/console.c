/* console.c - console.h on Linux: the same text and record lines as kernel/console/console.c, on stdout (write(2), no stdio buffer to lose), under a mutex. */
#include "console.h"
#include "console_platform.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include "fmt.h"
#include "hostcpu.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define TEXT_BUF 1024
#define PANIC_TRIES 100000          /* lock attempts before a lock is ignored in panic mode */

/* ---- Private Variables ---------------------------------------------------- */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static bool rec_held;               /* rec_lock was taken (in panic mode it may not be) */
static char rec_buf[CONSOLE_REC_BUF];
static struct rec rec_shared;
static char rec_kind[32];           /* kind of the record being built, for the overflow report */
static volatile int panic_mode;
static unsigned long n_records, n_errors;

/* ---- Private Functions ---------------------------------------------------- */
/* Take l; in panic mode give up after a bound (its holder may be the thread that faulted). */
static bool lock(pthread_mutex_t *l)
{
	if (!panic_mode)
		return pthread_mutex_lock(l) == 0;
	for (unsigned i = 0; i < PANIC_TRIES; i++) {
		if (pthread_mutex_trylock(l) == 0)
			return true;
		sched_yield();
	}
	return false;
}

static void unlock(pthread_mutex_t *l, bool held)
{
	if (held)
		pthread_mutex_unlock(l);
}

static void out(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* stdout is gone: nothing else can report it */
		s += w;
		n -= (size_t)w;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
void console_write(const char *s, size_t n)
{
	bool held = lock(&out_lock);
	out(s, n);
	unlock(&out_lock, held);
}

void kprintf(const char *fmt, ...)
{
	char buf[TEXT_BUF];
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	console_write(buf, len); /* Linux wants LF: no CR added, unlike the serial port */
}

struct rec *console_rec_open(const char *kind)
{
	bool held = lock(&rec_lock);
	rec_held = held;
	size_t i = 0;
	for (; kind && kind[i] && i + 1 < sizeof(rec_kind); i++)
		rec_kind[i] = kind[i];
	rec_kind[i] = 0;
	rec_begin(&rec_shared, rec_buf, sizeof(rec_buf), kind);
	return &rec_shared;
}

void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	if (!line) {
		/* Say which record was lost and why, in a record that fits (as the kernel does). */
		rec_begin(r, rec_buf, sizeof(rec_buf), "error");
		rec_str(r, "what", "record too long or malformed");
		rec_str(r, "record_kind", rec_kind);
		rec_u64(r, "cpu", hostcpu_self());
		line = rec_finish(r, &len);
	}
	if (line) {
		bool held = lock(&out_lock);
		out(line, len);
		out("\n", 1);
		unlock(&out_lock, held);
		n_records++;
		if (!strncmp(line, "@qb {\"v\":1,\"kind\":\"error\"", 25))
			n_errors++;
	}
	unlock(&rec_lock, rec_held);
}

int64_t console_plat_cpu(void)
{
	return hostcpu_self();
}

void console_plat_summary(const char *line)
{
	(void)line; /* no screen: the text line says it */
}

void console_status(const char *line)
{
	(void)line; /* no status line: the text says it */
}

void console_summary_line(const char *line)
{
	(void)line;
}

void console_panic_mode(void)
{
	panic_mode = 1;
}

double console_bytes_per_s(void)
{
	return 0; /* stdout: printing is not what takes time */
}

unsigned long console_records(void)
{
	return n_records;
}

unsigned long console_errors(void)
{
	return n_errors;
}
