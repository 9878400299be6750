/* thp.h - the twin's transparent huge pages: the debug key thp= (huge pages forbidden, or every other 2 MiB piece left to 4 KiB pages) and what may have made Linux fall back. */
#ifndef QB_TWIN_THP_H
#define QB_TWIN_THP_H

#include <stdbool.h>
#include <stdint.h>

enum thp_mode {
	THP_NORMAL,        /* as Linux gives them */
	THP_EVERY_OTHER,   /* MADV_NOHUGEPAGE on every other 2 MiB piece of a huge-page region: half its faults fall back */
	THP_OFF,           /* prctl(PR_SET_THP_DISABLE) for the process: every fault falls back */
};

#define THP_KEY "thp"
#define THP_VALID "normal every-other off"

/* Take thp=value (the twin's own debug key, never the kernel's): false on a
 * value that is none of THP_VALID, or when Linux refuses the prctl. */
bool thp_set(const char *value);

/* The mode set (THP_NORMAL unless thp= said otherwise). */
enum thp_mode thp_mode(void);

/* Its name, as thp= takes it. */
const char *thp_mode_name(void);

/* After MADV_HUGEPAGE on a 2 MiB-aligned range: with thp=every-other,
 * MADV_NOHUGEPAGE on its odd 2 MiB pieces (no-op otherwise). */
void thp_advise(void *base, uint64_t size);

/* Whether transparent huge pages are forbidden to this process
 * (PR_GET_THP_DISABLE: thp=off, or whoever started it): then every fault
 * of a region that asks for them is served with 4 KiB pages. */
bool thp_forbidden(void);

/* What may have made a fault fall back to 4 KiB, in words: the debug key,
 * this process's PR_GET_THP_DISABLE, or Linux's own choice. */
const char *thp_cause(void);

#endif
