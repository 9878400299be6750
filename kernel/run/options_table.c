/* options_table.c - the command line's keys and the names of their values; see options_table.h and options.h. */
#include <stdarg.h>
#include <stdbool.h>

#include "fmt.h"
#include "lib.h"
#include "qb_limits.h"
#include "options_table.h"

/* ---- Private Variables ---------------------------------------------------- */

static const char *const opt_profile_names[] = {
	[OPT_PROFILE_QUICK] = "quick",
	[OPT_PROFILE_FULL] = "full",
};

static const char *const opt_finish_names[] = {
	[OPT_FINISH_HALT] = "halt",
	[OPT_FINISH_REBOOT] = "reboot",
	[OPT_FINISH_POWEROFF] = "poweroff",
	[OPT_FINISH_QEMU] = "qemu",
};

static const char *const opt_flush_names[] = {
	[OPT_FLUSH_WBINVD] = "wbinvd",
	[OPT_FLUSH_NONE] = "none",
};

static const char *const opt_selftest_names[] = {
	[OPT_SELFTEST_NORMAL] = "normal",
	[OPT_SELFTEST_FAULT_BSP] = "fault-bsp",
	[OPT_SELFTEST_FAULT_AP] = "fault-ap",
	[OPT_SELFTEST_AP_SILENT] = "ap-silent",
	[OPT_SELFTEST_AP_LATE] = "ap-late",
	[OPT_SELFTEST_HANG_AP] = "hang-ap",
	[OPT_SELFTEST_AP_DAWDLE] = "ap-dawdle",
};

const char *const opt_onoff_names[2] = {
	[OPT_OFF] = "off",
	[OPT_ON] = "on",
};

static const char *const opt_tristate_names[] = {
	[OPT_KEEP] = "keep",
	[OPT_SET_OFF] = "off",
	[OPT_SET_ON] = "on",
};

/* numa_balancing= : kept, or off for the run (turning it on would add noise). */
static const char *const opt_keepoff_names[] = {
	[OPT_KEEP] = "keep",
	[OPT_SET_OFF] = "off",
};

static const char *const opt_idle_names[] = {
	[OPT_IDLE_AUTO] = "auto",
	[OPT_IDLE_MWAIT] = "mwait",
	[OPT_IDLE_HLT] = "hlt",
	[OPT_IDLE_POLL] = "poll",
};

static const char *const opt_paging_names[] = {
	[OPT_PAGING_4] = "4",
	[OPT_PAGING_5] = "5",
};

/* console= values: the named ports (PC/AT COM1-4). */
const struct opt_com_port opt_com_ports[OPT_N_COM_PORTS] = {
	{ "com1", 0x3f8 }, { "com2", 0x2f8 }, { "com3", 0x3e8 }, { "com4", 0x2e8 },
};

/* Indexed by bit number of enum opt_dump. */
static const char *const opt_dump_names[] = { "acpi", "usb", "smbios" };

/* Indexed by bit number of enum opt_fail. */
static const char *const opt_fail_names[] = { "zeroing" };

#define OPT_FIELD(f) offsetof(struct options, f)
#define OPT_CHOICES(a) .choices = (a), .n_choices = ARRAY_SIZE(a)

