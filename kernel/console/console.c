/* console.c - the kernel's console platform (console_platform.h): spin locks that a stopped CPU cannot hold for ever, the serial port and the screen, and what printing costs; the console itself is kernel/console/console_text.c. */
#include "console.h"
#include "console_platform.h"
#include "cpu.h"
#include "fbcon.h" /* fbcon hook */
#include "fmt.h"
#include "lib.h"
#include "percpu.h"
#include "serial.h"
#include "spinlock.h"

/* ---- Constants ------------------------------------------------------------ */
#define PANIC_LOCK_MS 500 /* how long a lock is waited for in panic mode before it is broken */
#define RATE_MIN_BYTES 2048            /* measured throughput is trusted past this much output */

/* ---- Private Variables ---------------------------------------------------- */
static struct spinlock locks[2] = { SPINLOCK_INIT, SPINLOCK_INIT }; /* enum console_lock */
static uint64_t out_bytes, out_ticks;  /* what printing has cost so far: serial and screen */
#define TEE_EARLY (64 * 1024)          /* the serial output kept before console_tee_move */
static char tee_early[TEE_EARLY];
static char *tee = tee_early;          /* a copy of everything serial had, for the results file */
static size_t tee_cap = TEE_EARLY, tee_len;
static bool tee_full;

/* ---- Private Functions ---------------------------------------------------- */
static int32_t cpu_index(void)
{
	return (int32_t)this_cpu()->index; /* %gs is set before anything prints */
}

/* To the serial port, and into the tee while it has room. */
static void serial_out(const char *s, size_t n)
{
	serial_write(s, n);
	if (!tee)
		return;
	size_t room = tee_cap - tee_len, k = n < room ? n : room;
	memcpy(tee + tee_len, s, k);
	__atomic_store_n(&tee_len, tee_len + k, __ATOMIC_RELEASE);
	if (k < n)
		tee_full = true;
}

