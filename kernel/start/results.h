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
 * for results_save. On a boot of a series (series_current) the log goes to
 * its series log instead, and results.log and results.prev are left as they
 * are: the series log's header and end, and those of the logs it empties,
 * are checked as theirs would be, then kernel/lib/reswrite.h begins the
 * boot (reswrite_series_begin). Any failure is an `error` record ("results file"); the
 * run goes on with serial only. The USB waits are bounded as kernel/usb/
 * xhci.h says. */
void results_open(const struct boot_info *bi, bool trace);

/* The TSC at which the run's time budget ends (0: none; may be called
 * before results_open). Writing to the stick counts against the budget like
 * everything else: no bulk stage waits past it (though each may take 5 s),
 * and one that would ends saving for the run with an `error` record. */
void results_set_deadline(uint64_t tsc);

/* Before finish=reboot|poweroff hands the machine back: SYNCHRONIZE CACHE
 * to the stick, Intel's port routing put back, the stick's xHCI halted and
 * reset. Text lines on serial (the log on the stick ended with `done`). */
void results_release(void);

/* Write what serial had so far to results.log and mark its length in the
 * header (after each workload, and after the done record). */
void results_save(void);

/* The last save, after the done record: results_save, and on a boot of a
 * series (kernel/start/series.h) its log's header then says done. */
void results_save_end(void);

/* Whether the log is being written to the stick (results.log, or this
 * boot's series log). */
bool results_writing(void);

/* The `results_file` record (docs/records.md) and a text line: where the
 * log is written, or why it is on serial only. */
void results_report(const struct boot_info *bi);

const struct results_usb_state *results_usb(void);

/* The stick's controller, once reached (for a keyboard on it), or NULL. */
struct usb_stick;
struct usb_stick *results_stick(void);

#endif