const struct opt_row opt_rows[OPT_N_ROWS] = {
	{ .name = "workloads", .type = OPT_T_WORKLOADS, .def = OPT_WORKLOADS_ALL,
	  .offset = OPT_FIELD(workloads),
	  .help = "comma list of workloads to run" },
	{ .name = "profile", .type = OPT_T_CHOICE, .def = OPT_PROFILE_FULL,
	  OPT_CHOICES(opt_profile_names), .offset = OPT_FIELD(profile),
	  .help = "quick: short smoke run; full: the measurement" },
	{ .name = "reps", .type = OPT_T_UINT, .min = 1, .max = OPT_REPS_MAX,
	  .zero_means = "set by profile", .offset = OPT_FIELD(reps),
	  .help = "repetitions per workload, 1..256 (what one result keeps)" },
	{ .name = "cpus", .type = OPT_T_UINT, .min = 1, .max = QB_MAX_CPUS,
	  .zero_means = "all", .offset = OPT_FIELD(cpus),
	  .help = "most CPUs to use" },
	{ .name = "finish", .type = OPT_T_CHOICE, .def = OPT_FINISH_HALT,
	  OPT_CHOICES(opt_finish_names), .offset = OPT_FIELD(finish),
	  .help = "what to do when done" },
	{ .name = "flush", .type = OPT_T_CHOICE, .def = OPT_FLUSH_WBINVD,
	  OPT_CHOICES(opt_flush_names), .offset = OPT_FIELD(flush),
	  .help = "cache flush before each measurement" },
	{ .name = "dump", .type = OPT_T_SET, .def = 0, .zero_means = OPT_SET_EMPTY,
	  OPT_CHOICES(opt_dump_names), .offset = OPT_FIELD(dump),
	  .help = "comma list of things to dump" },
	{ .name = "smp_timeout_ms", .type = OPT_T_UINT, .min = 1,
	  .max = OPT_SMP_TIMEOUT_MS_MAX, .def = OPT_SMP_TIMEOUT_MS_DEFAULT,
	  .offset = OPT_FIELD(smp_timeout_ms),
	  .help = "how long to wait for the APs to start" },
	{ .name = "selftest_iters", .type = OPT_T_UINT, .min = 1,
	  .max = OPT_SELFTEST_ITERS_MAX, .zero_means = "set by profile",
	  .offset = OPT_FIELD(selftest_iters),
	  .help = "self-test iterations" },
	{ .name = "selftest", .type = OPT_T_CHOICE, .def = OPT_SELFTEST_NORMAL,
	  OPT_CHOICES(opt_selftest_names), .offset = OPT_FIELD(selftest),
	  .help = "debug: a page fault on the BSP or an AP, an AP that never or too late checks in, an AP that hangs, an AP slow to reach its mailbox" },
	{ .name = "iters", .type = OPT_T_UINT, .min = 1, .max = OPT_ITERS_MAX,
	  .zero_means = "set by profile", .offset = OPT_FIELD(iters),
	  .help = "counter: increments per thread (full profile: 2^31/4, as in Duffy's false-sharing test)" },
	{ .name = "turbo", .type = OPT_T_CHOICE, .def = OPT_KEEP,
	  OPT_CHOICES(opt_tristate_names), .offset = OPT_FIELD(turbo),
	  .help = "processor boost: off for a stable frequency, restored at the end" },
	{ .name = "prefetch", .type = OPT_T_CHOICE, .def = OPT_KEEP,
	  OPT_CHOICES(opt_tristate_names), .offset = OPT_FIELD(prefetch),
	  .help = "hardware prefetchers where documented, restored at the end" },
	{ .name = "safe", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(safe),
	  .help = "no MSR writes at all (the word alone means on)" },
	{ .name = "console", .type = OPT_T_CONSOLE, .def = OPT_CONSOLE_AUTO,
	  .offset = OPT_FIELD(console),
	  .help = "serial console: the SPCR's UART, else COM1, unless given" },
	{ .name = "paging", .type = OPT_T_CHOICE, .def = OPT_PAGING_4,
	  OPT_CHOICES(opt_paging_names), .offset = OPT_FIELD(paging),
	  .help = "multiboot2 path: 5 enters the kernel with 5-level paging, as some firmware does" },
	{ .name = "idle", .type = OPT_T_CHOICE, .def = OPT_IDLE_AUTO,
	  OPT_CHOICES(opt_idle_names), .offset = OPT_FIELD(idle),
	  .help = "how idle CPUs wait: MWAIT on real hardware, else HLT; poll keeps them busy" },
	{ .name = "budget", .type = OPT_T_DURATION, .min = 1, .max = OPT_BUDGET_MAX_S,
	  .zero_means = "full 30m, quick none", .offset = OPT_FIELD(budget_s),
	  .help = "wall-clock time for the whole run: 150s, 30m, 2h, 1h30m" },
	{ .name = "plan", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(plan),
	  .help = "show the plan (configurations and their estimated time) and stop (the word alone means on)" },
	{ .name = "run_timeout_ms", .type = OPT_T_UINT, .min = 1, .max = OPT_RUN_TIMEOUT_MS_MAX,
	  .zero_means = "from the plan", .offset = OPT_FIELD(run_timeout_ms),
	  .help = "one bound for every run, instead of the planned time x 4" },
	{ .name = "samples", .type = OPT_T_CHOICE, .def = OPT_ON,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(samples),
	  .help = "every repetition's ticks in each result, as a samples list, for significance tests (off leaves them out)" },
	{ .name = "lava", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(lava),
	  .help = "a plain qb-lava: line after each result, for LAVA's monitors (the word alone means on)" },
	{ .name = "slow", .type = OPT_T_UINT, .min = 1, .max = OPT_SLOW_MAX,
	  .zero_means = "off", .offset = OPT_FIELD(slow),
	  .help = "debug: after calibration every repetition takes N times as long (a wait outside the timed part), to test the budget" },
	{ .name = "flush_noop", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(flush_noop),
	  .help = "debug: the platform's own flush (WBINVD; the twin's eviction read) does nothing, to test the flush check's verdict and fallback" },
	{ .name = "flush_partial", .type = OPT_T_UINT, .min = 1, .max = OPT_FLUSH_PARTIAL_MAX,
	  .zero_means = "off", .offset = OPT_FIELD(flush_partial),
	  .help = "debug: the platform's own flush instead CLFLUSHes N% of the lines of the sets the flush check and the flush workload chase, to test the verdict partial" },
	{ .name = "sp_memory", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(sp_memory),
	  .help = "first-touch: also measure specific-purpose memory (EFI_MEMORY_SP: CXL, HBM), which the firmware reserved for a purpose" },
	{ .name = "noise_attr_ns", .type = OPT_T_UINT, .min = 1, .max = OPT_NOISE_ATTR_NS_MAX,
	  .def = OPT_NOISE_ATTR_NS_DEFAULT, .offset = OPT_FIELD(noise_attr_ns),
	  .help = "noise: a gap this many ns or longer is attributed (SMIs; on Linux interrupts, switches, faults)" },
	{ .name = "numa_balancing", .type = OPT_T_CHOICE, .def = OPT_KEEP,
	  OPT_CHOICES(opt_keepoff_names), .offset = OPT_FIELD(numa_balancing),
	  .help = "Linux twin, as root: off turns NUMA balancing off for the run and back at the end (bare metal has none)" },
	{ .name = "serials", .type = OPT_T_CHOICE, .def = OPT_OFF,
	  OPT_CHOICES(opt_onoff_names), .offset = OPT_FIELD(serials),
	  .help = "SMBIOS serial numbers and the system UUID in full; off gives the first 12 hex digits of their SHA-256 (the word alone means on)" },
	{ .name = "fail", .type = OPT_T_SET, .def = 0, .zero_means = OPT_SET_EMPTY,
	  OPT_CHOICES(opt_fail_names), .offset = OPT_FIELD(fail),
	  .help = "debug: make an allocation fail as when memory is short (zeroing: first-touch's zeroing pages), to test that the rest of the run keeps its plan" },
	{ .name = "series", .type = OPT_T_UINT, .min = OPT_SERIES_MIN, .max = OPT_SERIES_MAX,
	  .zero_means = "off", .offset = OPT_FIELD(series),
	  .help = "boots in a row from the stick, each log in /quietbench/series/, each ending by resetting the machine; then finish= (UEFI only)" },
	{ .name = "initrd", .type = OPT_T_IGNORED,
	  .help = "added by OVMF; ignored" },
};

