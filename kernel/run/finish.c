/* finish.c - the done record and the finish modes (UEFI 2.10 §8.5.1 ResetSystem; QEMU isa-debug-exit); see finish.h. */
#include "finish.h"
#include "report.h"
#include "console.h"
#include "cpu.h"
#include "pmm.h"
#include "fbcon.h" /* fbcon hook */
#include "fmt.h"   /* fbcon hook */
#include "smp.h"
#include "tsc.h"
#include "usb_handoff.h"
#include "acpi.h"   /* BIOS reset hook (issue 7) */
#include "paging.h" /* BIOS reset hook (issue 7) */

/* UEFI 2.10 §8.5.1: EFI_RESET_TYPE. */
#define EFI_RESET_COLD 0
#define EFI_RESET_SHUTDOWN 2
#define FINISH_COUNTDOWN_S 15     /* finish=reboot/poweroff after a failure: seconds the screen shows why */

typedef void (__attribute__((ms_abi)) *efi_reset_fn)(uint32_t type, uint64_t status,
						      uint64_t data_size, void *data);

static enum finish_mode mode;
static uint64_t reset_fn, start_tsc;
static volatile int failed, finishing;
static volatile unsigned long n_failures;
static const char *first_failure;
static const char *banner;      /* finish_set_banner, or NULL: PASS or FAIL */
static void (*save_fn)(void);   /* finish_set_save */
static void (*wait_fn)(bool ok, const char *banner); /* finish_set_wait */
static void (*release_fn)(void); /* finish_set_release */

/* ---- BIOS reset hook (issue 7) ----------------------------------------------
 * Without UEFI ResetSystem (the multiboot2 path on legacy BIOS), reboot through
 * the FADT's reset register (ACPI 6.5 §4.8.3.6), else the keyboard
 * controller's reset line (8042: command 0xFE pulses output port bit 0). */
#define KBC_STATUS_CMD_PORT 0x64  /* 8042 status (read) and command (write) */
#define KBC_STATUS_IN_FULL 0x02   /* the controller has not taken the last byte yet */
#define KBC_CMD_PULSE_RESET 0xfe
#define KBC_WAIT_MS 100           /* the controller takes a byte within this, or it is not there */
#define RESET_SETTLE_MS 500       /* a reset that works has happened by then */

static struct acpi_fadt_info fadt_reset;
static const struct boot_info *boot_map;  /* for the runtime services' MMIO */

void finish_set_fadt(const struct acpi_fadt_info *fadt)
{
	if (fadt)
		fadt_reset = *fadt;
}

static void settle(void)
{
	uint64_t deadline = tsc_deadline_ms(RESET_SETTLE_MS);
	while (tsc_read() < deadline)
		cpu_pause();
}

/* Try the FADT reset register, then the keyboard controller; returns if the machine did not reset. */
static void finish_bios_reset(void)
{
	const struct acpi_addr *r = &fadt_reset.reset_reg;
	if (fadt_reset.present && fadt_reset.reset_present && r->address) {
		if (r->space == ACPI_GAS_SPACE_IO) {
			outb((uint16_t)r->address, fadt_reset.reset_value);
		} else if (r->space == ACPI_GAS_SPACE_MEMORY) {
			volatile uint8_t *p = paging_map_mmio(r->address, 1);
			if (p)
				*p = fadt_reset.reset_value;
		}
		settle();
		kprintf("finish: the ACPI reset register did not reset; trying the keyboard controller\n");
	}
	uint64_t deadline = tsc_deadline_ms(KBC_WAIT_MS);
	while ((inb(KBC_STATUS_CMD_PORT) & KBC_STATUS_IN_FULL) && tsc_read() < deadline)
		cpu_pause();
	outb(KBC_STATUS_CMD_PORT, KBC_CMD_PULSE_RESET);
	settle();
}

/* ResetSystem runs the firmware's runtime code in our page tables: its code
 * and data are mapped as RAM, its device registers (EFI_MEMORY_RUNTIME MMIO:
 * a reset register, the flash) only now. */
static void map_runtime_mmio(void)
{
	for (uint32_t i = 0; boot_map && i < boot_map->mmap_count; i++) {
		const struct boot_mem_range *m = &boot_map->mmap[i];
		if (m->type == BOOT_MEM_MMIO_RUNTIME && !paging_map_mmio(m->base, m->length))
			kprintf("finish: cannot map the firmware's MMIO at 0x%llx+0x%llx\n",
				(unsigned long long)m->base, (unsigned long long)m->length);
	}
}

void finish_set_memory_map(const struct boot_info *bi)
{
	boot_map = bi;
}
/* ---- end of BIOS reset hook ------------------------------------------------ */

void finish_setup(enum finish_mode m, uint64_t efi_reset_system, uint64_t boot_tsc)
{
	mode = m;
	reset_fn = efi_reset_system;
	start_tsc = boot_tsc;
}

/* "3 of 4 CPUs online", or, before the CPUs were started (bad options), that. */
static const char *cpus_text(char *buf, size_t cap)
{
	if (!smp_cpus_found())
		fmt_snprintf(buf, cap, "no CPU started (the run stopped before)");
	else
		fmt_snprintf(buf, cap, "%u of %u CPUs online", smp_cpus_online(), smp_cpus_found());
	return buf;
}