static void count_out(uint64_t t0, size_t n)
{
	out_ticks += rdtsc() - t0;
	out_bytes += n;
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

/* "4.800" and "ns/increment" as "4.80 ns/inc": short enough for a screen column. */
static void short_measure(const char *med, const char *unit, char *out, size_t cap)
{
	static const struct { const char *unit, *shown; } units[] = {
		{ "ns/increment", "ns/inc" }, { "ns/element", "ns/elt" }, { "ns/access", "ns/acc" },
	};
	const char *u = unit;
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			u = units[i].shown;
	size_t d = 0;
	while (med[d] && med[d] != '.')
		d++;
	int keep = d >= 3 ? 0 : (int)(3 - d); /* three significant digits, cut not rounded */
	fmt_snprintf(out, cap, "%.*s %s", (int)(d + (keep && med[d] ? 1 + (size_t)keep : 0)), med, u);
}

/* fbcon hook: a result record as one short line on the summary screen,
 * "counter packed 4t 4.80 ns/inc": its figure in its measure's unit, "~"
 * before it when the figure is noisy (all repetitions, fewer than half
 * clean), "short" when the budget stopped it early; without a measure, the
 * median in ns. */
static void result_to_screen(const char *line)
{
	char wl[16], var[24], thr[8], med[24], unit[24], check[12], out[64];
	if (!rec_field(line, "workload", wl, sizeof(wl)) || !rec_field(line, "variant", var, sizeof(var)))
		return;
	if (!rec_field(line, "threads", thr, sizeof(thr)))
		thr[0] = 0;
	if (!rec_field(line, "check", check, sizeof(check)))
		check[0] = 0;
	char human[32];
	bool noisy = false;
	if (rec_primary_measure(line, med, sizeof(med), unit, sizeof(unit), &noisy)) {
		short_measure(med, unit, human, sizeof(human));
	} else {
		bool ns = rec_field(line, "median_ns", med, sizeof(med)) && strcmp(med, "null");
		if (!ns && !rec_field(line, "median", med, sizeof(med)))
			fmt_snprintf(med, sizeof(med), "%s", check);
		if (ns)
			human_ns(med, human, sizeof(human));
		else
			fmt_snprintf(human, sizeof(human), "%s", med);
	}
	char place[16];
	if (!rec_field(line, "placement", place, sizeof(place)))
		place[0] = 0;
	/* A short result (the budget stopped it early) is a figure, not a failure: said in words. */
	bool is_short = !strcmp(check, "short");
	char threads[12] = "";
	if (thr[0] && strcmp(thr, "0")) /* a skipped result ran on no thread: no "0t" */
		fmt_snprintf(threads, sizeof(threads), " %st", thr);
	fmt_snprintf(out, sizeof(out), "%.11s %.19s%s%s%.8s %s%s%s", wl, var, threads, place[0] ? " " : "", place,
		     is_short ? "short " : "", noisy ? "~" : "", human);
	fbcon_result_add(out, strcmp(check, "ok") && strcmp(check, "skipped") && !is_short);
}

/* ---- Platform hooks (console_platform.h) ---------------------------------- */
bool console_plat_lock(enum console_lock which, bool panic)
{
	struct spinlock *l = &locks[which];
	int32_t self = cpu_index();
	if (panic) {
		if (l->locked && l->owner == self) /* re-entered from a fault on this CPU */
			return true;
		if (!spin_lock_ms(l, PANIC_LOCK_MS, self))
			l->owner = self; /* broken: whoever held it is stopped */
		return true;
	}
	if (!spin_lock_ms(l, SPIN_LOCK_MS, self)) {
		/* A lock held this long means its holder is gone: say so once, carry on. */
		static const char msg[] = "\r\nconsole: lock held for too long, breaking it\r\n";
		serial_write(msg, sizeof(msg) - 1);
		l->owner = self;
	}
	return true;
}

void console_plat_unlock(enum console_lock which, bool held)
{
	if (held)
		spin_unlock(&locks[which]);
}

void console_plat_text(const char *s, size_t n)
{
	uint64_t t0 = rdtsc();
	size_t start = 0; /* serial terminals want CR LF */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			serial_out(s + start, i - start);
			serial_out("\r\n", 2);
			start = i + 1;
		}
	}
	serial_out(s + start, n - start);
	fbcon_write(s, n); /* fbcon hook: people's text on the screen too */
	count_out(t0, n);
}

void console_plat_record(const char *line, size_t n)
{
	uint64_t t0 = rdtsc();
	serial_out(line, n);
	serial_out("\r\n", 2);
	count_out(t0, n + 2);
}

void console_plat_result(const char *line)
{
	result_to_screen(line);
}

int64_t console_plat_cpu(void)
{
	return cpu_index();
}

/* ---- Public Functions ----------------------------------------------------- */
void console_status(const char *line)
{
	fbcon_set_status(line); /* fbcon hook */
}

void console_summary_line(const char *line)
{
	fbcon_summary_add(line); /* fbcon hook */
}

double console_bytes_per_s(uint64_t hz)
{
	if (out_bytes < RATE_MIN_BYTES || !hz || !out_ticks)
		return 0;
	return (double)out_bytes * (double)hz / (double)out_ticks;
}

bool console_tee_move(char *buf, size_t cap)
{
	if (!tee || cap < tee_len)
		return false;
	bool held = console_plat_lock(CONSOLE_LOCK_OUT, false);
	memcpy(buf, tee, tee_len);
	tee = buf;
	tee_cap = cap;
	console_plat_unlock(CONSOLE_LOCK_OUT, held);
	return true;
}

void console_tee_stop(void)
{
	bool held = console_plat_lock(CONSOLE_LOCK_OUT, false);
	tee = 0;
	tee_len = 0;
	console_plat_unlock(CONSOLE_LOCK_OUT, held);
}

const char *console_tee(size_t *len, bool *full)
{
	*len = __atomic_load_n(&tee_len, __ATOMIC_ACQUIRE);
	*full = tee_full;
	return tee;
}
