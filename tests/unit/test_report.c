/* test_report.c - result records: a check "ok" never carries a failure reason (report.c drops it and says so in an error record); fail and skipped keep theirs; the qb-lava: lines (report.c, report_machine.c) always carry a measurement. Console, finish, CPUID and TSC are stubs. */
#include <stdarg.h>
#include "check.h"
#include "console.h"
#include "finish.h"
#include "report.h"
#include "report_machine.h"
#include "timer.h"
#include "tsc.h"
#include "fmt.h"
#include "report_stubs.h"


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

/* An overrun against a bound the budget's end cut closes as the budget's
 * stop; a real overrun, an ok and a fail are left as they are. */
TEST(overrun_at_the_budgets_end_is_the_budgets_stop)
{
	n_errors = n_failed = 0;
	struct report_mark cut = { 0, 0, "short", "stopped at the budget's end: a repetition ran past the 0.4 s that were left" };
	struct report_mark never = { 0, 0, "skipped", "stopped at the budget's end" };
	struct rec *r = report_result_open("counter", "padded", NULL);
	report_result_close_marked(r, "overrun", "overrun: a repetition passed its bound", &cut);
	CHECK(strstr(last, "\"check\":\"short\",\"reason\":\"stopped at the budget's end") != NULL);
	r = report_result_open("counter", "padded", NULL);
	report_result_close(r, "overrun", "overrun: a repetition passed its bound");
	CHECK(strstr(last, "\"check\":\"overrun\"") != NULL);
	r = report_result_open("counter", "padded", NULL);
	report_result_close_marked(r, "ok", NULL, &never);
	CHECK(strstr(last, "\"check\":\"ok\"") != NULL && strstr(last, "\"reason\"") == NULL);
	r = report_result_open("counter", "padded", NULL);
	report_result_close_marked(r, "fail", "the sum was wrong", &never);
	CHECK(strstr(last, "\"check\":\"fail\",\"reason\":\"the sum was wrong\"") != NULL);
	CHECK_EQ_U(n_errors, 0);
}

/* The done record, written once for both platforms: the twin has no lost
 * CPUs, memory or page tables to report, and leaves them out rather than
 * saying 0; bare metal says how much RAM its page tables left out. */
TEST(done_record_for_both_platforms)
{
	report_done(false, "exception", &(struct report_cpus){ true, 4, 3, 0, 0, 1 }, 0, 0, 0);
	CHECK(strstr(last, "\"kind\":\"done\",\"status\":\"fail\",\"reason\":\"exception\",\"cpus_found\":4,"
			   "\"cpus_online\":3,\"cpus_parked\":0,\"cpus_not_started\":0,\"cpus_lost\":1,"
			   "\"memory_lost_bytes\":0,\"unmapped_ram_bytes\":0,"
			   "\"elapsed_ms\":null,\"records\":42,\"errors\":2}") != NULL);
	report_done(true, "ok", &(struct report_cpus){ true, 4, 4, 0, 0, 0 }, 0, 2199023255552ll, 0);
	CHECK(strstr(last, "\"memory_lost_bytes\":0,\"unmapped_ram_bytes\":2199023255552,") != NULL);
	report_done(true, "never shown when ok", &(struct report_cpus){ true, 2, 2, 0, 0, 0 }, -1, -1, 0);
	CHECK(strstr(last, "\"status\":\"ok\",\"cpus_found\":2,\"cpus_online\":2,\"cpus_parked\":0,"
			   "\"cpus_not_started\":0,\"cpus_lost\":0,\"elapsed_ms\":null") != NULL);
	CHECK(!strstr(last, "reason") && !strstr(last, "unmapped"));
	report_done(false, "bad options", &(struct report_cpus){ false }, -1, -1, 0); /* before the CPUs were counted */
	CHECK(strstr(last, "\"cpus_found\":null,\"cpus_online\":null,\"cpus_parked\":null,\"cpus_not_started\":null,"
			   "\"cpus_lost\":null") != NULL);
}

/* The boot record's hypervisor fields: null on bare metal, with no note; the
 * signature, the name and the note under one; a hypervisor that gives no
 * signature has a null vendor but is still named and noted. */
