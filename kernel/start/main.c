/* main.c - the kernel's start-up sequence on the BSP, one step per line, then the workloads.
 *
 * Layer 11: start. The kernel's start-up: kernel_entry, one step a line, the
 * console's set-up and the machine records. Includes every layer; nothing
 * includes it. */
#include "acpi.h"
#include "apic.h"
#include "boot_info.h"
#include "console.h"
#include "cpu.h"
#include "demand.h"
#include "fault.h"
#include "fbcon.h" /* fbcon hook */
#include "finish.h"
#include "flushcheck.h"
#include "gdt.h"
#include "instr.h"
#include "iommu.h"
#include "idt.h"
#include "idle.h"
#include "lib.h"
#include "machine.h"
#include "machine_numa.h"
#include "machine_smbios.h"
#include "pager.h"
#include "results.h"
#include "series.h"
#include "topo_online.h"
#include "msr.h"
#include "numa_fw.h"
#include "memtype.h"
#include "options.h"
#include "options_report.h"
#include "paging.h"
#include "percpu.h"
#include "pmm.h"
#include "report.h"
#include "reps.h"
#include "run.h"
#include "serial.h"
#include "serial_setup.h"
#include "smp.h"
#include "spmem.h"
#include "timer.h"
#include "tsc.h"
#include "registry.h"
#include "seq_start.h"
#include "sequence.h"
#include "usb_handoff.h"

#ifndef QB_BUILD_ID
#define QB_BUILD_ID "unknown"
#endif

/* ---- Constants ------------------------------------------------------------ */
#define LOW_MEMORY_END 0x100000ull   /* below 1 MiB stays with the firmware and the trampoline */
#define FIRST_4G 0x100000000ull      /* the boot path's tables map all of it */
#define MAX_OPT_ERRORS 16

/* ---- Private Variables ---------------------------------------------------- */
static struct boot_info bi;
static struct acpi_info acpi;
static struct options opts;
static struct cpuset online;
static uint8_t bsp_ist[3 * IST_STACK_SIZE] __attribute__((aligned(16)));
static const char *wl_names[OPT_MAX_WORKLOADS];
static struct opt_error opt_errs[MAX_OPT_ERRORS];
static int opt_errs_n;

/* ---- Private Functions ---------------------------------------------------- */
/* Parse the command line and report every mistake; returns how many. */
static int parse_options(void)
{
	unsigned n = seq_workload_names(wl_all, wl_count, wl_names, OPT_MAX_WORKLOADS);
	opt_errs_n = options_parse(bi.cmdline, wl_names, n, &opts, opt_errs, MAX_OPT_ERRORS);
	options_report(opt_errs, opt_errs_n, MAX_OPT_ERRORS);
	if (bi.cmdline_truncated)
		console_error("options", "command line longer than %u bytes, truncated", QB_MAX_CMDLINE - 1);
	return opt_errs_n;
}

/* The per-thread repetition log, for the CPUs that came online (2 MiB at
 * 1024 CPUs, 8 KiB at 4: not in the image). */
