/* test_report.c - result records: a check "ok" never carries a failure reason (report.c drops it and says so in an error record); fail and skipped keep theirs. Console, finish and TSC are stubs. */
#include <stdarg.h>
#include "check.h"
#include "console.h"
#include "finish.h"
#include "report.h"
#include "tsc.h"
#include "fmt.h"

/* ---- Stubs ---------------------------------------------------------------- */
bool tsc_have_rdtscp, tsc_mfence;
static char rec_buf[4096], last[4096], last_error[512];
static struct rec shared;
static int n_errors, n_failed;

uint64_t tsc_hz(void) { return 0; }
void kprintf(const char *fmt, ...) { (void)fmt; }
void finish_mark_failed(const char *why) { (void)why; n_failed++; }
const char *memtype_result_type(const uint32_t *cpus, uint32_t n) { (void)cpus; (void)n; return "WB"; }
struct rec *console_rec_open(const char *kind)
{
	rec_begin(&shared, rec_buf, sizeof(rec_buf), kind);
	return &shared;
}
void console_rec_emit(struct rec *r)
{
	size_t len = 0;
	const char *line = rec_finish(r, &len);
	snprintf(last, sizeof(last), "%s", line ? line : "(invalid)");
}
void console_error(const char *what, const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	snprintf(last_error, sizeof(last_error), "%s: %s", what, detail);
	n_errors++;
}
uint64_t tsc_to_us(uint64_t ticks) { return ticks; }
unsigned long console_records(void) { return 41; }
unsigned long console_errors(void) { return 2; }
const char *topo_cache_type_name(enum topo_cache_type t) { (void)t; return "data"; }
const struct topo_cache *topo_cpu_cache(const struct topo *t, uint32_t cpu, uint8_t level) { (void)t; (void)cpu; (void)level; return NULL; }

/* ---- Tests ---------------------------------------------------------------- */
TEST(ok_never_has_a_reason)
{
	CHECK(report_check_consistent("ok", NULL));
	CHECK(!report_check_consistent("ok", "mapped pages were not zero"));
	CHECK(report_check_consistent("fail", "mapped pages were not zero"));
	CHECK(report_check_consistent("skipped", "not in the plan"));
}

TEST(ok_with_reason_is_dropped_and_reported)
{
	n_errors = n_failed = 0;
	struct rec *r = report_result_open("first-touch", "hot-access", NULL);
	report_result_close(r, "ok", "mapped pages were not zero");
	CHECK(strstr(last, "\"check\":\"ok\"") != NULL);
	CHECK(strstr(last, "\"reason\"") == NULL);
	CHECK_EQ_U(n_errors, 1);
	CHECK(strstr(last_error, "mapped pages were not zero") != NULL);
	CHECK_EQ_U(n_failed, 0);
}

TEST(fail_and_skipped_keep_their_reason)
{
	n_errors = n_failed = 0;
	struct rec *r = report_result_open("flush", "clflush", NULL);
	report_result_close(r, "fail", "the pass read wrong data");
	CHECK(strstr(last, "\"reason\":\"the pass read wrong data\"") != NULL);
	CHECK_EQ_U(n_failed, 1);
	r = report_result_open("flush", "wbinvd-all", NULL);
	report_result_close(r, "skipped", "WBINVD is privileged");
	CHECK(strstr(last, "\"check\":\"skipped\",\"reason\":\"WBINVD is privileged\"") != NULL);
	r = report_result_open("flush", "none", NULL);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(last, "\"reason\"") == NULL);
	CHECK_EQ_U(n_errors, 0);
}

/* The done record, written once for both platforms: the twin has no lost
 * CPUs or memory to report, and leaves them out rather than saying 0. */
TEST(done_record_for_both_platforms)
{
	report_done(false, "exception", 4, 3, 1, 0, 0);
	CHECK(strstr(last, "\"kind\":\"done\",\"status\":\"fail\",\"reason\":\"exception\",\"cpus_found\":4,"
			   "\"cpus_online\":3,\"cpus_lost\":1,\"memory_lost_bytes\":0,\"elapsed_ms\":null,"
			   "\"records\":42,\"errors\":2}") != NULL);
	report_done(true, "never shown when ok", 2, 2, -1, -1, 0);
	CHECK(strstr(last, "\"status\":\"ok\",\"cpus_found\":2,\"cpus_online\":2,\"elapsed_ms\":null") != NULL);
	CHECK(!strstr(last, "cpus_lost") && !strstr(last, "reason"));
}

int main(void)
{
	RUN(ok_never_has_a_reason);
	RUN(ok_with_reason_is_dropped_and_reported);
	RUN(fail_and_skipped_keep_their_reason);
	RUN(done_record_for_both_platforms);
	return check_summary("report");
}
