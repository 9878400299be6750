/* main.c - the Linux twin's start-up, one step per line, then the same workloads as kernel/start/main.c, built from the same sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "topo_online.h"
#include "console.h"
#include "evict.h"
#include "finish.h"
#include "flushcheck.h"
#include "fmt.h"
#include "hostcpu.h"
#include "hostdmi.h"
#include "hostfault.h"
#include "hostmachine.h"
#include "hostnuma.h"
#include "hostsys.h"
#include "instr.h"
#include "lib.h"
#include "options.h"
#include "options_report.h"
#include "perfirq.h"
#include "pmu.h"
#include "report.h"
#include "reps.h"
#include "run.h"
#include "timer.h"
#include "tsc.h"
#include "registry.h"
#include "seq_start.h"
#include "thp.h"

#ifndef QB_BUILD_ID
#define QB_BUILD_ID "unknown"
#endif

/* ---- Constants ------------------------------------------------------------ */
#define MAX_OPT_ERRORS 16
#define START_TIMEOUT_MS OPT_SMP_TIMEOUT_MS_DEFAULT /* threads check in within this */
#define HELP_LEN 4096
/* perf descriptors one thread may keep open for the run: two groups of irq
 * tracepoints (instr.c's and the noise workload's), its counters, and two
 * msr/cycles groups of up to 5; the open-file limit's spare besides them. */
#define FDS_PER_THREAD (2 * PERFIRQ_MAX + PMU_MAX_EVENTS + 2 * 5)
#define FDS_SPARE 64

/* ---- Private Variables ---------------------------------------------------- */
static char cmdline[QB_MAX_CMDLINE];
static char parse_line[QB_MAX_CMDLINE]; /* cmdline less the twin's own keys: what the kernel's parser reads */
static bool cmdline_truncated;
static struct options opts;
static struct cpuset online;
static struct acpi_info no_acpi;     /* tsc_init's argument: there are no tables in user space */
static const char *wl_names[OPT_MAX_WORKLOADS];

/* Options that only mean something to the bare-metal kernel. */
static const struct { const char *key; const char *why; } kernel_only[] = {
	{ "finish", "a process just exits (status 0 exactly when done says ok)" },
	{ "dump", "ACPI tables are not readable from user space" },
	{ "smp_timeout_ms", "threads, not APs, are started (bound 1000 ms)" },
	{ "prefetch", "MSRs are not writable from user space" },
};

/* ---- Private Functions ---------------------------------------------------- */
/* The twin's own debug keys (tools/twin/thp.h), which the kernel does not take. */
static bool twin_key(const char *arg)
{
	return !strncmp(arg, THP_KEY "=", sizeof(THP_KEY));
}

static void join_args(int argc, char **argv)
{
	size_t len = 0, plen = 0;
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (len + n + (i > 1) >= sizeof(cmdline)) {
			cmdline_truncated = true;
			break;
		}
		if (i > 1)
			cmdline[len++] = ' ';
		memcpy(cmdline + len, argv[i], n);
		len += n;
		if (twin_key(argv[i]))
			continue;
		if (plen)
			parse_line[plen++] = ' ';
		memcpy(parse_line + plen, argv[i], n);
		plen += n;
	}
	cmdline[len] = 0;
	parse_line[plen] = 0;
}

static void ignored_option(const char *key, const char *value, const char *why)
{
	kprintf("error: option %s=%s: ignored on Linux: %s\n", key, value, why);
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "option ignored on linux");
	rec_str(r, "key", key);
	rec_str(r, "value", value);
	rec_str(r, "detail", why);
	console_rec_emit(r);
}