_Static_assert(ARRAY_SIZE(opt_rows) <= sizeof(uint32_t) * __CHAR_BIT__,
	       "one bit per key in the duplicate mask");

/* ---- Private Functions ---------------------------------------------------- */

static const char *opt_name(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}

/* ---- Public Functions ----------------------------------------------------- */

/* "a|b|c" for the messages; a set also takes "none". */
void opt_choice_list(char *buf, size_t cap, const struct opt_row *row)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i <= row->n_choices && len < cap; i++) {
		const char *name = i < row->n_choices ? row->choices[i]
			: row->type == OPT_T_SET ? OPT_SET_EMPTY : NULL;
		int n;

		if (!name)
			break;
		n = fmt_snprintf(buf + len, cap - len, "%s%s", i ? "|" : "",
				 name);
		len += n > 0 ? (size_t)n : 0;
	}
}

const char *options_profile_name(enum opt_profile pr)
{
	return opt_name(opt_profile_names, ARRAY_SIZE(opt_profile_names), pr);
}

const char *options_finish_name(enum opt_finish f)
{
	return opt_name(opt_finish_names, ARRAY_SIZE(opt_finish_names), f);
}

const char *options_flush_name(enum opt_flush f)
{
	return opt_name(opt_flush_names, ARRAY_SIZE(opt_flush_names), f);
}

