/* results.h - where this run's results go: serial always, and the boot stick's /quietbench/results.log when the UEFI loader found it on USB (issue 17). The kernel reaches the stick with its own xHCI and mass-storage drivers, writes the log after each workload and at the end, and keeps the run before in results.prev. */
#ifndef QB_KERNEL_RESULTS_H
#define QB_KERNEL_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include "boot_info.h"

/* What taking the USB controller did to the firmware's SMIs, for the `state` record. */
struct results_usb_state {
	const char *handoff;     /* how the xHCI was taken from the BIOS, or why it was not */
	int64_t smi_before;      /* IA32_SMI_COUNT before the handoff; -1 where it cannot be read */
	int64_t smi_after;       /* and right after it */
};

/* Reach the stick (bi->results says where), check both files' headers, keep
 * the last run's log in results.prev, and start copying the serial output
 * for results_save. Any failure is an `error` record ("results file"); the
 * run goes on with serial only. Each USB wait is bounded by timeout_ms. */
void results_open(const struct boot_info *bi, uint64_t timeout_ms, bool trace);

/* Write what serial had so far to results.log and mark its length in the
 * header (after each workload, and after the done record). */
void results_save(void);

/* The `results_file` record (docs/records.md) and a text line: where the
 * log is written, or why it is on serial only. */
void results_report(const struct boot_info *bi);

const struct results_usb_state *results_usb(void);

/* The stick's controller, once reached (for a keyboard on it), or NULL. */
struct usb_stick;
struct usb_stick *results_stick(void);

#endif
