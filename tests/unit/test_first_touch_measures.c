/* test_first_touch_measures.c - first-touch's measures (workloads/first_touch_measures.c) through the real report.c: each kind's units and limits, the zero-page read at hundreds of GB/s "of zeroing" failing its check, real write faults passing, the serial text with its noisy mark, and the zero check of a fresh page. Console, finish, CPUID and TSC are stubs. */
#include <stdarg.h>
#include "check.h"
#include "console.h"
#include "finish.h"
#include "first_touch_measures.h"
#include "report.h"
#include "report_machine.h"
#include "timer.h"
#include "tsc.h"
#include "fmt.h"
#include "report_stubs.h"


/* ---- Helpers -------------------------------------------------------------- */
#define TWIN_HZ 2095996790ull    /* the TSC of this project's VM, from a twin run's boot record */

static char text[128];

/* One result of kind whose figure is st (noisy or not): its record in
 * `last`, its serial text in `text`; returns the primary measure. */
static double one(enum ft_measure kind, uint64_t page, uint64_t bytes, double cores, const struct stats *st, bool noisy)
{
	static struct cpuset set = { .n = 1, .cpu = { 0 } };
	struct ft_measures fm;
	struct rec *r = report_result_open("first-touch", "v", &set);
	report_figure_set(st, noisy ? "all" : "clean", noisy);
	ft_measures_of(kind, page, bytes, cores, &fm);
	double v = ft_write_measures(r, &fm, text, sizeof(text));
	report_result_close(r, "ok", NULL);
	return v;
}

static struct stats at(double median)
{
	struct stats st = { .n = 5, .min = (uint64_t)median, .q1 = median, .median = median, .q3 = median,
			    .mean = median, .max = (uint64_t)median };
	return st;
}

/* ---- Tests ---------------------------------------------------------------- */
/* The twin run: a timed first read of a 2 MiB THP region mapped the
 * huge zero page in 11,476 ticks, hundreds of GB/s "of zeroing". The fault's
 * time alone (5.5 us) is plausible; its rate is not, and fails the result. */
TEST(a_zero_page_read_at_hundreds_of_gbps_fails)
{
	hz = TWIN_HZ;
	n_failed = 0;
	struct stats st = at(11476);
	one(FT_M_FAULT, 2097152, 0, 1, &st, false);
	CHECK(strstr(last, "\"check\":\"fail\",\"reason\":\"implausible: 383 GB/s of zeroing on one core; no machine "
			   "does more than 200 GB/s (limit zero_gbps)\""));
	CHECK(strstr(last, "\"ns_per_page\":{\"unit\":\"ns/page\",\"median\":5475.2"));
	CHECK_EQ_U(n_failed, 1);
	CHECK_STR(text, "5475 ns/page, 383 GB/s of zeroing");
	hz = 0;
}

/* A timed first write on the same VM (demand-zero-4k of a twin run): 15 us,
 * 0.27 GB/s, inside every limit. */
TEST(real_write_faults_pass)
{
	hz = TWIN_HZ;
	n_failed = 0;
	struct stats st = { .n = 256, .min = 25000, .q1 = 29900, .median = 31510, .q3 = 33600, .mean = 32000, .max = 90000 };
	double v = one(FT_M_FAULT, 4096, 0, 1, &st, false);
	CHECK(v > 15033 && v < 15034);
	CHECK(strstr(last, "\"check\":\"ok\""));
	CHECK(strstr(last, "\"gb_per_s\":{\"unit\":\"GB/s\",\"median\":0.272460,"));
	CHECK_EQ_U(n_failed, 0);
	CHECK_STR(text, "15033 ns/page, 0.272 GB/s of zeroing");
	hz = 0;
}

/* Each kind's floor or ceiling: a fault onto a prezeroed page under 10 ns,
 * a copy or a zeroing over 200 GB/s; a sum's ceiling grows with its cores. */
TEST(each_kind_checks_its_limit)
{
	hz = 1000000000; /* a tick is a nanosecond */
	struct stats five = at(5), fast = at(1000), slow = at(400000);
	one(FT_M_TRAP, 4096, 0, 1, &five, false);
	CHECK(strstr(last, "\"reason\":\"implausible: 5.0 ns per exception round trip; no machine does less than "
			   "10.0 ns (limit trap_ns)\""));
	CHECK(!strstr(last, "gb_per_s")); /* nothing is zeroed */
	one(FT_M_ZERO, 4096, 0, 1, &five, false);
	CHECK(strstr(last, "(limit zero_gbps)"));
	one(FT_M_COPY, 4096, 2097152, 1, &fast, false); /* 2 MiB in 1 us: 2097 GB/s */
	CHECK(strstr(last, "(limit copy_gbps)"));
	one(FT_M_COPY, 4096, 2097152, 1, &slow, false);
	CHECK(strstr(last, "\"check\":\"ok\""));
	CHECK(strstr(last, "\"ns_per_page\":{\"unit\":\"ns/page\",\"median\":781.2")); /* 400 us / 512 pages, ties to even */
	CHECK_STR(text, "781 ns/page, 5.24 GB/s of copying");
	/* 16 MiB summed in 10 us: 1678 GB/s, past one core's 1000, within two cores' 2000. */
	struct stats sum = at(10000);
	one(FT_M_SUM, 4096, 16777216, 1, &sum, false);
	CHECK(strstr(last, "(limit read_gbps)"));
	one(FT_M_SUM, 4096, 16777216, 2, &sum, false);
	CHECK(strstr(last, "\"check\":\"ok\""));
	CHECK_STR(text, "2.44 ns/page, 1678 GB/s of reading"); /* 10 us / 4096 pages */
	hz = 0;
}

