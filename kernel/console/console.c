/* console.c - serialised output of text and records; see console.h. */
#include "console.h"
#include "console_platform.h"
#include "fbcon.h" /* fbcon hook */
#include "fmt.h"
#include "lib.h"
#include "percpu.h"
#include "serial.h"
#include "spinlock.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define TEXT_BUF 1024
#define PANIC_LOCK_MS 500 /* how long a lock is waited for in panic mode before it is broken */

/* ---- Private Variables ---------------------------------------------------- */
static struct spinlock out_lock = SPINLOCK_INIT;
static struct spinlock rec_lock = SPINLOCK_INIT;
static char rec_buf[CONSOLE_REC_BUF];
static struct rec rec_shared;
static char rec_kind[32];          /* kind of the record being built, for the overflow report */
static volatile int panic_mode;
static unsigned long n_records, n_errors;
static uint64_t out_bytes, out_ticks;  /* what printing has cost so far: serial and screen */

#define RATE_MIN_BYTES 2048            /* measured throughput is trusted past this much output */

/* ---- Private Functions ---------------------------------------------------- */
static int32_t cpu_index(void)
{
	return (int32_t)this_cpu()->index; /* %gs is set before anything prints */
}

static void lock(struct spinlock *l)
{
	int32_t self = cpu_index();
	if (panic_mode) {
		if (l->locked && l->owner == self) /* re-entered from a fault on this CPU */
			return;
		if (!spin_lock_ms(l, PANIC_LOCK_MS, self))
			l->owner = self; /* broken: whoever held it is stopped */
		return;
	}
	while (!spin_lock_ms(l, SPIN_LOCK_MS, self)) {
		/* A lock held this long means its holder is gone: say so once, carry on. */
		static const char msg[] = "\r\nconsole: lock held for too long, breaking it\r\n";
		serial_write(msg, sizeof(msg) - 1);
		l->owner = self;
		return;
	}
}

/* ---- Public Functions ----------------------------------------------------- */
static void count_out(uint64_t t0, size_t n)
{
	out_ticks += tsc_read() - t0;
	out_bytes += n;
}

void console_write(const char *s, size_t n)
{
	lock(&out_lock);
	uint64_t t0 = tsc_read();
	serial_write(s, n);
	fbcon_write(s, n); /* fbcon hook: people's text on the screen too */
	count_out(t0, n);
	spin_unlock(&out_lock);
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
	/* Serial terminals want CR LF. */
	lock(&out_lock);
	uint64_t t0 = tsc_read();
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			serial_write(buf + start, i - start);
			serial_write("\r\n", 2);
			start = i + 1;
		}
	}
	serial_write(buf + start, len - start);
	fbcon_write(buf, len); /* fbcon hook: people's text on the screen too */
	count_out(t0, len);
	spin_unlock(&out_lock);
}

struct rec *console_rec_open(const char *kind)
{
	lock(&rec_lock);
	size_t i = 0;
	for (; kind && kind[i] && i + 1 < sizeof(rec_kind); i++)
		rec_kind[i] = kind[i];
	rec_kind[i] = 0;
	rec_begin(&rec_shared, rec_buf, sizeof(rec_buf), kind);
	return &rec_shared;
}

/* The text of a top-level "key":"value" or "key":number in a record line
 * (the first occurrence: the record's own fields come before its nested
 * ones), copied into out; false if absent. */