TEST(boot_names_the_hypervisor)
{
	struct cpuid_snap snap;
	struct rec *r;

	hv_sig = hv_name = NULL;
	r = console_rec_open("boot");
	report_boot_cpu(r, "", &snap, 1ull << 30);
	console_rec_emit(r);
	CHECK(strstr(last, "\"hypervisor\":false,\"hypervisor_vendor\":null,\"hypervisor_name\":null,") != NULL);
	CHECK(strstr(last, "virtual_note") == NULL);

	hv_sig = "TCGTCGTCGTCG";
	hv_name = "QEMU TCG";
	r = console_rec_open("boot");
	report_boot_cpu(r, "", &snap, 1ull << 30);
	console_rec_emit(r);
	CHECK(strstr(last, "\"hypervisor\":true,\"hypervisor_vendor\":\"TCGTCGTCGTCG\",\"hypervisor_name\":\"QEMU TCG\","
			   "\"virtual_note\":\"virtual machine (QEMU TCG): caches, SMT siblings and timers are virtual; "
			   "these numbers are not bare metal's\"") != NULL);

	hv_sig = "";
	hv_name = "unknown";
	r = console_rec_open("boot");
	report_boot_cpu(r, "", &snap, 1ull << 30);
	console_rec_emit(r);
	CHECK(strstr(last, "\"hypervisor\":true,\"hypervisor_vendor\":null,\"hypervisor_name\":\"unknown\","
			   "\"virtual_note\":\"virtual machine (unknown): ") != NULL);
	hv_sig = hv_name = NULL;
}

/* lava=on: the machine's lines once report_machine_text has run, then a line
 * per result, each with a measurement: the median in ns, the median in its
 * own unit without a TSC frequency, or the repetitions without a median. */
TEST(lava_lines_always_carry_a_measurement)
{
	printed[0] = 0;
	report_lava_lines(true); /* nothing known of the machine yet: no lines */
	CHECK_EQ_U(strlen(printed), 0);
	struct cpuid_snap snap;
	brand = "  Intel(R) Xeon(R)  CPU E5-2680\t v4 @ 2.40GHz ";
	vendor = "GenuineIntel";
	hz = 0;
	report_machine_text(&snap, 3, 4, 100, 8ull << 30, 2);
	printed[0] = 0;
	report_lava_lines(true);
	CHECK(strstr(printed, "qb-lava: machine.cpu.GenuineIntel.Intel(R)_Xeon(R)_CPU_E5-2680_v4_@_2.40GHz pass 4 cpus\n"
			      "qb-lava: machine.cpus-online pass 3 cpus\n"
			      "qb-lava: machine.numa-nodes pass 2 nodes\n"
			      "qb-lava: machine.memory pass 8192 MiB\n") == printed);
	CHECK(strstr(printed, "machine.tsc") == NULL); /* unknown: left out, not 0 MHz */
	CHECK(strstr(printed, "qb-lava: machine.hypervisor pass 0 none\n") != NULL);
	hz = 2399999600;
	printed[0] = 0;
	report_lava_lines(true);
	CHECK(strstr(printed, "qb-lava: machine.tsc pass 2400.000 MHz\n") != NULL);
	hv_sig = "TCGTCGTCGTCG";
	hv_name = "QEMU TCG";
	printed[0] = 0;
	report_machine_text(&snap, 3, 4, 100, 8ull << 30, 2);
	CHECK(strstr(printed, "\nvirtual: QEMU TCG (CPUID 0x40000000 \"TCGTCGTCGTCG\"): caches, SMT siblings and "
			      "timers are virtual; these numbers are not bare metal's\ntsc: ") != NULL);
	printed[0] = 0;
	report_lava_lines(true);
	CHECK(strstr(printed, "qb-lava: machine.hypervisor pass 1 QEMU_TCG\n") != NULL);
	hv_sig = hv_name = NULL;

	struct stats st = { .n = 9, .min = 240, .median = 480.0, .mean = 500.0, .max = 960 };
	static struct cpuset set = { .n = 2, .cpu = { 0, 1 } };
	printed[0] = 0;
	struct rec *r = report_result_open("counter", "padded", &set);
	report_stats(r, "ticks", &st);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(printed, "qb-lava: counter-1-padded-2t pass 200.0 ns\n") != NULL);
	printed[0] = 0;
	r = report_result_open("first-touch", "zero-clzero", NULL);
	report_result_close(r, "skipped", "no CLZERO");
	CHECK(strstr(printed, "qb-lava: first-touch-2-zero-clzero-0t skip 0 reps\n") != NULL);
	printed[0] = 0;
	r = report_result_open("flush", "clflush", &set);
	rec_str(r, "unit", "ticks");
	rec_u64(r, "n", 5);
	rec_null(r, "median");
	report_result_close(r, "fail", "the pass read wrong data");
	CHECK(strstr(printed, "qb-lava: flush-3-clflush-2t fail 5 reps\n") != NULL);
	hz = 0;
	printed[0] = 0;
	r = report_result_open("locality", "blocked", &set);
	report_stats(r, "ticks", &st);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(printed, "qb-lava: locality-4-blocked-2t pass 480.0 ticks\n") != NULL);
	report_lava_lines(false);
	printed[0] = 0;
	r = report_result_open("flush", "none", &set);
	report_result_close(r, "ok", NULL);
	CHECK_EQ_U(strlen(printed), 0);
}

