/* finish.c - the done record and the finish modes (UEFI 2.10 §8.5.1 ResetSystem; QEMU isa-debug-exit); see finish.h. */
#include "finish.h"
#include "console.h"
#include "cpu.h"
#include "pmm.h"
#include "fbcon.h" /* fbcon hook */
#include "fmt.h"   /* fbcon hook */
#include "smp.h"
#include "tsc.h"
#include "acpi.h"   /* BIOS reset hook (issue 7) */
#include "paging.h" /* BIOS reset hook (issue 7) */

/* UEFI 2.10 §8.5.1: EFI_RESET_TYPE. */
#define EFI_RESET_COLD 0
#define EFI_RESET_SHUTDOWN 2

typedef void (__attribute__((ms_abi)) *efi_reset_fn)(uint32_t type, uint64_t status,
						      uint64_t data_size, void *data);

static enum finish_mode mode;
static uint64_t reset_fn, start_tsc;
static volatile int failed, finishing;
static const char *first_failure;

/* ---- BIOS reset hook (issue 7) ----------------------------------------------
 * Without UEFI ResetSystem (the multiboot2 path on legacy BIOS), reboot through
 * the FADT's reset register (ACPI 6.5 §4.8.3.6), else the keyboard
 * controller's reset line (8042: command 0xFE pulses output port bit 0). */
#define KBC_STATUS_CMD_PORT 0x64  /* 8042 status (read) and command (write) */
#define KBC_STATUS_IN_FULL 0x02   /* the controller has not taken the last byte yet */
#define KBC_CMD_PULSE_RESET 0xfe
#define KBC_SPINS 100000          /* polls of the input buffer before giving up */
#define RESET_SETTLE_SPINS 10000000

static struct acpi_fadt_info fadt_reset;

void finish_set_fadt(const struct acpi_fadt_info *fadt)
{
	if (fadt)
		fadt_reset = *fadt;
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
		for (int i = 0; i < RESET_SETTLE_SPINS; i++)
			cpu_pause();
		kprintf("finish: the ACPI reset register did not reset; trying the keyboard controller\n");
	}
	for (int i = 0; i < KBC_SPINS && (inb(KBC_STATUS_CMD_PORT) & KBC_STATUS_IN_FULL); i++)
		cpu_pause();
	outb(KBC_STATUS_CMD_PORT, KBC_CMD_PULSE_RESET);
	for (int i = 0; i < RESET_SETTLE_SPINS; i++)
		cpu_pause();
}
/* ---- end of BIOS reset hook ------------------------------------------------ */

void finish_setup(enum finish_mode m, uint64_t efi_reset_system, uint64_t boot_tsc)
{
	mode = m;
	reset_fn = efi_reset_system;
	start_tsc = boot_tsc;
}

void finish_mark_failed(const char *why)
{
	if (!failed)
		first_failure = why;
	failed = 1;
	fbcon_note_failure(); /* fbcon hook: the workload's summary line says FAIL */
}

void finish_now(bool ok)
{
	if (__atomic_exchange_n(&finishing, 1, __ATOMIC_ACQ_REL))
		cpu_halt_forever(); /* someone is already finishing */
	ok = ok && !failed;
	uint64_t elapsed = tsc_to_us(tsc_read() - start_tsc) / 1000;

	struct rec *r = console_rec_open("done");
	rec_str(r, "status", ok ? "ok" : "fail");
	if (!ok && first_failure)
		rec_str(r, "reason", first_failure);
	rec_u64(r, "cpus_found", smp_cpus_found());
	rec_u64(r, "cpus_online", smp_cpus_online());
	rec_u64(r, "cpus_lost", smp_cpus_lost());
	rec_u64(r, "memory_lost_bytes", pmm_lost_bytes()); /* frees the allocator could not keep */
	if (tsc_hz())
		rec_u64(r, "elapsed_ms", elapsed);
	else
		rec_null(r, "elapsed_ms");
	rec_u64(r, "records", console_records() + 1);
	rec_u64(r, "errors", console_errors());
	console_rec_emit(r);
	kprintf("quietbench: done, status %s, %u of %u CPUs online\n", ok ? "ok" : "FAIL",
		smp_cpus_online(), smp_cpus_found());

	switch (mode) {
	case FINISH_QEMU:
		outl(QEMU_EXIT_PORT, ok ? QEMU_EXIT_OK : QEMU_EXIT_FAIL);
		kprintf("finish=qemu: no isa-debug-exit device; halting\n");
		break;
	case FINISH_REBOOT:
	case FINISH_POWEROFF:
		if (reset_fn) {
			smp_park_aps();
			((efi_reset_fn)(uintptr_t)reset_fn)(mode == FINISH_REBOOT ? EFI_RESET_COLD
										 : EFI_RESET_SHUTDOWN,
							   0, 0, 0);
		}
		if (mode == FINISH_REBOOT) { /* BIOS reset hook (issue 7) */
			smp_park_aps();
			finish_bios_reset();
			kprintf("finish: the machine did not reset; halting\n");
		} else {
			kprintf("finish: no firmware power-off on this boot path (legacy BIOS); halting\n");
		}
		break;
	case FINISH_HALT:
		break;
	}
	char line[FBCON_LINE_LEN]; /* fbcon hook: the summary screen stays up while the machine halts */
	fmt_snprintf(line, sizeof(line), "done: status %s, %u of %u CPUs online, %llu ms, %lu error record(s)",
		     ok ? "ok" : "FAIL", smp_cpus_online(), smp_cpus_found(), (unsigned long long)elapsed,
		     console_errors());
	fbcon_set_status(line);
	fbcon_show_summary();
	smp_park_aps();
	kprintf("quietbench: halted; results above\n");
	cpu_halt_forever();
}