static bool field_text(const char *line, const char *key, char *out, size_t cap)
{
	char pat[32];
	fmt_snprintf(pat, sizeof(pat), "\"%s\":", key);
	size_t plen = strlen(pat);
	const char *p = line;
	while (*p && strncmp(p, pat, plen))
		p++;
	if (!*p)
		return false;
	if (!cap)
		return false;
	p += plen;
	bool str = *p == '"';
	p += str;
	size_t n = 0;
	while (p[n] && n + 1 < cap && (str ? p[n] != '"' : p[n] != ',' && p[n] != '}'))
		n++;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

/* "2881765.2" (ns) as "2.88 ms": the digits cut, never rounded up or down
 * into another unit, without floating point. */
static void human_ns(const char *v, char *out, size_t cap)
{
	size_t d = 0;
	while (v[d] >= '0' && v[d] <= '9')
		d++;
	if (d > 9)
		fmt_snprintf(out, cap, "%.*s.%.2s s", (int)(d - 9), v, v + d - 9);
	else if (d > 6)
		fmt_snprintf(out, cap, "%.*s.%.2s ms", (int)(d - 6), v, v + d - 6);
	else if (d > 3)
		fmt_snprintf(out, cap, "%.*s.%.2s us", (int)(d - 3), v, v + d - 3);
	else
		fmt_snprintf(out, cap, "%s ns", v);
}

/* fbcon hook: a result record as one short line on the summary screen,
 * "counter packed 4t 12.3ns". */
static void result_to_screen(const char *line)
{
	char wl[16], var[24], thr[8], med[24], check[12], out[64];
	if (!field_text(line, "workload", wl, sizeof(wl)) || !field_text(line, "variant", var, sizeof(var)))
		return;
	if (!field_text(line, "threads", thr, sizeof(thr)))
		thr[0] = 0;
	if (!field_text(line, "check", check, sizeof(check)))
		check[0] = 0;
	bool ns = field_text(line, "median_ns", med, sizeof(med)) && strcmp(med, "null");
	if (!ns && !field_text(line, "median", med, sizeof(med)))
		fmt_snprintf(med, sizeof(med), "%s", check);
	char human[24];
	if (ns)
		human_ns(med, human, sizeof(human));
	else
		fmt_snprintf(human, sizeof(human), "%s", med);
	char place[16];
	if (!field_text(line, "placement", place, sizeof(place)))
		place[0] = 0;
	fmt_snprintf(out, sizeof(out), "%.11s %.19s %st%s%.8s %s", wl, var, thr, place[0] ? " " : "", place, human);
	fbcon_result_add(out, strcmp(check, "ok") && strcmp(check, "skipped"));
}

void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	if (!line) {
		/* Say which record was lost and why, in a record that fits. */
		rec_begin(r, rec_buf, sizeof(rec_buf), "error");
		rec_str(r, "what", "record too long or malformed");
		rec_str(r, "record_kind", rec_kind);
		rec_u64(r, "cpu", (uint64_t)cpu_index());
		line = rec_finish(r, &len); /* counted as an error below, like any error record */
	}
	if (line) {
		lock(&out_lock);
		uint64_t t0 = tsc_read();
		serial_write(line, len);
		serial_write("\r\n", 2);
		count_out(t0, len + 2);
		spin_unlock(&out_lock);
		n_records++;
		if (!strncmp(line, "@qb {\"v\":1,\"kind\":\"error\"", 25))
			n_errors++;
		else if (!strncmp(line, "@qb {\"v\":1,\"kind\":\"result\"", 26))
			result_to_screen(line);
	}
	spin_unlock(&rec_lock);
}

int64_t console_plat_cpu(void)
{
	return cpu_index();
}

void console_plat_summary(const char *line)
{
	fbcon_summary_add(line); /* fbcon hook */
}

void console_status(const char *line)
{
	fbcon_set_status(line); /* fbcon hook */
}

void console_summary_line(const char *line)
{
	fbcon_summary_add(line); /* fbcon hook */
}

void console_panic_mode(void)
{
	panic_mode = 1;
}

double console_bytes_per_s(void)
{
	uint64_t hz = tsc_hz();
	if (out_bytes < RATE_MIN_BYTES || !hz || !out_ticks)
		return 0;
	return (double)out_bytes * (double)hz / (double)out_ticks;
}

unsigned long console_records(void)
{
	return n_records;
}

unsigned long console_errors(void)
{
	return n_errors;
}