/* The kernel's parser, unchanged; then the options a process cannot honour. */
static void parse_options(int argc, char **argv, uint64_t start_tsc)
{
	struct opt_error errs[MAX_OPT_ERRORS];
	unsigned n = seq_workload_names(wl_all, wl_count, wl_names, OPT_MAX_WORKLOADS);
	int e = options_parse(parse_line, wl_names, n, &opts, errs, MAX_OPT_ERRORS);
	for (int a = 1; a < argc && e < MAX_OPT_ERRORS; a++) {
		if (!twin_key(argv[a]) || thp_set(argv[a] + sizeof(THP_KEY)))
			continue;
		struct opt_error *x = &errs[e++];
		memset(x, 0, sizeof(*x));
		fmt_snprintf(x->key, sizeof(x->key), "%s", THP_KEY);
		fmt_snprintf(x->value, sizeof(x->value), "%s", argv[a] + sizeof(THP_KEY));
		fmt_snprintf(x->why, sizeof(x->why), "not one of its values, or Linux refused the prctl");
		fmt_snprintf(x->valid, sizeof(x->valid), "%s", THP_VALID);
	}
	options_report(errs, e, MAX_OPT_ERRORS);
	if (cmdline_truncated)
		console_error("options", "command line longer than %u bytes, truncated", QB_MAX_CMDLINE - 1);
	for (int a = 1; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		size_t klen = eq ? (size_t)(eq - argv[a]) : strlen(argv[a]);
		for (unsigned k = 0; k < ARRAY_SIZE(kernel_only); k++)
			if (strlen(kernel_only[k].key) == klen && !strncmp(argv[a], kernel_only[k].key, klen))
				ignored_option(kernel_only[k].key, eq ? eq + 1 : "", kernel_only[k].why);
	}
	if (opts.selftest != OPT_SELFTEST_NORMAL)
		ignored_option("selftest", opts.selftest == OPT_SELFTEST_FAULT_BSP ? "fault-bsp" : "fault-ap",
			       "the fault path under test is the kernel's exception handler");
	opts.selftest = OPT_SELFTEST_NORMAL;
	opts.dump = 0;
	reps_keep_samples(opts.samples == OPT_ON);
	if (e) {                                   /* nothing is measured with a typo */
		finish_setup(FINISH_HALT, 0, start_tsc);
		options_refuse(errs, e, MAX_OPT_ERRORS, "on the command line (--help lists every key)");
		finish_now(false);
	}
}

/* The per-thread repetition log, for the CPUs the twin runs on. */
static void reps_room(void)
{
	uint32_t n = hostcpu_online() ? hostcpu_online() : 1;
	void *buf = calloc(n, REPS_MAX * sizeof(uint64_t));
	if (buf)
		reps_set_storage((uint64_t(*)[REPS_MAX])buf, n);
	else
		console_error("reps", "no memory for the repetition log of %u CPUs: results keep one thread", n);
}

/* The open-file limit raised to its hard limit, for perf's descriptors
 * (up to FDS_PER_THREAD a thread, about 36 with the usual tracepoints: the
 * usual soft limit of 1024 runs out near 28 CPUs).
 * Where it cannot reach what the threads may need, a line says so; a
 * thread that then cannot open its events counts none, and its results
 * say so (reps.c: interrupts null). */
static void open_files(uint32_t threads)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rlim_t was = rl.rlim_cur;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = was;
	}
	uint64_t need = (uint64_t)threads * FDS_PER_THREAD + FDS_SPARE;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		kprintf("warning: open files: limit %llu (RLIMIT_NOFILE, hard %llu), perf may want %llu for %u threads: a "
			"thread that cannot open its events counts no interrupts, and its results say so\n",
			(unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, (unsigned long long)need, threads);
}

static bool want_help(int argc, char **argv)
{
	static char help[HELP_LEN];
	if (argc < 2 || (strcmp(argv[1], "-h") && strcmp(argv[1], "--help") && strcmp(argv[1], "help")))
		return false;
	unsigned n = seq_workload_names(wl_all, wl_count, wl_names, OPT_MAX_WORKLOADS);
	options_help(help, sizeof(help), wl_names, n);
	printf("usage: %s [key=value ...]  (the bare-metal kernel's command line)\n%s", argv[0], help);
	printf("%s=%s  the twin's own, debug: 2 MiB first-touch regions as Linux gives them, every other 2 MiB piece "
	       "left to 4 KiB pages, or huge pages forbidden (prctl) (default normal)\n", THP_KEY, "normal|every-other|off");
	return true;
}

