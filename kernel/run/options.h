/* options.h - the QuietBench command line: ASCII key=value words, parsed from a table of keys. */
#ifndef QB_KERNEL_OPTIONS_H
#define QB_KERNEL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define OPT_MAX_WORKLOADS 32          /* bits in options.workloads */
#define OPT_WORKLOADS_ALL UINT32_MAX  /* "all" before the name count is known */
#define OPT_REPS_MAX 256              /* repetitions one result keeps (kernel/run/reps.h REPS_MAX) */
#define OPT_SMP_TIMEOUT_MS_MAX 60000
#define OPT_SMP_TIMEOUT_MS_DEFAULT 1000
#define OPT_SELFTEST_ITERS_MAX 1000000000
#define OPT_ITERS_MAX 0x80000000u        /* 2^31: the counter workload's per-thread increments */
#define OPT_BUDGET_MAX_S (7u * 24 * 3600) /* a week: anything longer is a typo */
#define OPT_BUDGET_FULL_S 1800            /* profile=full without budget=: 30 minutes */
#define OPT_RUN_TIMEOUT_MS_MAX 3600000    /* an hour */
#define OPT_SLOW_MAX 16                   /* slow=: a machine 16x slower than calibrated is plenty to test with */
#define OPT_FLUSH_PARTIAL_MAX 99          /* flush_partial=: percent of the probed sets' lines the flush evicts */
#define OPT_NOISE_ATTR_NS_DEFAULT 1000    /* noise_attr_ns=: gaps of 1 us and longer are attributed (kernel/measure/gaps.h) */
#define OPT_NOISE_ATTR_NS_MAX 1000000000  /* a second */
#define OPT_SERIES_MIN 2                  /* series=: boots in a row (kernel/lib/resseries.h RESSERIES_MIN, MAX) */
#define OPT_SERIES_MAX 20

/* profile= : how long the run is. */
enum opt_profile {
	OPT_PROFILE_QUICK,
	OPT_PROFILE_FULL,
};

/* finish= : what to do once the records are out (same order as finish.h's enum finish_mode). */
enum opt_finish {
	OPT_FINISH_HALT,      /* stop all CPUs and wait */
	OPT_FINISH_REBOOT,    /* reset the machine */
	OPT_FINISH_POWEROFF,  /* ACPI S5 */
	OPT_FINISH_QEMU,      /* leave QEMU with an exit status */
};

/* flush= : how caches are emptied before a measurement. */
enum opt_flush {
	OPT_FLUSH_WBINVD,
	OPT_FLUSH_NONE,
};

/* dump= : bits for the things to dump. */
enum opt_dump {
	OPT_DUMP_ACPI = 1u << 0,  /* every ACPI table, as records */
	OPT_DUMP_USB = 1u << 1,   /* every xHCI TRB and event, CBW and CSW of the results file, as usb_trace records */
	OPT_DUMP_SMBIOS = 1u << 2, /* the SMBIOS entry point and table, as an smbios_table record */
};

/* fail= (debug): bits for allocations made to fail, as when memory is short, to test what follows. */
enum opt_fail {
	OPT_FAIL_ZEROING = 1u << 0,  /* first-touch's zeroing pages: its zeroing results skipped, every later step its own */
};

/* on/off keys (safe); a bare key word means on. */
enum opt_onoff { OPT_OFF, OPT_ON };

/* turbo= and prefetch= : change the machine's state for the run, or keep it. */
enum opt_tristate { OPT_KEEP, OPT_SET_OFF, OPT_SET_ON };

/* selftest= : debug modes of the selftest workload that exercise failure paths. */
enum opt_selftest {
	OPT_SELFTEST_NORMAL,     /* just the measurement */
	OPT_SELFTEST_FAULT_BSP,  /* then a page fault on the BSP */
	OPT_SELFTEST_FAULT_AP,   /* then a page fault on an AP */
	OPT_SELFTEST_AP_SILENT,  /* the last AP never checks in: it must be left out, not waited for */
	OPT_SELFTEST_AP_LATE,    /* the last AP checks in after the bound: left out, and it stays out */
	OPT_SELFTEST_HANG_AP,    /* an AP never finishes the selftest's work: stopped and reported */
	OPT_SELFTEST_AP_DAWDLE,  /* the last AP checks in, then enters its mailbox loop only after the first job was posted */
};

/* console= : the serial console. AUTO is the SPCR's UART, else COM1. */
enum opt_console {
	OPT_CONSOLE_AUTO,        /* default */
	OPT_CONSOLE_NONE,        /* no serial output at all */
	OPT_CONSOLE_IO,          /* com1..com4 or io:0xPORT: a 16550 at I/O ports */
	OPT_CONSOLE_MMIO8,       /* mmio:0xADDR: byte registers, byte stride */
	OPT_CONSOLE_MMIO32,      /* mmio32:0xADDR: 32-bit registers, 4-byte stride */
};
#define OPT_CONSOLE_BAUD_MIN 50
#define OPT_CONSOLE_BAUD_MAX 4000000

/* idle= : how CPUs wait for work (same order as kernel/run/idle.h's enum idle_method). */
enum opt_idle { OPT_IDLE_AUTO, OPT_IDLE_MWAIT, OPT_IDLE_HLT, OPT_IDLE_POLL };

/* paging= : the multiboot2 path's paging mode at kernel entry (index in "4", "5"). */
enum opt_paging { OPT_PAGING_4, OPT_PAGING_5 };