/* Measures come from the figure, in the experiment's units; rates swap the
 * quartiles; a figure past a physical limit fails the result. */
TEST(measures_from_the_figure)
{
	static struct cpuset set = { .n = 1, .cpu = { 0 } };
	struct stats st = { .n = 5, .min = 380, .q1 = 400, .median = 480, .q3 = 600, .mean = 500, .max = 700 };
	hz = 1000000000; /* a tick is a nanosecond */
	struct rec *r = report_result_open("first-touch", "demand-zero-4k", &set);
	report_figure_set(&st, "clean", false);
	struct report_measure m[] = {
		{ "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_FAULT_NS, 1 },
		{ "gb_per_s", "GB/s", report_gbps_scale(4800), true, LIMIT_ZERO_GBPS, 1 },
	};
	CHECK(report_measures(r, m, 2) == 480);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(last, "\"measures\":{\"ns_per_page\":{\"unit\":\"ns/page\",\"median\":480.0,\"q1\":400.0,"
			   "\"q3\":600.0,\"scale\":1.000000},\"gb_per_s\":{\"unit\":\"GB/s\",\"median\":10.000,"
			   "\"q1\":8.000,\"q3\":12.000,\"scale\":4800.000000,\"inverse\":true}}"));
	CHECK(strstr(last, "\"check\":\"ok\""));

	/* 4 KiB "zeroed" in 4 ns is 1024 GB/s: no machine does that. */
	n_failed = 0;
	struct stats fast = { .n = 3, .min = 4, .q1 = 4, .median = 4, .q3 = 4, .mean = 4, .max = 4 };
	r = report_result_open("first-touch", "demand-zero-4k", &set);
	report_figure_set(&fast, "all", false);
	struct report_measure z[] = {
		{ "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_FAULT_NS, 1 },
		{ "gb_per_s", "GB/s", report_gbps_scale(4096), true, LIMIT_ZERO_GBPS, 1 },
	};
	report_measures(r, z, 2);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(last, "\"check\":\"fail\",\"reason\":\"implausible: 4.0 ns per page fault that maps and "
			   "zeroes a page; no machine does less than 50.0 ns (limit fault_ns)\""));
	CHECK_EQ_U(n_failed, 1);

	/* A skipped or failed result keeps its own check. */
	r = report_result_open("first-touch", "demand-zero-4k", &set);
	report_figure_set(&fast, "all", false);
	report_measures(r, z, 2);
	report_result_close(r, "skipped", "not in the plan");
	CHECK(strstr(last, "\"check\":\"skipped\",\"reason\":\"not in the plan\""));

	/* The next result starts without the last one's verdict or figure. */
	r = report_result_open("first-touch", "demand-zero-4k", &set);
	report_measures(r, z, 2);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(last, "\"measures\":null,\"measures_note\":\"no figure: nothing was measured\""));
	CHECK(strstr(last, "\"check\":\"ok\""));

	hz = 0;
	r = report_result_open("counter", "packed", &set);
	report_figure_set(&st, "clean", false);
	CHECK(report_measures(r, m, 1) < 0);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(last, "\"measures\":null,\"measures_note\":\"the TSC frequency is unknown\""));
}

/* At the result's clock every time measure gets its cycles beside it, from
 * the same figure: ns x MHz / 1000; a rate does not. Without a clock there
 * is none, and "clock_mhz" is null with the reason. */