/* What this platform is, for the flush check and the run (kernel/bench/seq_start.h). */
static const struct seq_platform *platform(uint64_t boot_tsc)
{
	static struct seq_platform pf;
	pf = (struct seq_platform){
		.name = "linux",
		.has_wbinvd = false,
		.has_fault_internals = false,
		.online = &online,
		.bsp_cpuid = &hostcpu[0].snap,
		.nodes = hostnuma_nodes(),
		.start_tsc = boot_tsc,
		.serial_bytes_per_s = 0, /* stdout: printing is not what takes time */
	};
	return &pf;
}

/* ---- Public Functions ----------------------------------------------------- */
int main(int argc, char **argv)
{
	uint64_t boot_tsc = tsc_read();
	if (want_help(argc, argv))
		return 0;
	hostfault_init();                                    /* crashes become error records */
	hostfault_catch_interrupts();                        /* Ctrl-C ends with a done record that says so */
	join_args(argc, argv);                               /* argv as the kernel's command line */
	kprintf("\nQuietBench %s (Linux twin): noise-free cache and memory measurements\n", QB_BUILD_ID);
	parse_options(argc, argv, boot_tsc);                 /* a bad option ends the run here */
	finish_setup(FINISH_HALT, 0, boot_tsc);              /* elapsed_ms from process start */
	hostnuma_init();                                     /* nodes, and each CPU's node */
	if (!hostcpu_discover(opts.cpus) || !hostcpu_init_bsp())
		finish_now(false);                               /* no CPU to run on */
	timer_init(&no_acpi);                                /* the reference clock: CLOCK_MONOTONIC_RAW */
	tsc_init(&no_acpi, &hostcpu[0].snap, true);                /* kernel/measure/tsc.c over CLOCK_MONOTONIC_RAW */
	open_files(hostcpu_found());                         /* perf's descriptors: the soft limit raised to the hard one */
	hostcpu_start(START_TIMEOUT_MS);                     /* a pinned thread per other CPU, bounded */
	reps_room();                                         /* repetition log sized for these CPUs */
	hostcpu_measure_tsc_offsets();                       /* each thread's CPU against CPU 0 */
	hostmachine_decode_topology();                       /* packages, cores, threads, caches */
	if (!evict_setup(topo_online())) {              /* RUN_FLUSH's eviction buffer */
		console_error("flush", "no memory for the eviction buffer: flushes would do nothing");
		finish_mark_failed("no memory for the eviction buffer");
	}
	hostmachine_report_boot(cmdline);
	hostmachine_report_memory();
	hostmachine_report_cpus();
	hostmachine_report_caches();
	hostdmi_report(opts.serials == OPT_ON);              /* SMBIOS: the tables as root, else /sys/class/dmi/id */
	instr_init((enum instr_setting)opts.turbo, INSTR_KEEP, false); /* perf: the kernel's counter plans, SMIs, APERF/MPERF */
	hostsys_want((enum instr_setting)opts.turbo, opts.numa_balancing == OPT_SET_OFF); /* boost, NUMA balancing */
	run_online_set(&online, opts.cpus);
	seq_check_flushes(&opts, platform(boot_tsc));        /* the eviction read judged; a no-op one replaced */
	instr_state_apply();                                 /* as root what was asked; the state record: what perf offered */
	report_lava_lines(opts.lava == OPT_ON);              /* after the machine: its qb-lava: lines, then one per result */
	seq_run_all(&opts, platform(boot_tsc), wl_all, wl_count); /* calibrate, plan, run: kernel/bench/sequence.h */
	instr_state_restore();                               /* perf's events closed, settings back; the closing state record */
	finish_now(true);
}
