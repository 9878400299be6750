/* series.c - this boot's place in a series of boots; see series.h.
 *
 * The loader decided from the stick's series logs which boot this is
 * (kernel/lib/resseries.h) and proved and marked the logs it writes;
 * results.c writes them. Here the plan is held against the options (the
 * series' own, which the loader put on the command line when it continued
 * one), said, and turned into the run's end: a boot before the last resets
 * the machine (finish=reboot's path: UEFI ResetSystem, or the FADT's reset
 * register and the 8042 without it), the last ends as finish= says. */
#include "series.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "resseries.h"
#include "results.h"

/* ---- Constants ------------------------------------------------------------ */
#define LINE_LEN 160

_Static_assert(BOOT_SERIES_MAX == RESSERIES_MAX, "boot_info has room for every series log");
_Static_assert(OPT_SERIES_MIN == RESSERIES_MIN && OPT_SERIES_MAX == RESSERIES_MAX, "series= as the loader reads it");

/* ---- Private Variables ---------------------------------------------------- */
static const struct boot_info *boot;     /* series_setup's */
static uint32_t asked;                   /* series=N of the options (0: none) */
static enum finish_mode asked_finish;    /* finish= of the options */
static bool active;                      /* this boot is boot k of N, and its log is written */

/* ---- Private Functions ---------------------------------------------------- */
/* "/quietbench/series/07.log" for log k. */
static const char *log_name(uint32_t k, char *buf, size_t cap)
{
	fmt_snprintf(buf, cap, "%s%02u.log", RESSERIES_DIR, k);
	return buf;
}

static bool resets(const struct boot_series *s)
{
	return s->boot < s->of && s->tries < SERIES_TRIES_RESET;
}

/* Why series=N cannot run on this boot; NULL when it can. */
static const char *why_not(const struct boot_info *bi, char *buf, size_t cap)
{
	const struct boot_results *r = &bi->results;
	const struct boot_series *s = &bi->series;
	if (bi->loader == BOOT_LOADER_MULTIBOOT2)
		return "it needs the UEFI path, which writes the results files; this boot came through GRUB's multiboot2 "
		       "path (legacy BIOS), which writes none: boot the stick from the firmware's UEFI menu";
	if (r->status != BOOT_RESULTS_FOUND) {
		fmt_snprintf(buf, cap, "it needs the series logs of a USB stick the loader proved, and this boot has none: %s",
			     r->status == BOOT_RESULTS_NOT_USB ? "booted from a disk that is not a USB stick"
			     : r->why[0] ? r->why : "the loader did not look for the stick's results files");
		return buf;
	}
	if (s->status == BOOT_SERIES_REFUSED) {
		fmt_snprintf(buf, cap, "%s", s->why);
		return buf;
	}
	if (s->status != BOOT_SERIES_RUN)
		return "the loader found no series to run on this stick";
	if (s->of != asked || !s->boot || s->boot > s->of) {
		fmt_snprintf(buf, cap, "the loader planned boot %u of %u, and the options ask for series=%u", s->boot, s->of,
			     asked);
		return buf;
	}
	return 0;
}

/* The run stops before it measures, as with a bad option: an error record, the screen, done fail. */
static void refuse(const char *why) __attribute__((noreturn));
static void refuse(const char *why)
{
	char line[LINE_LEN];
	console_error("series", "series=%u: %s", asked, why);
	kprintf("\nquietbench: series=%u cannot run on this boot: nothing was measured.\n", asked);
	fmt_snprintf(line, sizeof(line), "series=%u cannot run on this boot: nothing was measured", asked);
	console_summary_line(line);
	fmt_snprintf(line, sizeof(line), "%s", why);
	console_summary_line(line);
	finish_set_banner("NO SERIES");
	finish_mark_failed("series= cannot run on this boot");
	finish_now(false);
}

