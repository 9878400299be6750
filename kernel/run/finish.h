/* finish.h - the end of a run: the `done` record, then halt, reboot, power off or tell QEMU. */
#ifndef QB_KERNEL_FINISH_H
#define QB_KERNEL_FINISH_H

#include <stdbool.h>
#include <stdint.h>

enum finish_mode { FINISH_HALT = 0, FINISH_REBOOT, FINISH_POWEROFF, FINISH_QEMU };

#define QEMU_EXIT_PORT 0xf4 /* isa-debug-exit: QEMU exits with (value << 1) | 1 */
#define QEMU_EXIT_OK 0      /* -> exit status 1 */
#define QEMU_EXIT_FAIL 1    /* -> exit status 3 */

/* How the run ends, and the firmware's ResetSystem (MS ABI) if there is one. */
void finish_setup(enum finish_mode mode, uint64_t efi_reset_system, uint64_t boot_tsc);

/* BIOS reset hook (issue 7): the FADT's reset register, for finish=reboot
 * when there is no UEFI ResetSystem. Copied; NULL is ignored. */
struct acpi_fadt_info;
void finish_set_fadt(const struct acpi_fadt_info *fadt);

/* The memory map, for the firmware's runtime MMIO (mapped before ResetSystem).
 * Kept by reference: it must live for the run. */
struct boot_info;
void finish_set_memory_map(const struct boot_info *bi);

/* Mark the run failed (a check or a workload failed); the done record says "fail". */
void finish_mark_failed(const char *why);

/* How many times finish_mark_failed was called (a workload that adds to it failed). */
unsigned long finish_failures(void);

/* Emit `done` and end the run as set up. ok is ANDed with finish_mark_failed. */
void finish_now(bool ok) __attribute__((noreturn));

/* Called by finish_now right after the `done` record and its text line,
 * before the machine halts or resets: the results file is written then. */
void finish_set_save(void (*save)(void));

/* Called by finish_now with finish=reboot|poweroff, after the save and
 * before the machine is handed back: the stick's cache written out and its
 * controller stopped (kernel/start/results.c). */
void finish_set_release(void (*release)(void));

/* Called by finish_now at the very end with finish=halt, with the summary
 * and banner on screen (the pager); when it returns, the machine halts. */
void finish_set_wait(void (*wait)(bool ok, const char *banner));

/* The word of the banner finish_now draws over the screen's summary, instead
 * of "PASS" or "FAIL" (for example "BAD OPTIONS"). */
void finish_set_banner(const char *text);

#endif
