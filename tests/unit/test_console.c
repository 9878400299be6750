/* test_console.c - host tests for kernel/console/console_text.c, the console written once for both platforms, on a recording platform (console_platform.h): text, records, the overflow report, error counting, the result hook and panic-mode locks. */
#include <stdlib.h>

#include "check.h"
#include "console.h"
#include "console_platform.h"
#include "json_check.h"
#include "record.h"

/* ---- The recording platform ---------------------------------------------- */
static char text[8192];
static size_t text_len;
static char last_rec[CONSOLE_REC_BUF + 64];
static size_t last_rec_len;
static unsigned n_results, n_summary;
static int held[2];
static unsigned panic_locks, lock_calls;
static bool refuse_in_panic;

bool console_plat_lock(enum console_lock l, bool panic)
{
	lock_calls++;
	if (panic) {
		panic_locks++;
		if (refuse_in_panic)
			return false;
	}
	CHECK(!held[l]); /* never taken twice */
	held[l] = 1;
	return true;
}

void console_plat_unlock(enum console_lock l, bool was_held)
{
	if (!was_held)
		return;
	CHECK(held[l]);
	held[l] = 0;
}

void console_plat_text(const char *s, size_t n)
{
	CHECK(held[CONSOLE_LOCK_OUT] || refuse_in_panic);
	if (text_len + n < sizeof(text)) {
		memcpy(text + text_len, s, n);
		text_len += n;
		text[text_len] = 0;
	}
}

void console_plat_record(const char *line, size_t n)
{
	CHECK(held[CONSOLE_LOCK_OUT] || refuse_in_panic);
	CHECK(held[CONSOLE_LOCK_REC] || refuse_in_panic);
	CHECK(n < sizeof(last_rec));
	memcpy(last_rec, line, n);
	last_rec[n] = 0;
	last_rec_len = n;
}

void console_plat_result(const char *line)
{
	CHECK(!strncmp(line, "@qb {\"v\":1,\"kind\":\"result\"", 26));
	n_results++;
}

int64_t console_plat_cpu(void) { return 7; }
void console_summary_line(const char *line) { (void)line; n_summary++; }

static void reset(void)
{
	text_len = 0;
	text[0] = 0;
	last_rec_len = 0;
	last_rec[0] = 0;
}

/* The JSON of the last record, checked for CRC and grammar. */
static const char *last_json(void)
{
	static char json[sizeof(last_rec)];
	const char *j = NULL;
	size_t jl = 0;
	if (!rec_check_line(last_rec, last_rec_len, &j, &jl))
		return NULL;
	memcpy(json, j, jl);
	json[jl] = 0;
	return json_object_valid(json, jl) ? json : NULL;
}

/* ---- Tests ---------------------------------------------------------------- */
TEST(text_goes_out_whole_under_the_lock)
{
	reset();
	kprintf("cpu %u of %u\n", 3u, 4u);
	CHECK_STR(text, "cpu 3 of 4\n");
	CHECK(!held[CONSOLE_LOCK_OUT]);
	char big[2000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	reset();
	kprintf("%s", big); /* longer than the text buffer: cut, never overrun */
	CHECK(text_len > 0 && text_len < sizeof(big) - 1);
}

TEST(records_are_counted_and_results_shown)
{
	unsigned long r0 = console_records(), e0 = console_errors();
	unsigned res0 = n_results;
	struct rec *r = console_rec_open("result");
	rec_str(r, "workload", "counter");
	console_rec_emit(r);
	CHECK(last_json() != NULL);
	CHECK(strstr(last_rec, "\"workload\":\"counter\"") != NULL);
	CHECK_EQ_U(n_results, res0 + 1);
	r = console_rec_open("cpu");
	console_rec_emit(r);
	CHECK_EQ_U(n_results, res0 + 1); /* only result records reach the screen hook */
	CHECK_EQ_U(console_records(), r0 + 2);
	CHECK_EQ_U(console_errors(), e0);
	CHECK(!held[CONSOLE_LOCK_REC] && !held[CONSOLE_LOCK_OUT]);
}

TEST(error_gives_text_and_record)
{
	reset();
	unsigned long e0 = console_errors();
	console_error("acpi", "MADT checksum %s", "bad");
	CHECK_STR(text, "error: acpi: MADT checksum bad\n");
	CHECK(last_json() != NULL);
	CHECK(strstr(last_rec, "\"kind\":\"error\",\"what\":\"acpi\",\"detail\":\"MADT checksum bad\",\"cpu\":7") != NULL);
	CHECK_EQ_U(console_errors(), e0 + 1);
}

TEST(a_record_too_long_is_replaced_by_an_error_naming_it)
{
	unsigned long e0 = console_errors();
	char *big = malloc(CONSOLE_REC_BUF);
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'a', CONSOLE_REC_BUF - 1);
	big[CONSOLE_REC_BUF - 1] = 0;
	struct rec *r = console_rec_open("matrix");
	rec_str(r, "cells", big);
	console_rec_emit(r);
	free(big);
	CHECK(last_json() != NULL);
	CHECK(strstr(last_rec, "\"what\":\"record too long or malformed\",\"record_kind\":\"matrix\",\"cpu\":7") != NULL);
	CHECK_EQ_U(console_errors(), e0 + 1);
	CHECK(!held[CONSOLE_LOCK_REC]);
}

TEST(summary_is_text_and_a_screen_line)
{
	reset();
	unsigned s0 = n_summary;
	console_summary("counter packed %d%%", 480);
	CHECK_STR(text, "summary: counter packed 480%\n");
	CHECK_EQ_U(n_summary, s0 + 1);
}

/* Last: panic mode cannot be left. A lock its holder never gives back is
 * passed over, and what was not taken is not released. */
TEST(panic_mode_takes_locks_with_a_bound)
{
	console_panic_mode();
	unsigned p0 = panic_locks;
	reset();
	kprintf("fault\n");
	CHECK(panic_locks > p0);
	CHECK_STR(text, "fault\n");
	refuse_in_panic = true;
	reset();
	console_error("fault", "#GP on cpu %d", 7);
	CHECK_STR(text, "error: fault: #GP on cpu 7\n");
	CHECK(strstr(last_rec, "#GP on cpu 7") != NULL);
	CHECK(!held[CONSOLE_LOCK_REC] && !held[CONSOLE_LOCK_OUT]);
}

int main(void)
{
	RUN(text_goes_out_whole_under_the_lock);
	RUN(records_are_counted_and_results_shown);
	RUN(error_gives_text_and_record);
	RUN(a_record_too_long_is_replaced_by_an_error_naming_it);
	RUN(summary_is_text_and_a_screen_line);
	RUN(panic_mode_takes_locks_with_a_bound);
	return check_summary("console");
}