/* ---- Public Functions ----------------------------------------------------- */
enum finish_mode series_setup(const struct boot_info *bi, const struct options *o, int opt_errors)
{
	char buf[8];
	boot = bi;
	asked = o->series;
	asked_finish = (enum finish_mode)o->finish;
	active = asked && !opt_errors && !why_not(bi, buf, sizeof(buf));
	return active && resets(&bi->series) ? FINISH_REBOOT : asked_finish;
}

const struct boot_series *series_current(void)
{
	return active ? &boot->series : 0;
}

void series_check(const struct boot_info *bi)
{
	char buf[BOOT_RESULTS_WHY + 96], name[40];
	const struct boot_series *s = &bi->series;
	if (!asked)
		return;
	const char *why = why_not(bi, buf, sizeof(buf));
	if (why)
		refuse(why);
	log_name(s->boot, name, sizeof(name));
	kprintf("series: boot %u of %u (%s), series %s: %s\n", s->boot, s->of, name, s->id,
		s->boot < s->of ? "the machine resets after it for the next" : "the last; then finish= applies");
	fmt_snprintf(buf, sizeof(buf), "series: boot %u of %u%s, its log in %s", s->boot, s->of,
		     s->again ? " (again: its last start did not reach its done)" : "", name);
	console_summary_line(buf);              /* the end screen says which boot it shows */
	if (s->again)
		kprintf("series: boot %u again (start %u): its last start did not reach its done (a power cut, a reset or "
			"a hang); the boots before it are kept\n", s->boot, s->tries);
	if (s->replaced)
		kprintf("series: the series under way continues with its own options (the boot entry gave: %s)\n",
			s->entry_cmdline[0] ? s->entry_cmdline : "none");
	if (s->why[0])
		kprintf("series: %s\n", s->why);
	if (!results_writing()) {
		/* Without its log the boot cannot count: no reset, the series waits for the next boot. */
		active = false;
		finish_setup(asked_finish, bi->efi_reset_system, bi->entry_tsc);
		console_error("series", "boot %u of %u cannot be written to the stick (the error above): the run goes on "
			      "without the reset; the series continues at the stick's next boot", s->boot, s->of);
	} else if (s->boot < s->of && !resets(s)) {
		kprintf("series: boot %u has been started %u times without reaching its done: this one ends as finish= "
			"says, without the reset; the next boot of the stick continues the series\n", s->boot, s->tries);
	}
}

void series_report(void)
{
	char name[40];
	const struct boot_series *s = series_current();
	if (!s)
		return;
	uint32_t emptied = 0;
	for (uint32_t i = 0; i < BOOT_SERIES_MAX; i++)
		emptied += (s->empty >> i) & 1;
	struct rec *r = console_rec_open("series");
	rec_u64(r, "boot", s->boot);
	rec_u64(r, "of", s->of);
	rec_str(r, "id", s->id);
	rec_str(r, "log", log_name(s->boot, name, sizeof(name)));
	rec_u64(r, "try", s->tries);
	rec_bool(r, "again", s->again);
	rec_bool(r, "resets", resets(s));
	rec_u64(r, "emptied", emptied);
	rec_u64(r, "logs", s->n_logs);
	if (s->replaced)
		rec_str(r, "entry_cmdline", s->entry_cmdline);
	if (s->why[0])
		rec_str(r, "note", s->why);
	console_rec_emit(r);
}

void series_end_note(void)
{
	const struct boot_series *s = series_current();
	if (!s)
		return;
	if (s->boot == s->of) {
		char line[LINE_LEN];
		kprintf("series: boot %u of %u done: the series is whole in %s01.log .. %02u.log (tools/spread-table --metal "
			"or tools/qb compare on that folder)\n", s->boot, s->of, RESSERIES_DIR, s->of);
		fmt_snprintf(line, sizeof(line), "series: the %u boots are on the stick in %s", s->of, RESSERIES_DIR);
		console_summary_line(line);
	}
	else if (resets(s))
		kprintf("series: boot %u of %u done; the machine resets for boot %u\n", s->boot, s->of, s->boot + 1);
	else
		kprintf("series: boot %u of %u done; boot %u follows at the stick's next boot\n", s->boot, s->of,
			s->boot + 1);
}
