/* report_stubs.c - console, finish, CPUID and TSC stubs for the host tests of kernel/run/report.c; see report_stubs.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "report_stubs.h"
#include "console.h"
#include "finish.h"
#include "fmt.h"
#include "report.h"
#include "report_machine.h"
#include "timer.h"
#include "tsc.h"

bool tsc_have_rdtscp, tsc_mfence;
char last[4096], last_error[512];
static char rec_buf[4096];
static struct rec shared;
int n_errors, n_failed;

uint64_t hz;
char printed[2048];
const char *brand = "", *vendor = "";
const char *hv_sig, *hv_name;
uint64_t tsc_hz(void) { return hz; }
void kprintf(const char *fmt, ...)
{
	size_t n = strlen(printed);
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(printed + n, sizeof(printed) - n, fmt, ap);
	va_end(ap);
}
const char *cpuid_snap_brand(const struct cpuid_snap *s) { (void)s; return brand; }
void cpuid_snap_vendor_string(const struct cpuid_snap *s, char out[CPUID_VENDOR_LEN + 1]) { (void)s; snprintf(out, CPUID_VENDOR_LEN + 1, "%s", vendor); }
bool cpuid_snap_has(const struct cpuid_snap *s, uint32_t feat) { (void)s; (void)feat; return false; }
bool cpuid_snap_hv_vendor(const struct cpuid_snap *s, char out[CPUID_HV_SIG_LEN + 1])
{
	(void)s;
	snprintf(out, CPUID_HV_SIG_LEN + 1, "%s", hv_sig ? hv_sig : "");
	return hv_sig != NULL;
}
const char *cpuid_hv_name(const char *sig) { (void)sig; return hv_name; }
void tsc_report_fields(struct rec *r) { (void)r; }
const char *tsc_source(void) { return "cpuid"; }
uint64_t tsc_measured_hz(void) { return hz; }
const char *timer_name(void) { return "hpet"; }
bool tsc_invariant(void) { return true; }
const char *tsc_fence_name(void) { return "lfence"; }
uint64_t tsc_overhead(void) { return 20; }
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
