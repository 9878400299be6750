/* finish.c - the done record and the finish modes (UEFI 2.10 §8.5.1 ResetSystem; QEMU isa-debug-exit); see finish.h. */
#include "finish.h"
#include "console.h"
#include "cpu.h"
#include "smp.h"
#include "tsc.h"

/* UEFI 2.10 §8.5.1: EFI_RESET_TYPE. */
#define EFI_RESET_COLD 0
#define EFI_RESET_SHUTDOWN 2

typedef void (__attribute__((ms_abi)) *efi_reset_fn)(uint32_t type, uint64_t status,
						      uint64_t data_size, void *data);

static enum finish_mode mode;
static uint64_t reset_fn, start_tsc;
static volatile int failed, finishing;
static const char *first_failure;

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
		kprintf("finish: no firmware reset service; halting\n");
		break;
	case FINISH_HALT:
		break;
	}
	smp_park_aps();
	kprintf("quietbench: halted; results above\n");
	cpu_halt_forever();
}