/* The parsed command line; every field is 32 bits wide (the parser's table writes them). */
struct options {
	uint32_t workloads;          /* bit i selects names[i]; default all */
	enum opt_profile profile;    /* default OPT_PROFILE_FULL */
	uint32_t reps;               /* 1..OPT_REPS_MAX; 0 = profile default */
	uint32_t cpus;               /* most CPUs to use, 1..QB_MAX_CPUS; 0 = all */
	enum opt_finish finish;      /* default OPT_FINISH_HALT */
	enum opt_flush flush;        /* default OPT_FLUSH_WBINVD */
	uint32_t dump;               /* enum opt_dump bits; default none */
	uint32_t smp_timeout_ms;     /* AP start-up wait, 1..OPT_SMP_TIMEOUT_MS_MAX */
	uint32_t selftest_iters;     /* 1..OPT_SELFTEST_ITERS_MAX; 0 = profile's */
	enum opt_selftest selftest;  /* default OPT_SELFTEST_NORMAL */
	uint32_t iters;              /* counter increments per thread, 1..OPT_ITERS_MAX; 0 = profile's */
	enum opt_tristate turbo;     /* default OPT_KEEP */
	enum opt_tristate prefetch;  /* default OPT_KEEP */
	enum opt_onoff safe;         /* OPT_ON: no MSR writes at all */
	enum opt_console console;    /* default OPT_CONSOLE_AUTO; the three below go with it */
	uint32_t console_addr_lo;    /* I/O port, or MMIO address bits 31:0 */
	uint32_t console_addr_hi;    /* MMIO address bits 63:32 */
	uint32_t console_baud;       /* 0: 115200 on I/O ports, the firmware's on MMIO */
	enum opt_paging paging;      /* read by boot/mb2_main.c; the kernel only reports it */
	enum opt_idle idle;          /* default OPT_IDLE_AUTO */
	uint32_t budget_s;           /* wall-clock seconds for the run; 0: the profile's (full 30 min, quick none) */
	enum opt_onoff plan;         /* OPT_ON: show the plan and stop */
	uint32_t run_timeout_ms;     /* one bound for every run; 0: from the plan */
	enum opt_onoff samples;      /* OPT_ON: every repetition's ticks in each result */
	enum opt_onoff lava;         /* OPT_ON: a qb-lava: text line after each result */
	uint32_t slow;               /* debug: every repetition after calibration this many times as long; 0: not */
	enum opt_onoff flush_noop;   /* debug: the platform's own flush does nothing (kernel/run/run.h run_flush_noop) */
	uint32_t flush_partial;      /* debug: the platform's own flush evicts this % of the probed sets' lines; 0: off */
	enum opt_onoff sp_memory;    /* OPT_ON: first-touch measures specific-purpose memory too */
	uint32_t noise_attr_ns;      /* the noise workload attributes gaps this long or longer */
	enum opt_tristate numa_balancing; /* Linux twin: OPT_SET_OFF turns it off for the run (keep or off) */
	enum opt_onoff serials;      /* OPT_ON: SMBIOS serial numbers and the UUID in full; else a truncated SHA-256 */
	uint32_t fail;               /* debug: enum opt_fail bits, allocations made to fail; default none */
	uint32_t series;             /* boots in a row on the stick, OPT_SERIES_MIN..OPT_SERIES_MAX; 0: not a series */
};

#define OPT_ERR_KEY_LEN 32
#define OPT_ERR_VALUE_LEN 64
#define OPT_ERR_WHY_LEN 80
#define OPT_ERR_HINT_LEN 96
#define OPT_ERR_VALID_LEN 320

/* One complaint; the strings are printable ASCII, cut with "..." to fit. */
struct opt_error {
	char key[OPT_ERR_KEY_LEN];      /* the key as written ("" if none) */
	char value[OPT_ERR_VALUE_LEN];  /* the value, or the bad list item */
	char why[OPT_ERR_WHY_LEN];      /* e.g. "out of range 1..100000" */
	char hint[OPT_ERR_HINT_LEN];    /* the closest good word, "workloads=counter", or "" */
	char valid[OPT_ERR_VALID_LEN];  /* what is accepted: "quick full", the keys, "1..100000", or "" */
};

/* Fill o with the defaults (workloads = OPT_WORKLOADS_ALL). */
void options_defaults(struct options *o);

/*
 * Parse cmdline (NULL or "" give the defaults) into o, starting from the
 * defaults. Words are split on spaces, tabs, CR and LF; keys and values are
 * case-sensitive; numbers are plain decimal. A first word without '=' ending in ".efi" (any case) is the
 * program's path and is skipped; "initrd=" is ignored. A bad word is an
 * error and leaves its option unchanged; the rest still applies. Workload
 * names come from names[0..n_names) (at most OPT_MAX_WORKLOADS, matched
 * exactly) and "all" becomes the mask of n_names bits. Returns the number
 * of errors; the first max_errs are stored in errs (NULL if max_errs is 0).
 */
int options_parse(const char *cmdline, const char *const *workload_names,
		  unsigned n_names, struct options *o, struct opt_error *errs,
		  unsigned max_errs);

/* "quick" or "full" ("?" if out of range); also for records. */
const char *options_profile_name(enum opt_profile p);

/* "halt", "reboot", "poweroff" or "qemu" ("?" if out of range). */
const char *options_finish_name(enum opt_finish f);

/* "wbinvd" or "none" ("?" if out of range). */
const char *options_flush_name(enum opt_flush f);

/* Name of dump bit number bit ("acpi" for 0), or NULL past the last. */
const char *options_dump_name(unsigned bit);

/*
 * Write one help line per key ("key=VALUES  what (default D)") into buf,
 * naming the workloads; returns the full length like fmt_snprintf.
 */
int options_help(char *buf, size_t cap, const char *const *workload_names,
		 unsigned n_names);

#endif
