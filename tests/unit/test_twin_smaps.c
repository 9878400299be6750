/* test_twin_smaps.c - the twin's reading of /proc/self/smaps (tools/twin/smaps.c): the mappings of a real capture (tests/fixtures/proc/README.md), and which 2 MiB pages of a region they prove one 2 MiB mapping, where mincore alone would claim them whole. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include "check.h"
#include "smaps.h"

#define FIXTURE "tests/fixtures/proc/smaps-bhyve-turin-2cpu.txt"
#define MIB2 (2ull << 20)
#define THP_REGION 0x7f33df600000ull     /* 8 MiB, MADV_HUGEPAGE */
#define EVERY_OTHER 0x7f33dec00000ull    /* 8 MiB, the odd 2 MiB pieces MADV_NOHUGEPAGE */
#define SMALL_REGION 0x7f33de800000ull   /* 2 MiB, MADV_NOHUGEPAGE */
#define HUGETLB_REGION 0x7f33de400000ull /* 4 MiB, MAP_HUGETLB */

static FILE *fixture(void)
{
	FILE *f = fopen(FIXTURE, "r");
	CHECK(f != NULL);
	return f;
}

/* n pages of the fixture's region at base, each marked whole as mincore would (mask bit i: page i). */
static uint64_t prove(uint64_t base, uint64_t n, bool hugetlb, unsigned mask, bool *whole, uint64_t *huge)
{
	FILE *f = fixture();
	if (!f)
		return UINT64_MAX;
	for (uint64_t i = 0; i < n; i++)
		whole[i] = mask >> i & 1;
	uint64_t kept = smaps_prove_huge(f, base, n, hugetlb, whole, huge);
	fclose(f);
	return kept;
}

/* Every mapping of the capture, in order, with its fields. */
TEST(reads_every_mapping_of_a_real_capture)
{
	FILE *f = fixture();
	if (!f)
		return;
	struct smaps_reader rd;
	struct smaps_vma v;
	unsigned n = 0, thp = 0, hugetlb = 0;
	uint64_t last_end = 0, anon_huge = 0;
	smaps_begin(&rd, f);
	while (smaps_next(&rd, &v)) {
		n++;
		CHECK(v.start < v.end && v.start >= last_end);
		last_end = v.end;
		anon_huge += v.anon_huge;
		if (v.start == THP_REGION) {
			thp++;
			CHECK_EQ_U(v.end, THP_REGION + 4 * MIB2);
			CHECK_EQ_U(v.anon_huge, 8192 * 1024ull);
			CHECK_EQ_U(v.hugetlb, 0);
		}
		if (v.start == HUGETLB_REGION) { /* its header ends in a path, "/anon_hugepage (deleted)" */
			hugetlb++;
			CHECK_EQ_U(v.end, HUGETLB_REGION + 2 * MIB2);
			CHECK_EQ_U(v.hugetlb, 4096 * 1024ull);
			CHECK_EQ_U(v.anon_huge, 0);
		}
	}
	fclose(f);
	CHECK_EQ_U(n, 31);                              /* grep -c '^[0-9a-f]*-' of the file */
	CHECK_EQ_U(thp, 1);
	CHECK_EQ_U(hugetlb, 1);
	CHECK_EQ_U(anon_huge, (8192 + 2048 + 2048) * 1024ull);
	CHECK_EQ_U(last_end, 0xffffffffff601000ull);    /* [vsyscall], the last */
}

/* Transparent huge pages where every first write got 2 MiB: all four proven. */
TEST(thp_region_proven_whole)
{
	bool whole[4];
	uint64_t huge = 0;
	CHECK_EQ_U(prove(THP_REGION, 4, false, 0xf, whole, &huge), 4);
	CHECK(whole[0] && whole[1] && whole[2] && whole[3]);
	CHECK_EQ_U(huge, 4 * MIB2);
	/* Asking for its first two pages only: the rest of the mapping is outside, and may hold the huge bytes. */
	CHECK_EQ_U(prove(THP_REGION, 2, false, 0x3, whole, &huge), 2);
	CHECK_EQ_U(huge, 2 * MIB2);
}

/* thp=every-other's region: a mapping per 2 MiB piece. Were mincore to
 * show every piece present (a split page, or 512 small faults), the odd
 * pages still are not 2 MiB: their mappings have no AnonHugePages. */
TEST(every_other_keeps_only_the_huge_pieces)
{
	bool whole[4];
	uint64_t huge = 0;
	CHECK_EQ_U(prove(EVERY_OTHER, 4, false, 0xf, whole, &huge), 2);
	CHECK(whole[0] && !whole[1] && whole[2] && !whole[3]);
	CHECK_EQ_U(huge, 2 * MIB2);
	CHECK_EQ_U(prove(EVERY_OTHER, 4, false, 0x5, whole, &huge), 2); /* as mincore really shows it */
	CHECK(whole[0] && !whole[1] && whole[2] && !whole[3]);
}