static void reps_room(void)
{
	uint32_t n = MAX(smp_cpus_online(), 1u);
	uint64_t pages = ((uint64_t)n * REPS_MAX * sizeof(uint64_t) + PMM_PAGE - 1) / PMM_PAGE;
	uint64_t p = pmm_alloc(pages, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	if (!p) {
		console_error("reps", "no memory for the repetition log of %u CPUs: results keep one thread", n);
		return;
	}
	reps_set_storage((uint64_t(*)[REPS_MAX])(uintptr_t)p, n);
}

/* Give the allocator the usable RAM in [lo, hi), above 1 MiB. */
static void add_ram(uint64_t lo, uint64_t hi)
{
	lo = MAX(lo, LOW_MEMORY_END);
	for (uint32_t i = 0; i < bi.mmap_count; i++) {
		const struct boot_mem_range *m = &bi.mmap[i];
		uint64_t base = MAX(m->base, lo), end = MIN(m->base + m->length, hi);
		if (m->type != BOOT_MEM_USABLE || base >= end)
			continue;
		if (!memtype_add_ram(base, end - base))
			console_error("pmm", "range table full; 0x%llx+0x%llx not used",
				      (unsigned long long)base, (unsigned long long)(end - base));
	}
}

static void init_memory(void)
{
	pmm_reset(0, 0);
	memtype_read_bsp();                                  /* MTRRs and PAT: only write-back RAM is used */
	spmem_reset();                                       /* specific-purpose memory: kept apart, lent on request */
	for (uint32_t i = 0; i < bi.mmap_count; i++) {
		const struct boot_mem_range *m = &bi.mmap[i];
		if (m->type == BOOT_MEM_SPECIFIC && !spmem_add(m->base, m->length))
			console_error("spmem", "range table full; specific-purpose 0x%llx+0x%llx not kept",
				      (unsigned long long)m->base, (unsigned long long)m->length);
	}
	add_ram(0, FIRST_4G);                                /* page tables come from here until CR3 is ours */
	if (paging_init(&bi))
		panic("paging_init", "cannot build the kernel's page tables");
	if (paging_ram_end() < FIRST_4G)
		panic("paging_init", "RAM below 4 GiB left unmapped, but already given to the allocator");
	add_ram(FIRST_4G, paging_ram_end());                 /* the rest of the RAM now mapped (paging_init says what is not) */
}

static void init_acpi(void)
{
	/* The console first, so that what follows goes where the user looks. */
	if (bi.rsdp_phys && acpi_find_tables(bi.rsdp_phys, &acpi) == 0) {
		const struct acpi_table_ref *t = acpi_table(&acpi, "SPCR");
		const void *p = t ? acpi_table_map(t, &acpi) : 0;
		if (p)
			acpi_parse_spcr(p, t->length, &acpi);
	}
	serial_setup(&opts, &acpi);
	if (!bi.rsdp_phys) {
		console_error("acpi", "the firmware gave no RSDP; running on the BSP alone");
		return;
	}
	if (acpi_parse(bi.rsdp_phys, &acpi))
		console_error("acpi", "no usable MADT: running on the BSP alone");
	for (uint32_t i = 0; i < acpi.n_errors; i++) {
		const struct acpi_error *e = &acpi.errors[i];
		kprintf("error: acpi %s: %s (0x%llx)\n", e->sig, e->msg, (unsigned long long)e->value);
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "acpi");
		rec_str(r, "table", e->sig);
		rec_str(r, "detail", e->msg);
		rec_hex(r, "value", e->value);
		console_rec_emit(r);
	}
	if (acpi.n_errors_lost)
		console_error("acpi", "%u more ACPI errors not listed", acpi.n_errors_lost);

	/* Re-tag free memory with its NUMA node. */
	static struct pmm_node_range nr[QB_MAX_SRAT_MEM];
	uint32_t n = 0;
	for (uint32_t i = 0; acpi.srat.present && i < acpi.srat.n_mem; i++) {
		nr[n].base = acpi.srat.mem[i].base;
		nr[n].end = acpi.srat.mem[i].base + acpi.srat.mem[i].length;
		nr[n].node = (int32_t)acpi.srat.mem[i].node;
		n++;
	}
	if (n)
		pmm_set_nodes(nr, n);
	numa_fw_set(&acpi);                                  /* the SRAT, SLIT and HMAT for the workloads */
}

static void memtype_cpu_fn(const struct run_thread *t)
{
	memtype_check_this_cpu(t->cpu, opts.safe == OPT_ON);
}

