/* resseries.h - a series of boots on the boot stick (series=N, issue 37): which of the logs tools/mkimage preallocated as /quietbench/series/01.log .. NN.log this boot writes, decided from their headers alone. Plain C: the UEFI loader plans, the kernel writes (kernel/lib/reswrite.h: reswrite_series_begin, reswrite_series_end), the host tests cut the power after every write.
 *
 * Each log is a results file (kernel/lib/resfile.h) written as results.log is
 * (kernel/lib/reswrite.h). Boot k of a series writes log k. Its header's
 * series line names the series (an id: the mark of its first boot), k, N,
 * whether the boot reached its end, and how many times it was started; the
 * options line keeps the series' command line, so that every boot runs the
 * first one's options whatever entry GRUB starts. The state of a series is
 * nothing but these headers:
 *   - the series on the stick is the one log 01 names (boot 1 of N);
 *   - it is under way while one of its logs 01 .. N is not its own boot done:
 *     the first such log is the next boot. A log that holds its own boot
 *     still running was cut (power, a reset, a hang) before its done: that
 *     boot runs again;
 *   - otherwise it is whole, and series=N starts a new one at log 01.
 * A boot's writes: its log's header first (used = 0, its series line
 * running), then its old log cleared; then the headers of the logs that are
 * not the series' boots done before it (an older series', or a cut boot's
 * after it) get used = 0 and no series line; then its saves; the header
 * that commits the last save, after the done record, says done. Power lost
 * after any write leaves a stick on which the plan is this boot again (or,
 * before its log's header, what it was before this boot), and every boot
 * done before it whole. */
#ifndef QB_KERNEL_RESSERIES_H
#define QB_KERNEL_RESSERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "resfile.h"

#define RESSERIES_MIN 2              /* series=N: the fewest boots (one boot is a run) */
#define RESSERIES_MAX 20             /* the most, and the logs tools/mkimage makes */
#define RESSERIES_DIR "/quietbench/series/"
#define RESSERIES_KEY "series="

_Static_assert(RESSERIES_MAX <= RESFILE_SERIES_MAX && RESSERIES_MAX <= 32, "a series fits its line and a mask");

enum resseries_action {
	RESSERIES_NONE,              /* no series asked and none under way: this boot is not one */
	RESSERIES_NEW,               /* series=N asked, none under way: boot 1 of a new series */
	RESSERIES_CONTINUE,          /* a series is under way on the stick: its next boot, whatever was asked */
	RESSERIES_REFUSE,            /* series=N asked, but the stick cannot keep it: why */
};

struct resseries_plan {
	enum resseries_action action;
	uint32_t boot, of;           /* this boot is boot `boot` of `of`; it writes log `boot` */
	uint32_t tries;              /* its start: 1, or more when its earlier starts were cut */
	bool again;                  /* its log holds an earlier start of this boot, cut before its done */
	char id[RESFILE_ID_LEN + 1]; /* the series' id */
	uint32_t empty;              /* the logs this boot empties first (bit i: log i + 1) */
	char options[RESFILE_OPTIONS_MAX + 1]; /* the series' command line: NEW the one asked, CONTINUE log 01's */
	bool other_options;          /* CONTINUE: this boot's command line is not the series' (the loader replaces it) */
	const char *why;             /* REFUSE: why not; CONTINUE after another series= word: what was not done */
};

/* The value of the last series= word of cmdline when it is a plain decimal
 * in RESSERIES_MIN..RESSERIES_MAX, as kernel/run/options.c reads it; else 0
 * (not asked; the kernel's parser says what is wrong with a bad one). */
uint32_t resseries_asked(const char *cmdline);

/* cmdline's words one space apart, without a first word naming the program
 * (ending in .efi, without '='), into out (cap bytes with the NUL). False
 * when it does not fit. */
bool resseries_options(const char *cmdline, char *out, size_t cap);

/* The plan for this boot, from the headers of the stick's n series logs
 * (logs[i] is log i + 1, as resfile_parse read them), asked (resseries_asked
 * of this boot's command line), this boot's mark (a new series' id) and its
 * command line. */
void resseries_plan(const struct resfile_hdr *logs, uint32_t n, uint32_t asked, const char *mark, const char *cmdline,
		    struct resseries_plan *p);

#endif