/* 4 KiB pages claimed whole: nothing to prove them. */
TEST(small_pages_never_proven)
{
	bool whole[1];
	uint64_t huge = 1;
	CHECK_EQ_U(prove(SMALL_REGION, 1, false, 0x1, whole, &huge), 0);
	CHECK(!whole[0]);
	CHECK_EQ_U(huge, 0);
}

/* hugetlbfs pages show as Private_Hugetlb, never AnonHugePages. */
TEST(hugetlbfs_pages_by_their_own_fields)
{
	bool whole[4];
	uint64_t huge = 0;
	CHECK_EQ_U(prove(HUGETLB_REGION, 2, true, 0x3, whole, &huge), 2);
	CHECK(whole[0] && whole[1]);
	CHECK_EQ_U(huge, 2 * MIB2);
	CHECK_EQ_U(prove(HUGETLB_REGION, 2, false, 0x3, whole, &huge), 0); /* AnonHugePages is 0 there */
	CHECK_EQ_U(prove(THP_REGION, 4, true, 0xf, whole, &huge), 0);      /* and THP has no Hugetlb bytes */
}

/* A range smaps does not show (unmapped since): nothing proven. */
TEST(unmapped_range_proves_nothing)
{
	bool whole[2];
	uint64_t huge = 1;
	CHECK_EQ_U(prove(0x7f33e0600000ull, 2, false, 0x3, whole, &huge), 0);
	CHECK(!whole[0] && !whole[1]);
	CHECK_EQ_U(huge, 0);
}

static uint64_t prove_text(const char *text, uint64_t base, uint64_t n, unsigned mask, bool *whole)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	CHECK(f != NULL);
	if (!f)
		return UINT64_MAX;
	for (uint64_t i = 0; i < n; i++)
		whole[i] = mask >> i & 1;
	uint64_t huge;
	uint64_t kept = smaps_prove_huge(f, base, n, false, whole, &huge);
	fclose(f);
	return kept;
}

/* The region merged with a neighbour of the same flags: the neighbour's
 * bytes may hold its own huge pages, so only what exceeds them counts; and
 * where too little is left, which of the region's pages are huge cannot be
 * told, so none is kept. A page across two mappings is in neither whole. */
TEST(merged_and_split_mappings)
{
	bool whole[4];
	static const char merged[] = "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
				     "Size:               8192 kB\n"
				     "AnonHugePages:      8192 kB\n"
				     "VmFlags: rd wr mr mw me nr hg \n";
	CHECK_EQ_U(prove_text(merged, 0x7f0000400000ull, 2, 0x3, whole), 2); /* 8 MiB huge, 4 MiB of it outside */
	static const char short_of[] = "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
				       "AnonHugePages:      6144 kB\n";
	CHECK_EQ_U(prove_text(short_of, 0x7f0000400000ull, 2, 0x3, whole), 0); /* 2 MiB left for two pages */
	CHECK(!whole[0] && !whole[1]);
	static const char split[] = "7f0000000000-7f0000300000 rw-p 00000000 00:00 0 \n"
				    "AnonHugePages:      2048 kB\n"
				    "7f0000300000-7f0000800000 rw-p 00000000 00:00 0 \n"
				    "AnonHugePages:      4096 kB\n";
	CHECK_EQ_U(prove_text(split, 0x7f0000000000ull, 4, 0xf, whole), 3);
	CHECK(whole[0] && !whole[1] && whole[2] && whole[3]);
	/* A header past the line buffer (a long path): its fields still its own. */
	char longpath[1024];
	int len = snprintf(longpath, sizeof(longpath), "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 /");
	memset(longpath + len, 'x', 600);
	snprintf(longpath + len + 600, sizeof(longpath) - (size_t)len - 600, "\nAnonHugePages:      4096 kB\n");
	CHECK_EQ_U(prove_text(longpath, 0x7f0000000000ull, 2, 0x3, whole), 2);
}

int main(void)
{
	RUN(reads_every_mapping_of_a_real_capture);
	RUN(thp_region_proven_whole);
	RUN(every_other_keeps_only_the_huge_pieces);
	RUN(small_pages_never_proven);
	RUN(hugetlbfs_pages_by_their_own_fields);
	RUN(unmapped_range_proves_nothing);
	RUN(merged_and_split_mappings);
	return check_summary("twin_smaps");
}