TEST(cycles_at_the_result_clock)
{
	static struct cpuset set = { .n = 1, .cpu = { 0 } };
	struct stats st = { .n = 5, .min = 380, .q1 = 400, .median = 480, .q3 = 600, .mean = 500, .max = 700 };
	hz = 1000000000; /* a tick is a nanosecond */
	struct rec *r = report_result_open("locality", "interleaved", &set);
	report_figure_set(&st, "clean", false);
	report_clock_set(2500, 0);
	CHECK(report_clock_mhz() == 2500);
	struct report_measure m[] = {
		{ "ns_per_element", "ns/element", report_ns_scale(8), false, LIMIT_NONE, 1 },
		{ "gb_per_s", "GB/s", report_gbps_scale(4800), true, LIMIT_NONE, 1 },
	};
	report_measures(r, m, 2);
	report_result_close(r, "ok", NULL);
	/* 480 ticks for 8 elements at 1 GHz: 60 ns, 150 cycles at 2.5 GHz. */
	CHECK(strstr(last, "\"gb_per_s\":{\"unit\":\"GB/s\",\"median\":10.000,\"q1\":8.000,\"q3\":12.000,"
			   "\"scale\":4800.000000,\"inverse\":true},\"cycles_per_element\":{\"unit\":\"cycles/element\","
			   "\"median\":150.0,\"q1\":125.0,\"q3\":187.5,\"scale\":0.3125000000}}"));
	CHECK(!strstr(last, "cycles_per_s"));
	CHECK(strstr(last, "\"clock_mhz\":2500.0,\"check\":\"ok\""));
	CHECK(!strstr(last, "clock_note"));

	/* No clock: no cycles, and why. */
	r = report_result_open("locality", "interleaved", &set);
	report_figure_set(&st, "clean", false);
	report_clock_set(0, "unavailable: #GP on MSR 0xe7");
	report_measures(r, m, 1);
	report_result_close(r, "ok", NULL);
	CHECK(!strstr(last, "cycles"));
	CHECK(strstr(last, "\"clock_mhz\":null,\"clock_note\":\"unavailable: #GP on MSR 0xe7\",\"check\":\"ok\""));

	/* The next result does not inherit the clock; a skipped one says so. */
	r = report_result_open("locality", "interleaved", &set);
	CHECK(report_clock_mhz() == 0);
	report_result_close(r, "skipped", "not in the plan");
	CHECK(strstr(last, "\"clock_mhz\":null,\"clock_note\":\"not measured: the result was skipped\""));
	hz = 0;
}

/* No statistic of nothing in ns either. */
TEST(empty_statistics_are_null)
{
	struct stats none = { 0 };
	hz = 1000000000;
	struct rec *r = report_result_open("counter", "packed", NULL);
	report_stats(r, "ticks", &none);
	report_result_close(r, "fail", "no repetition finished");
	CHECK(strstr(last, "\"n\":0,\"min\":null,\"q1\":null,\"median\":null,\"q3\":null,\"mean\":null,"
			   "\"max\":null,\"stddev\":null,\"cv\":null,\"min_ns\":null,\"q1_ns\":null,\"median_ns\":null,"
			   "\"q3_ns\":null,\"mean_ns\":null,\"max_ns\":null"));
	hz = 0;
}

/* The lava line gives the figure in its measure's unit, marked when noisy. */
TEST(lava_line_speaks_the_measure)
{
	static struct cpuset set = { .n = 2, .cpu = { 0, 1 } };
	struct stats st = { .n = 3, .min = 380, .q1 = 400, .median = 480, .q3 = 600, .mean = 500, .max = 700 };
	struct report_measure m[] = { { "ns_per_increment", "ns/increment", 0, false, LIMIT_INCREMENT_NS, 1 } };
	hz = 1000000000;
	m[0].scale = report_ns_scale(100);
	report_lava_lines(true);
	printed[0] = 0;
	struct rec *r = report_result_open("counter", "packed", &set);
	report_stats(r, "ticks", &st);
	rec_bool(r, "noisy", false);
	report_figure_set(&st, "clean", false);
	report_measures(r, m, 1);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(printed, "-packed-2t pass 4.800 ns/increment\n") != NULL);
	printed[0] = 0;
	r = report_result_open("counter", "packed", &set);
	report_stats(r, "ticks", &st);
	rec_obj_begin(r, "noisy");
	rec_u64(r, "clean", 0);
	rec_obj_end(r);
	report_figure_set(&st, "all", true);
	report_measures(r, m, 1);
	report_result_close(r, "ok", NULL);
	CHECK(strstr(printed, "-packed-2t pass 4.800 ns/increment(noisy)\n") != NULL);
	report_lava_lines(false);
	hz = 0;
}

int main(void)
{
	RUN(ok_never_has_a_reason);
	RUN(ok_with_reason_is_dropped_and_reported);
	RUN(fail_and_skipped_keep_their_reason);
	RUN(done_record_for_both_platforms);
	RUN(boot_names_the_hypervisor);
	RUN(lava_lines_always_carry_a_measurement);
	RUN(measures_from_the_figure);
	RUN(cycles_at_the_result_clock);
	RUN(empty_statistics_are_null);
	RUN(lava_line_speaks_the_measure);
	RUN(overrun_at_the_budgets_end_is_the_budgets_stop);
	return check_summary("report");
}