/* Every online CPU's MTRRs and PAT against the BSP's (mm reads them; the runner is above it). */
static void check_memtypes(void)
{
	static struct cpuset all;
	run_online_set(&all, 0);
	if (run_on(&all, memtype_cpu_fn, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		console_error("memtype", "could not read the MTRRs on every CPU");
	memtype_check_report(all.cpu, all.n);
}

/* When the run's time budget ends (the sequence's budget, counted from the
 * kernel's entry as the sequence counts it), as a TSC; 0: no budget. */
static uint64_t budget_deadline(void)
{
	static struct seq_run s;
	seq_from_options(&s, &opts);
	if (s.budget_s <= 0 || !tsc_hz())
		return 0;
	return bi.entry_tsc + (uint64_t)(s.budget_s * (double)tsc_hz());
}

/* What this platform is, for the flush check and the run. */
static const struct seq_platform *platform(void)
{
	static struct seq_platform pf;
	const struct serial_port *sp = serial_current();
	pf = (struct seq_platform){
		.name = "bare-metal",
		.has_wbinvd = true,
		.has_fault_internals = true,
		.online = &online,
		.bsp_cpuid = &percpu[0].snap,
		.nodes = acpi.srat.present && acpi.srat.n_nodes ? acpi.srat.n_nodes : 1,
		.start_tsc = bi.entry_tsc,
		.after_workload = results_save,              /* and after each workload */
		/* What printing really cost so far; else 8N1's ten bits a byte. */
		.serial_bytes_per_s = console_bytes_per_s(tsc_hz()) ? console_bytes_per_s(tsc_hz())
				    : sp && !serial_why() && sp->baud ? sp->baud / SERIAL_BITS_PER_BYTE : 0,
	};
	return &pf;
}

/* ---- Public Functions ----------------------------------------------------- */
void kernel_entry(struct boot_info *bi_in)
{
	percpu_install(0);                                   /* %gs: this_cpu() works from here */
	struct serial_port com1 = { false, SERIAL_COM1, 1, 1, SERIAL_DEFAULT_BAUD, SERIAL_PC_CLOCK_HZ };
	serial_init(&com1);                                  /* text out, before anything can fail */
	gdt_init();                                          /* our GDT and the BSP's TSS */
	gdt_load(0, (uint64_t)(uintptr_t)bsp_ist);
	idt_init();                                          /* exceptions become error records */
	idt_load();
	if (bi_in->magic != BOOT_INFO_MAGIC || bi_in->version != BOOT_INFO_VERSION)
		panic("kernel_entry", "boot_info magic or version mismatch");
	memcpy(&bi, bi_in, sizeof(bi));                      /* the loader's memory is not ours */
	kprintf("\nQuietBench %s: noise-free cache and memory measurements\n", QB_BUILD_ID);
	options_defaults(&opts);
	parse_options();                                     /* errors reported; a bad one stops the run below */
	finish_setup(series_setup(&bi, &opts, opt_errs_n), bi.efi_reset_system, bi.entry_tsc); /* finish=, or a series' reset */
	init_memory();                                       /* allocator and our own page tables */
	fbcon_init(&bi.fb, paging_map_mmio);                 /* fbcon hook: the screen as a console */
	init_acpi();                                         /* SPCR console, MADT, SRAT, FADT, HPET */
	finish_set_fadt(&acpi.fadt);
	finish_set_memory_map(&bi);                          /* the firmware's runtime MMIO, for ResetSystem */                         /* BIOS reset hook (issue 7): reboot without UEFI */
	cpuid_snap_take(&percpu[0].snap);                    /* the BSP's CPUID, for TSC and topology */
	timer_init(&acpi);                                   /* HPET or PM timer: bounds the handoffs, calibrates the TSC */
	usb_handoff_all(&percpu[0].snap);                    /* every USB controller from the firmware: no SMIs on USB events */
	iommu_release(&acpi);                                /* remapping the firmware left on, off: the stick's DMA gets through */
	tsc_init(&acpi, &percpu[0].snap, opts.safe != OPT_ON); /* fence, frequency, invariance, overhead */
	results_set_deadline(budget_deadline());             /* saving counts against the run's budget */
	results_open(&bi, opts.dump & OPT_DUMP_USB);         /* the boot stick's results file, if on USB */
	finish_set_save(results_save_end);                   /* the log to the stick at the end (a series' says done) */
	finish_set_release(results_release);                 /* then, before a reboot or power-off, the stick let go */
	finish_set_wait(pager_run);                          /* then, with a USB keyboard, page through it */
	instr_usb_handoff(results_usb()->handoff, results_usb()->smi_before, results_usb()->smi_after);
	if (opt_errs_n) {                                    /* nothing is measured with a typo */
		options_refuse(opt_errs, opt_errs_n, MAX_OPT_ERRORS,
			       "in /quietbench.cfg on the stick or in the boot entry (GRUB: press e), and boot again");
		finish_now(false);
	}
	series_check(&bi);                                   /* series=N: boot k of N said, or why not (stops) */
	if (tsc_have_rdtscp)
		wrmsr(MSR_IA32_TSC_AUX, 0);
	bool need_x2 = false;
	for (uint32_t i = 0; i < acpi.madt.n_cpus; i++)
		need_x2 |= acpi.madt.cpus[i].enabled && acpi.madt.cpus[i].apic_id > APIC_XAPIC_MAX_ID;
	if (!apic_init_bsp(acpi.madt.lapic_addr, need_x2))
		panic("apic_init_bsp", "no usable local APIC");
	smp_set_debug(opts.selftest == OPT_SELFTEST_AP_SILENT   ? SMP_DEBUG_AP_SILENT
		      : opts.selftest == OPT_SELFTEST_AP_LATE   ? SMP_DEBUG_AP_LATE
		      : opts.selftest == OPT_SELFTEST_AP_DAWDLE ? SMP_DEBUG_AP_DAWDLE
								: SMP_DEBUG_NONE);
	idle_init((enum idle_method)opts.idle);              /* how APs wait for work: MWAIT or HLT */
	smp_init(&bi, &acpi, opts.cpus, opts.smp_timeout_ms); /* every enabled CPU, bounded */
	reps_room();                                         /* repetition log sized for these CPUs */
	smp_measure_tsc_offsets();                           /* each AP against the BSP */
	machine_decode_topology(&acpi);                      /* packages, cores, threads, caches */
	demand_hw_init();                                    /* page faults in demand-zero regions */
	check_memtypes();                                    /* every CPU's MTRRs and PAT as the BSP's */
	machine_report_boot(&bi, &acpi, bi.cmdline);
	machine_report_memory(&bi, &acpi);
	machine_report_numa_fw(&acpi);                       /* the SLIT's distances and the HMAT's claims */
	machine_report_cpus();
	machine_report_caches();
	machine_report_smbios(&bi, &acpi, opts.serials == OPT_ON); /* the loader's SMBIOS copy: system, BIOS, memory */
	results_report(&bi);                                 /* where the log goes: serial, and the stick? */
	if (opts.dump & OPT_DUMP_ACPI)
		machine_dump_acpi(&acpi);
	if (opts.dump & OPT_DUMP_SMBIOS)
		machine_dump_smbios(&bi);
	instr_init((enum instr_setting)opts.turbo, (enum instr_setting)opts.prefetch, /* noise sources, counters */
		   opts.safe == OPT_ON);
	run_online_set(&online, opts.cpus);
	seq_check_flushes(&opts, platform());                /* every flush judged; an ineffective one replaced */
	instr_state_apply();                                 /* turbo and prefetchers as asked; state records */
	reps_keep_samples(opts.samples == OPT_ON);           /* samples=on: every repetition in the results */
	report_lava_lines(opts.lava == OPT_ON);              /* lava=on: a qb-lava: line per result */
	seq_run_all(&opts, platform(), wl_all, wl_count);    /* calibrate, plan, run: kernel/bench/sequence.h */
	instr_state_restore();                               /* exactly what was changed, put back */
	finish_now(true);
}