const char *options_dump_name(unsigned bit)
{
	return bit < ARRAY_SIZE(opt_dump_names) ? opt_dump_names[bit] : NULL;
}

/* Append to a help buffer, counting what does not fit. */
__attribute__((format(printf, 4, 5)))
static void opt_append(char *buf, size_t cap, size_t *len, const char *f, ...)
{
	size_t room = *len < cap ? cap - *len : 0;
	va_list ap;
	int n;

	va_start(ap, f);
	n = fmt_vsnprintf(room ? buf + *len : NULL, room, f, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

int options_help(char *buf, size_t cap, const char *const *workload_names,
		 unsigned n_names)
{
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(opt_rows); i++) {
		const struct opt_row *row = &opt_rows[i];
		char vals[OPT_CHOICE_LIST_MAX];

		switch (row->type) {
		case OPT_T_UINT:
			fmt_snprintf(vals, sizeof(vals), "%u..%u", row->min,
				     row->max);
			break;
		case OPT_T_WORKLOADS:
			fmt_snprintf(vals, sizeof(vals), "all|NAME,NAME...");
			break;
		case OPT_T_IGNORED:
			continue;
		case OPT_T_CONSOLE:
			opt_append(buf, cap, &len, "%s=%s  %s (default auto)\n", row->name,
				   OPT_CONSOLE_FORMS, row->help);
			continue;
		case OPT_T_DURATION:
			fmt_snprintf(vals, sizeof(vals), "DURATION");
			break;
		default:
			opt_choice_list(vals, sizeof(vals), row);
			break;
		}
		opt_append(buf, cap, &len, "%s=%s  %s (default ", row->name,
			   vals, row->help);
		if (row->type == OPT_T_WORKLOADS)
			opt_append(buf, cap, &len, "all)\n");
		else if (row->type == OPT_T_CHOICE)
			opt_append(buf, cap, &len, "%s)\n", row->choices[row->def]);
		else if (!row->def && row->zero_means)
			opt_append(buf, cap, &len, "%s)\n", row->zero_means);
		else
			opt_append(buf, cap, &len, "%u)\n", row->def);
		if (row->type != OPT_T_WORKLOADS || !workload_names)
			continue;
		opt_append(buf, cap, &len, "  workload names:");
		for (unsigned w = 0; w < MIN(n_names, OPT_MAX_WORKLOADS); w++)
			opt_append(buf, cap, &len, " %s", workload_names[w]);
		opt_append(buf, cap, &len, "\n");
	}
	return (int)MIN(len, (size_t)__INT_MAX__);
}
