/* smaps.c - smaps.h: /proc/PID/smaps read a mapping at a time, and the 2 MiB pages it proves (Documentation/filesystems/proc.rst). */
#include "smaps.h"
#include <stdlib.h>
#include <string.h>
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define LINE_LEN 256
#define KIB 1024ull
#define PAGE_2M (2ull << 20)

/* ---- Private Functions ---------------------------------------------------- */
/* One line into buf, the rest of a longer one (a long path) dropped; false at the end. */
static bool read_line(FILE *f, char *buf, size_t len)
{
	if (!fgets(buf, (int)len, f))
		return false;
	if (!strchr(buf, '\n')) {
		int c;
		while ((c = fgetc(f)) != EOF && c != '\n')
			;
	}
	return true;
}

/* A mapping's header, "start-end perms offset dev inode [path]" in
 * lower-case hex: its range. A field line begins with a capital letter. */
static bool header(const char *line, uint64_t *start, uint64_t *end)
{
	if (!((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')))
		return false;
	char *p;
	*start = strtoull(line, &p, 16);
	if (*p != '-')
		return false;
	*end = strtoull(p + 1, &p, 16);
	return *p == ' ' && *end > *start;
}

/* The bytes of a "Name:   N kB" line, if it is name's; else 0. */
static uint64_t field(const char *line, const char *name)
{
	size_t len = strlen(name);
	return strncmp(line, name, len) ? 0 : strtoull(line + len, 0, 10) * KIB;
}

/* ---- Public Functions ----------------------------------------------------- */
void smaps_begin(struct smaps_reader *rd, FILE *f)
{
	*rd = (struct smaps_reader){ .f = f };
}

bool smaps_next(struct smaps_reader *rd, struct smaps_vma *v)
{
	char line[LINE_LEN];
	while (!rd->ahead) {
		if (!read_line(rd->f, line, sizeof(line)))
			return false;
		rd->ahead = header(line, &rd->start, &rd->end);
	}
	*v = (struct smaps_vma){ .start = rd->start, .end = rd->end };
	rd->ahead = false;
	while (read_line(rd->f, line, sizeof(line))) {
		if (header(line, &rd->start, &rd->end)) {
			rd->ahead = true;
			break;
		}
		v->anon_huge += field(line, "AnonHugePages:");
		v->hugetlb += field(line, "Private_Hugetlb:") + field(line, "Shared_Hugetlb:");
	}
	return true;
}

uint64_t smaps_prove_huge(FILE *f, uint64_t base, uint64_t n, bool hugetlb, bool *whole, uint64_t *huge_bytes)
{
	uint64_t lo = base, hi = base + n * PAGE_2M, next = 0, kept = 0;
	struct smaps_reader rd;
	struct smaps_vma v;
	*huge_bytes = 0;
	smaps_begin(&rd, f);
	while (next < n && smaps_next(&rd, &v)) {
		if (v.end <= lo || v.start >= hi)
			continue;
		uint64_t from = MAX(v.start, lo), to = MIN(v.end, hi);
		/* The pages wholly inside this mapping; one that is not is in no single mapping, so not 2 MiB. */
		uint64_t first = MAX((from - base + PAGE_2M - 1) / PAGE_2M, next), last = (to - base) / PAGE_2M;
		for (; next < first; next++)
			whole[next] = false;
		if (first >= last)
			continue;
		uint64_t cand = 0;
		for (uint64_t i = first; i < last; i++)
			cand += whole[i];
		/* Bytes of the mapping outside the range may hold huge pages of a merged neighbour. */
		uint64_t huge = hugetlb ? v.hugetlb : v.anon_huge, outside = (v.end - v.start) - (to - from);
		uint64_t proven = huge > outside ? MIN(huge - outside, (last - first) * PAGE_2M) : 0;
		bool ok = proven >= cand * PAGE_2M;
		for (uint64_t i = first; i < last; i++) {
			whole[i] = whole[i] && ok;
			kept += whole[i];
		}
		*huge_bytes += proven;
		next = last;
	}
	for (; next < n; next++)
		whole[next] = false;
	return kept;
}
