/* smaps.h - which 2 MiB pages of a range Linux maps as one 2 MiB page, read from /proc/self/smaps (Documentation/filesystems/proc.rst, "/proc/PID/smaps").
 *
 * mincore shows that all 512 4 KiB pieces of a 2 MiB page are present, not
 * that one 2 MiB mapping holds them. smaps says it per mapping (VMA), not
 * per page: AnonHugePages, the bytes of the mapping that transparent huge
 * pages map at the page directory, 2 MiB each; a hugetlbfs mapping shows
 * its pages as Private_Hugetlb or Shared_Hugetlb instead (AnonHugePages 0).
 * MADV_NOHUGEPAGE on part of a region splits it into mappings of its own,
 * and a region may merge with a neighbour of the same flags: the proof
 * below takes both into account. */
#ifndef QB_TWIN_SMAPS_H
#define QB_TWIN_SMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SMAPS_SELF "/proc/self/smaps"

/* One mapping, as smaps gives it. A field smaps does not show reads 0. */
struct smaps_vma {
	uint64_t start, end;          /* [start, end), from its header line */
	uint64_t anon_huge;           /* AnonHugePages, bytes */
	uint64_t hugetlb;             /* Private_Hugetlb + Shared_Hugetlb, bytes */
};

/* Reading smaps text a mapping at a time: the header of the next mapping is read ahead. */
struct smaps_reader {
	FILE *f;
	bool ahead;                   /* start and end hold the next mapping's header */
	uint64_t start, end;
};

/* Start reading f (smaps' text: /proc/self/smaps, or a capture). */
void smaps_begin(struct smaps_reader *rd, FILE *f);

/* The next mapping into *v; false at the end of the text. */
bool smaps_next(struct smaps_reader *rd, struct smaps_vma *v);

/* Of the n 2 MiB pages from base (2 MiB-aligned), each with whole[i] set
 * (every 4 KiB piece present, by mincore) stays set only where smaps (f)
 * proves it one 2 MiB mapping: the page lies in one mapping, and that
 * mapping's huge bytes (AnonHugePages; the Hugetlb fields for a hugetlbfs
 * region), less its bytes outside [base, base + n x 2 MiB) (where a merged
 * neighbour's huge pages may be), cover every such page in it. Where they
 * do not, which pages are 2 MiB cannot be told, and none of that mapping's
 * is kept. Returns how many stay; *huge_bytes: the bytes proven huge. */
uint64_t smaps_prove_huge(FILE *f, uint64_t base, uint64_t n, bool hugetlb, bool *whole, uint64_t *huge_bytes);

#endif
