/* thp.c - thp.h on Linux: prctl(2) PR_SET_THP_DISABLE and PR_GET_THP_DISABLE, madvise(2) MADV_NOHUGEPAGE. */
#define _GNU_SOURCE
#include "thp.h"
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "console.h"

/* ---- Constants ------------------------------------------------------------ */
#define PIECE (2ull << 20)                    /* one 2 MiB page */

/* ---- Private Variables ---------------------------------------------------- */
static enum thp_mode mode = THP_NORMAL;
static const char *const mode_names[] = {
	[THP_NORMAL] = "normal",
	[THP_EVERY_OTHER] = "every-other",
	[THP_OFF] = "off",
};

/* ---- Public Functions ----------------------------------------------------- */
bool thp_set(const char *value)
{
	for (unsigned m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(value, mode_names[m]))
			continue;
		if (m == THP_OFF && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
			return false;
		mode = (enum thp_mode)m;
		if (mode != THP_NORMAL)
			kprintf("  (debug: thp=%s: %s)\n", mode_names[mode],
				mode == THP_OFF ? "huge pages forbidden for the process (prctl PR_SET_THP_DISABLE)"
						: "every other 2 MiB piece of a huge-page region left to 4 KiB pages (MADV_NOHUGEPAGE)");
		return true;
	}
	return false;
}

enum thp_mode thp_mode(void)
{
	return mode;
}

const char *thp_mode_name(void)
{
	return mode_names[mode];
}

void thp_advise(void *base, uint64_t size)
{
	if (mode != THP_EVERY_OTHER)
		return;
	for (uint64_t off = PIECE; off + PIECE <= size; off += 2 * PIECE)
		if (madvise((char *)base + off, PIECE, MADV_NOHUGEPAGE) != 0)
			console_error("first-touch", "thp=every-other: MADV_NOHUGEPAGE refused");
}

bool thp_forbidden(void)
{
	return prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0;
}

const char *thp_cause(void)
{
	if (mode == THP_EVERY_OTHER)
		return "thp=every-other (debug) left every other 2 MiB piece to 4 KiB pages";
	if (thp_forbidden())
		return "transparent huge pages are disabled for this process (prctl PR_SET_THP_DISABLE)";
	return "Linux fell back to 4 KiB pages (no free 2 MiB page: fragmentation, or the defrag setting)";
}
