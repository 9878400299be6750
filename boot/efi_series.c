/* efi_series.c - this boot's place in a series, from the stick's series logs; see efi_series.h.
 *
 * The state of a series is nothing but its logs' headers (kernel/lib/resseries.h
 * says how), so the loader needs no variable and no file of its own: it reads
 * /quietbench/series/01.log .. NN.log through the firmware's file system,
 * plans, then proves every log the kernel will write (this boot's, and those
 * it empties first) in the FAT and on the raw disk before it marks any of
 * them. A log that cannot be read or proven stops the series for this boot
 * (REFUSED, with the file and why), and nothing of the series is written. */
#include <efi.h>
#include <efilib.h>

#include "efi_series.h"
#include "resseries.h"

/* ---- Constants ------------------------------------------------------------ */
#define DIR_FS L"\\quietbench\\series\\"
#define DIR_FAT "quietbench/series/"
#define LOG_EXT ".log"

/* ---- Private Variables ---------------------------------------------------- */
static struct efi_resfile_file logs[RESSERIES_MAX];
static struct resfile_hdr hdrs[RESSERIES_MAX];

/* ---- Private Functions ---------------------------------------------------- */
/* "07.log" and its two paths. */
static void name_log(struct efi_resfile_file *o, uint32_t k)
{
	char name[] = { (char)('0' + k / 10), (char)('0' + k % 10), '.', 'l', 'o', 'g', 0 };
	UINTN n = 0, m = 0;
	for (const CHAR16 *p = DIR_FS; *p; p++)
		o->path[n++] = *p;
	for (const char *p = DIR_FAT; *p; p++)
		o->fat_path[m++] = *p;
	for (UINTN i = 0; name[i]; i++) {
		o->path[n++] = (CHAR16)name[i];
		o->fat_path[m++] = name[i];
		o->name[i] = name[i];
	}
	o->path[n] = 0;
	o->fat_path[m] = 0;
	o->name[sizeof(name) - 1] = 0;
	o->f = NULL;
}

static void copy(char *dst, const char *src, UINTN cap)
{
	UINTN n = 0;
	for (; src && src[n] && n + 1 < cap; n++)
		dst[n] = src[n];
	dst[n] = 0;
}

/* why: "/quietbench/series/07.log: " when file is given, prefix, then what. */
static void refuse(struct boot_series *s, const char *file, const char *prefix, const char *what)
{
	const char *parts[5] = { file ? RESSERIES_DIR : "", file ? file : "", file ? ": " : "", prefix, what };
	UINTN n = 0;
	s->status = BOOT_SERIES_REFUSED;
	for (int p = 0; p < 5; p++)
		for (UINTN i = 0; parts[p][i] && n + 1 < sizeof(s->why); i++)
			s->why[n++] = parts[p][i];
	s->why[n] = 0;
	Print(L"quietbench: series: not on this boot: %a\r\n", s->why);
}

/* Read every log's header through the file system: how many there are, or 0 with *bad naming a broken one. */
static uint32_t read_logs(EFI_FILE_HANDLE root, const char **bad, const char **why)
{
	uint32_t n = 0;
	*bad = 0;
	for (; n < RESSERIES_MAX; n++) {
		name_log(&logs[n], n + 1);
		const char *w = efi_resfile_read(root, &logs[n], false);
		if (w && !CompareMem((void *)w, "not on", 6))
			break;                     /* past the last log (none: a stick from before series) */
		if (w) {
			*bad = logs[n].name;
			*why = w;
			return 0;
		}
		hdrs[n] = logs[n].h;
	}
	return n;
}

/* Prove every log the kernel will write, then mark them all; 0, or why not (*file naming the log). */
static const char *prove_and_mark(EFI_FILE_HANDLE root, struct efi_resfile_vol *vol, const char *mark, uint32_t want,
				  const char **file, const char **prefix)
{
	const char *why = 0;
	for (uint32_t i = 0; i < RESSERIES_MAX && !why; i++) {
		if (!(want & (1u << i)))
			continue;
		*file = logs[i].name;
		if (!(why = efi_resfile_read(root, &logs[i], true)))
			why = efi_resfile_prove(vol, &logs[i], prefix);
	}
	for (uint32_t i = 0; i < RESSERIES_MAX && !why; i++) {
		if (!(want & (1u << i)))
			continue;
		*file = logs[i].name;
		why = efi_resfile_mark(vol, &logs[i], mark);
	}
	for (uint32_t i = 0; i < RESSERIES_MAX; i++)
		efi_resfile_close(&logs[i]);
	return why;
}

static void say_plan(const struct resseries_plan *p, const struct boot_series *s)
{
	Print(L"quietbench: series: boot %u of %u (%a%a)%a\r\n", p->boot, p->of, RESSERIES_DIR, logs[p->boot - 1].name,
	      p->action == RESSERIES_NEW ? ": a new series" : "");
	if (p->again)
		Print(L"quietbench: series: boot %u again (start %u): its last start did not reach its done "
		      L"(a power cut, a reset or a hang)\r\n", p->boot, p->tries);
	if (s->replaced)
		Print(L"quietbench: series: the series under way continues with its own options: %a\r\n", p->options);
}

/* ---- Public Functions ----------------------------------------------------- */
void efi_series_find(EFI_FILE_HANDLE root, struct efi_resfile_vol *vol, const char *mark, struct boot_info *bi)
{
	struct boot_series *s = &bi->series;
	static struct resseries_plan plan;
	const char *bad = 0, *why = 0, *file = 0, *prefix = "";
	uint32_t asked = resseries_asked(bi->cmdline);
	SetMem(s, sizeof(*s), 0);
	s->status = BOOT_SERIES_NONE;
	uint32_t n = read_logs(root, &bad, &why);
	s->n_logs = n;
	if (bad) {
		if (asked)
			refuse(s, bad, "", why);
		else                               /* no series can be told apart: this boot is not one */
			Print(L"quietbench: series: %a%a: %a: no series on this boot\r\n", RESSERIES_DIR, bad, why);
		return;
	}
	resseries_plan(hdrs, n, asked, mark, bi->cmdline, &plan);
	if (plan.action == RESSERIES_NONE)
		return;
	if (plan.action == RESSERIES_REFUSE) {
		refuse(s, 0, "", plan.why);
		return;
	}
	uint32_t want = plan.empty | 1u << (plan.boot - 1);
	if ((why = prove_and_mark(root, vol, mark, want, &file, &prefix))) {
		refuse(s, file, prefix, why);
		return;
	}
	s->status = BOOT_SERIES_RUN;
	s->boot = plan.boot;
	s->of = plan.of;
	s->tries = plan.tries;
	s->again = plan.again;
	s->empty = plan.empty;
	copy(s->id, plan.id, sizeof(s->id));
	copy(s->why, plan.why, sizeof(s->why));
	for (uint32_t i = 0; i < n; i++)
		if (want & (1u << i))
			s->logs[i] = (struct boot_series_log){ logs[i].h.offset, logs[i].h.length };
	if (plan.action == RESSERIES_CONTINUE && plan.other_options) {
		/* Whatever entry GRUB started, the series runs its own options. */
		if (!resseries_options(bi->cmdline, s->entry_cmdline, sizeof(s->entry_cmdline)))
			copy(s->entry_cmdline, bi->cmdline, sizeof(s->entry_cmdline));
		copy(bi->cmdline, plan.options, sizeof(bi->cmdline));
		bi->cmdline_truncated = 0;
		s->replaced = 1;
	}
	say_plan(&plan, s);
}