/* A single first access (tlb-miss) is within the timer's resolution: no
 * limit, even at 0. hot-access times a chain of FT_HOT_CHAIN dependent reads
 * per sample: ns per access, held to the dependent-load limit. */
TEST(single_accesses_and_hot_chains)
{
	hz = TWIN_HZ;
	struct stats zero = at(0);
	one(FT_M_TLB, 4096, 0, 1, &zero, false);
	CHECK(strstr(last, "\"measures\":{\"ns_per_page\":"));
	CHECK(!strstr(last, "gb_per_s"));
	CHECK(strstr(last, "\"check\":\"ok\""));
	struct stats chain = at(FT_HOT_CHAIN * 4); /* 4 ticks a read: about 1.9 ns at the twin's 2.1 GHz */
	one(FT_M_ACCESS, 4096, 0, 1, &chain, false);
	CHECK(strstr(last, "\"measures\":{\"ns_per_access\":{\"unit\":\"ns/access\",\"median\":1.9"));
	CHECK(strstr(last, "\"check\":\"ok\""));
	one(FT_M_ACCESS, 4096, 0, 1, &zero, false); /* a chain of 32 loads in no time: impossible */
	CHECK(strstr(last, "\"check\":\"fail\",\"reason\":\"implausible: 0.000000 ns per dependent load"));
	hz = 0;
}

/* The text says when its figure is noisy, and falls back to ticks without a
 * TSC frequency, or says nothing was measured. */
TEST(text_marks_noise_and_falls_back)
{
	hz = TWIN_HZ;
	struct stats st = at(31510);
	one(FT_M_FAULT, 4096, 0, 1, &st, true);
	CHECK_STR(text, "15033 ns/page, 0.272 GB/s of zeroing (noisy)");
	hz = 0;
	CHECK(one(FT_M_FAULT, 4096, 0, 1, &st, false) < 0);
	CHECK_STR(text, "31510 ticks per page");
	CHECK(strstr(last, "\"measures\":null,\"measures_note\":\"the TSC frequency is unknown\""));
	one(FT_M_COPY, 4096, 2097152, 1, &st, true);
	CHECK_STR(text, "31510 ticks per iteration (noisy)");
	static struct cpuset set = { .n = 1, .cpu = { 0 } };
	struct ft_measures fm;
	struct rec *r = report_result_open("first-touch", "v", &set);
	report_figure_set(NULL, NULL, false);
	ft_measures_of(FT_M_ACCESS, 4096, 0, 1, &fm);
	CHECK(ft_write_measures(r, &fm, text, sizeof(text)) < 0);
	report_result_close(r, "ok", NULL);
	CHECK_STR(text, "not measured");
}

/* A freshly faulted page reads zero but for the word the first write stored. */
TEST(fresh_page_zero_check)
{
	static uint64_t page[512];
	memset(page, 0, sizeof(page));
	page[0] = 0x7a11fa57c0ffee00ull;
	CHECK_EQ_U(ft_first_nonzero(page, 512, 0), 512);
	CHECK_EQ_U(ft_first_nonzero(page, 512, UINT64_MAX), 0);
	page[511] = 1; /* a handler that left the last word unzeroed */
	CHECK_EQ_U(ft_first_nonzero(page, 512, 0), 511);
	page[511] = 0;
	page[3] = 0xa5a5a5a5a5a5a5a5ull;
	CHECK_EQ_U(ft_first_nonzero(page, 512, 0), 3);
	CHECK_EQ_U(ft_first_nonzero(page, 3, 0), 3); /* only the first three words */
}

int main(void)
{
	RUN(a_zero_page_read_at_hundreds_of_gbps_fails);
	RUN(real_write_faults_pass);
	RUN(each_kind_checks_its_limit);
	RUN(single_accesses_and_hot_chains);
	RUN(text_marks_noise_and_falls_back);
	RUN(fresh_page_zero_check);
	return check_summary("first_touch_measures");
}
