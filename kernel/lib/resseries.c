/* resseries.c - the plan of a boot of a series, from the series logs' headers; see resseries.h. No library calls: the UEFI loader links it as it is. */
#include "resseries.h"

/* ---- Constants ------------------------------------------------------------ */
#define PROGRAM_SUFFIX ".efi"          /* a first word naming the program (kernel/run/options.c skips it) */
#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

/* ---- Private Functions ---------------------------------------------------- */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static void copy(char *dst, const char *src, size_t cap)
{
	size_t n = 0;
	for (; src[n] && n + 1 < cap; n++)
		dst[n] = src[n];
	dst[n] = 0;
}

/* Log i + 1 holds boot i + 1 of this series (whether done or still running). */
static bool of_series(const struct resfile_hdr *h, const char *id, uint32_t boot, uint32_t of)
{
	return h->series[0] && same(h->series, id) && h->series_boot == boot && h->series_of == of;
}

/* The series log 01 names, if it is one this stick can hold: its N, else 0. */
static uint32_t series_of_first(const struct resfile_hdr *logs, uint32_t n)
{
	const struct resfile_hdr *h = n ? &logs[0] : 0;
	if (!h || !h->series[0] || h->series_boot != 1 || h->series_of < RESSERIES_MIN || h->series_of > RESSERIES_MAX ||
	    h->series_of > n)
		return 0;
	return h->series_of;
}

/* The logs to empty before this boot writes its own: every one with a log
 * or a series line but this boot's and the series' boots done before it. */
static uint32_t stale_logs(const struct resfile_hdr *logs, uint32_t n, const struct resseries_plan *p)
{
	uint32_t mask = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct resfile_hdr *h = &logs[i];
		bool kept = i + 1 < p->boot && of_series(h, p->id, i + 1, p->of) && h->series_done;
		if (i + 1 != p->boot && !kept && (h->used || h->series[0]))
			mask |= 1u << i;
	}
	return mask;
}

/* ---- Public Functions ----------------------------------------------------- */
uint32_t resseries_asked(const char *cmdline)
{
	uint32_t asked = 0;
	size_t kl = sizeof(RESSERIES_KEY) - 1;
	for (const char *p = cmdline; p && *p;) {
		while (*p && blank(*p))
			p++;
		const char *w = p;
		while (*p && !blank(*p))
			p++;
		size_t len = (size_t)(p - w), k = 0;
		while (k < kl && k < len && w[k] == RESSERIES_KEY[k])
			k++;
		if (k != kl)
			continue;
		/* The last series= word wins, as in the kernel's parser; a bad one means not asked. */
		uint32_t v = 0;
		bool digits = len > kl && len - kl <= 4;
		for (size_t i = kl; digits && i < len; i++) {
			digits = w[i] >= '0' && w[i] <= '9';
			v = v * 10 + (uint32_t)(w[i] - '0');
		}
		asked = digits && v >= RESSERIES_MIN && v <= RESSERIES_MAX ? v : 0;
	}
	return asked;
}

bool resseries_options(const char *cmdline, char *out, size_t cap)
{
	const char *p = cmdline ? cmdline : "", *end;
	while (*p && blank(*p))
		p++;
	/* The program's own path first (GRUB's chainloader passes it). */
	const char *w = p;
	bool eq = false;
	while (*p && !blank(*p))
		eq |= *p++ == '=';
	size_t len = (size_t)(p - w), sl = sizeof(PROGRAM_SUFFIX) - 1;
	bool prog = !eq && len >= sl;
	for (size_t k = 0; prog && k < sl; k++)
		prog = (w[len - sl + k] | 0x20) == PROGRAM_SUFFIX[k];
	if (!prog)
		p = w;
	while (*p && blank(*p))
		p++;
	for (end = p; *end; end++)
		;
	while (end > p && blank(end[-1]))
		end--;
	/* Words one space apart. */
	size_t n = 0;
	for (; p < end; p++) {
		if (blank(*p) && blank(p[-1]))
			continue;
		if (n + 1 >= cap)
			return false;
		out[n++] = blank(*p) ? ' ' : *p;
	}
	if (!cap)
		return false;
	out[n] = 0;
	return true;
}

void resseries_plan(const struct resfile_hdr *logs, uint32_t n, uint32_t asked, const char *mark, const char *cmdline,
		    struct resseries_plan *p)
{
	struct resseries_plan zero = { 0 };
	*p = zero;
	p->action = RESSERIES_NONE;
	uint32_t of = series_of_first(logs, n);
	for (uint32_t k = 1; of && k <= of && p->action == RESSERIES_NONE; k++) {
		const struct resfile_hdr *h = &logs[k - 1];
		bool mine = of_series(h, logs[0].series, k, of);
		if (mine && h->series_done)
			continue;
		/* The first boot of the series not done: next, again if it was started. */
		p->action = RESSERIES_CONTINUE;
		p->boot = k;
		p->of = of;
		p->again = mine;
		p->tries = mine ? (h->series_try < RESFILE_SERIES_MAX ? h->series_try + 1 : RESFILE_SERIES_MAX) : 1;
		copy(p->id, logs[0].series, sizeof(p->id));
		copy(p->options, logs[0].options, sizeof(p->options));
		char mine_now[RESFILE_OPTIONS_MAX + 1];
		p->other_options = !resseries_options(cmdline, mine_now, sizeof(mine_now)) || !same(mine_now, p->options);
		if (asked && p->other_options)
			p->why = "a series is under way on this stick: its next boot runs, with its own options, before "
				 "series= can start another";
	}
	if (p->action == RESSERIES_NONE && asked) {
		if (asked > n) {
			p->action = RESSERIES_REFUSE;
			p->why = n ? "the stick has fewer series logs than series= asks for: rebuild it with tools/mkimage"
				   : "the stick has no /quietbench/series/ logs (made by an older tools/mkimage: rebuild it)";
			return;
		}
		if (!resseries_options(cmdline, p->options, sizeof(p->options))) {
			p->action = RESSERIES_REFUSE;
			p->why = "the command line is longer than the " NUMBER(RESFILE_OPTIONS_MAX) " bytes a series "
				 "log's header keeps: shorten qb_options in /quietbench.cfg";
			return;
		}
		p->action = RESSERIES_NEW;
		p->boot = 1;
		p->of = asked;
		p->tries = 1;
		copy(p->id, mark, sizeof(p->id));
	}
	if (p->action == RESSERIES_NEW || p->action == RESSERIES_CONTINUE)
		p->empty = stale_logs(logs, n, p);
}