/* ", 1541 GiB of RAM NOT MAPPED (not measured)" when paging left RAM out, else "". */
static const char *left_out_text(char *buf, size_t cap)
{
	char size[32];
	buf[0] = 0;
	if (paging_unmapped_ram())
		fmt_snprintf(buf, cap, ", %s of RAM NOT MAPPED (not measured)", paging_unmapped_text(size, sizeof(size)));
	return buf;
}

/* The screen's end: its summary under the banner, and the done line. */
static void show_end(bool ok, uint64_t elapsed, const char *then)
{
	char line[FBCON_LINE_LEN], cpus[48], left_out[64]; /* fbcon hook: the summary screen stays up while the machine halts */
	fmt_snprintf(line, sizeof(line), "done: status %s, %s, %llu ms, %lu error record(s)%s%s", ok ? "ok" : "FAIL",
		     cpus_text(cpus, sizeof(cpus)), (unsigned long long)elapsed, console_errors(),
		     left_out_text(left_out, sizeof(left_out)), then);
	fbcon_set_status(line);
	fbcon_show_summary_banner(banner ? banner : ok ? "PASS" : "FAIL", ok);
}

/* finish=reboot or poweroff after a failure: the screen shows why for
 * FINISH_COUNTDOWN_S seconds, counting down on the status line, first. */
static void countdown(bool ok, uint64_t elapsed)
{
	char then[48];
	for (unsigned s = FINISH_COUNTDOWN_S; s > 0; s--) {
		fmt_snprintf(then, sizeof(then), "; %s in %u s", mode == FINISH_REBOOT ? "reboot" : "power off", s);
		show_end(ok, elapsed, then);
		tsc_delay_us(1000000);
	}
}

void finish_set_save(void (*save)(void))
{
	save_fn = save;
}

void finish_set_release(void (*release)(void))
{
	release_fn = release;
}

void finish_set_wait(void (*wait)(bool ok, const char *banner))
{
	wait_fn = wait;
}

void finish_set_banner(const char *text)
{
	banner = text;
}

void finish_mark_failed(const char *why)
{
	if (!failed)
		first_failure = why;
	failed = 1;
	__atomic_add_fetch(&n_failures, 1, __ATOMIC_RELAXED);
	fbcon_note_failure(); /* fbcon hook: the workload's summary line says FAIL */
}

unsigned long finish_failures(void)
{
	return n_failures;
}

void finish_now(bool ok)
{
	if (__atomic_exchange_n(&finishing, 1, __ATOMIC_ACQ_REL))
		cpu_halt_forever(); /* someone is already finishing */
	ok = ok && !failed;
	uint64_t elapsed = tsc_to_us(tsc_read() - start_tsc) / 1000;

	struct report_cpus counts;
	smp_cpu_counts(&counts);
	report_done(ok, first_failure, &counts, (int64_t)pmm_lost_bytes(), (int64_t)paging_unmapped_ram(), start_tsc);
	char cpus[48], left_out[64];
	kprintf("quietbench: done, status %s, %s%s\n", ok ? "ok" : "FAIL", cpus_text(cpus, sizeof(cpus)),
		left_out_text(left_out, sizeof(left_out)));
	if (save_fn)
		save_fn(); /* the results file, ending with done */

	switch (mode) {
	case FINISH_QEMU:
		outl(QEMU_EXIT_PORT, ok ? QEMU_EXIT_OK : QEMU_EXIT_FAIL);
		kprintf("finish=qemu: no isa-debug-exit device; halting\n");
		break;
	case FINISH_REBOOT:
	case FINISH_POWEROFF:
		if (!ok && fbcon_active() && tsc_hz())
			countdown(ok, elapsed);  /* a failure stays readable on the screen for a while */
		smp_park_aps();
		if (release_fn)
			release_fn();          /* the stick: SYNCHRONIZE CACHE, routing back, its xHCI halted and reset */
		usb_handoff_restore_routing(); /* Intel's shared USB ports back where the firmware had them (once) */
		if (reset_fn) {
			map_runtime_mmio();
			((efi_reset_fn)(uintptr_t)reset_fn)(mode == FINISH_REBOOT ? EFI_RESET_COLD
										 : EFI_RESET_SHUTDOWN,
							   0, 0, 0);
			kprintf("finish: the firmware's ResetSystem returned\n");
		}
		if (mode == FINISH_REBOOT) {
			/* Without UEFI, or when its ResetSystem failed: the FADT's reset
			 * register, then the keyboard controller. */
			finish_bios_reset();
			kprintf("finish: the machine did not reset; halting\n");
		} else {
			kprintf("finish: no way to power off on this boot path; halting\n");
		}
		break;
	case FINISH_HALT:
		break;
	}
	show_end(ok, elapsed, "");
	smp_park_aps();
	if (wait_fn && mode == FINISH_HALT)
		wait_fn(ok, banner ? banner : ok ? "PASS" : "FAIL"); /* the pager, with a keyboard */
	kprintf("quietbench: halted; results above\n");
	cpu_halt_forever();
}
