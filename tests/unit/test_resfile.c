/* test_resfile.c - host tests for kernel/lib/resfile.c: the header and end sector tools/mkimage writes (captures from a built image) parse, formatted ones parse back to the same fields, and every damaged field is refused with its reason. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "resfile.h"

#define FIXTURE "tests/fixtures/resfile/results.log.hdr"
#define FIXTURE_END "tests/fixtures/resfile/results.log.end"

static bool read_file(const char *path, char *buf, size_t cap, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	*n = fread(buf, 1, cap, f);
	fclose(f);
	return true;
}

static struct resfile_hdr sample(void)
{
	struct resfile_hdr h = { .id = "0123456789abcdef", .file = "results.log", .offset = 1150976, .length = 4u << 20,
				  .used = 1234, .boot = "00000000deadbeef" };
	return h;
}

TEST(mkimage_header_parses)
{
	char buf[1024];
	size_t n = 0;
	CHECK(read_file(FIXTURE, buf, sizeof(buf), &n));
	CHECK_EQ_U(n, RESFILE_HDR_BYTES);
	struct resfile_hdr h;
	const char *why = "unset";
	CHECK(resfile_parse(buf, n, &h, &why));
	CHECK(why == NULL);
	CHECK_EQ_U(strlen(h.id), RESFILE_ID_LEN);
	CHECK_STR(h.file, "results.log");
	CHECK_EQ_U(h.offset % 512, 0);
	CHECK(h.offset >= 1u << 20); /* inside the FAT partition, which starts at 1 MiB */
	CHECK_EQ_U(h.length, 4u << 20);
	CHECK_EQ_U(h.used, 0);
	/* The kernel's writer gives the same bytes for the same fields. */
	char again[RESFILE_HDR_BYTES];
	CHECK(resfile_format(again, sizeof(again), &h));
	CHECK(memcmp(again, buf, RESFILE_HDR_BYTES) == 0);
}

TEST(format_parses_back)
{
	struct resfile_hdr h = sample(), back;
	char buf[RESFILE_HDR_BYTES];
	const char *why;
	CHECK(resfile_format(buf, sizeof(buf), &h));
	CHECK(buf[RESFILE_HDR_BYTES - 1] == RESFILE_PAD);
	CHECK(resfile_parse(buf, sizeof(buf), &back, &why));
	CHECK_STR(back.id, h.id);
	CHECK_STR(back.file, h.file);
	CHECK_EQ_U(back.offset, h.offset);
	CHECK_EQ_U(back.length, h.length);
	CHECK_EQ_U(back.used, h.used);
	h.used = UINT64_MAX / 2; /* 19 digits: still fixed width */
	h.length = UINT64_MAX / 2 + 1 + 2 * RESFILE_HDR_BYTES; /* whole sectors, room for header and end */
	CHECK(resfile_format(buf, sizeof(buf), &h));
	CHECK(resfile_parse(buf, sizeof(buf), &back, &why));
	CHECK_EQ_U(back.used, h.used);
}

/* The loader writes its mark in place: the offset it finds is the digits' own. */
TEST(boot_mark_offset)
{
	char buf[RESFILE_HDR_BYTES];
	struct resfile_hdr h = sample(), back;
	const char *why;
	CHECK(resfile_format(buf, sizeof(buf), &h));
	size_t at = resfile_boot_offset(buf, sizeof(buf));
	CHECK(at > 0 && at + RESFILE_ID_LEN < RESFILE_HDR_BYTES);
	CHECK(memcmp(buf + at, "00000000deadbeef", RESFILE_ID_LEN) == 0);
	memcpy(buf + at, "0123456789abcdef", RESFILE_ID_LEN);
	CHECK(resfile_parse(buf, sizeof(buf), &back, &why));
	CHECK_STR(back.boot, "0123456789abcdef");
	CHECK_EQ_U(back.used, h.used); /* nothing else moved */
	CHECK_EQ_U(resfile_boot_offset("QuietBench results file v1\nid=x\n", 31), 0);
}

TEST(format_refuses_bad_fields)
{
	char buf[RESFILE_HDR_BYTES];
	struct resfile_hdr h = sample();
	CHECK(!resfile_format(buf, sizeof(buf) - 1, &h));
	h.id[3] = 0;
	CHECK(!resfile_format(buf, sizeof(buf), &h));
	h = sample();
	h.file[0] = 0;
	CHECK(!resfile_format(buf, sizeof(buf), &h));
}

/* Overwrite the first occurrence of what with with, same length. */
static void damage(char *buf, const char *what, const char *with)
{
	char *p = strstr(buf, what);
	CHECK(p != NULL);
	if (p)
		memcpy(p, with, strlen(with));
}

TEST(damaged_headers_are_refused_with_a_reason)
{
	static const struct {
		const char *what, *with, *why;
	} cases[] = {
		{ "QuietBench", "QuietBanch", "not a QuietBench results file (no magic line)" },
		{ "id=0123", "id=0G23", "bad id line" },
		{ "id=", "ix=", "bad id line" },
		{ "file=", "fil =", "bad file line" },
		{ "offset=0", "offset=x", "bad offset line" },
		{ "length=", "lenght=", "bad length line" },
		{ "used=00", "used=0-", "bad used line" },
		{ "offset=00000000000001150976", "offset=00000000000001150977", "offset or length not whole sectors" },
		{ "used=00000000000000001234", "used=99999999999999999999", "bad used line" },
		{ "used=00000000000000001234", "used=00000000000004194304", "used runs past the end of the log" },
		{ "used=00000000000000001234", "used=00000000000004193281", "used runs past the end of the log" },
		{ "length=00000000000004194304", "length=00000000000000001024", "length leaves no room for a log" },
		{ "boot=00000000dead", "boot=00000000DEAD", "bad boot line" },
		{ "boot=", "bood=", "bad boot line" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[RESFILE_HDR_BYTES + 1];
		struct resfile_hdr h = sample(), out;
		CHECK(resfile_format(buf, sizeof(buf), &h));
		buf[RESFILE_HDR_BYTES] = 0;
		damage(buf, cases[i].what, cases[i].with);
		const char *why = 0;
		CHECK(!resfile_parse(buf, RESFILE_HDR_BYTES, &out, &why));
		CHECK_STR(why, cases[i].why);
	}
	char buf[RESFILE_HDR_BYTES];
	struct resfile_hdr h = sample(), out;
	const char *why;
	CHECK(resfile_format(buf, sizeof(buf), &h));
	CHECK(!resfile_parse(buf, RESFILE_HDR_BYTES - 1, &out, &why));
	CHECK_STR(why, "shorter than a header");
}

TEST(mkimage_end_parses)
{
	char buf[1024], hdr[1024], again[RESFILE_HDR_BYTES];
	size_t n = 0, hn = 0;
	CHECK(read_file(FIXTURE_END, buf, sizeof(buf), &n));
	CHECK(read_file(FIXTURE, hdr, sizeof(hdr), &hn));
	CHECK_EQ_U(n, RESFILE_HDR_BYTES);
	struct resfile_end e;
	struct resfile_hdr h;
	const char *why = "unset";
	CHECK(resfile_end_parse(buf, n, &e, &why));
	CHECK(why == NULL);
	CHECK_STR(e.file, "results.log");
	CHECK_STR(e.boot, "0000000000000000");
	CHECK_EQ_U(strlen(e.id), RESFILE_ID_LEN);
	/* The kernel's writer gives mkimage's bytes for the same fields; the
	 * header's parser refuses an end sector and the other way round. */
	CHECK(resfile_parse(hdr, hn, &h, &why));
	memcpy(h.id, e.id, sizeof(h.id));
	CHECK(resfile_end_format(again, sizeof(again), &h));
	CHECK(memcmp(again, buf, RESFILE_HDR_BYTES) == 0);
	CHECK(!resfile_parse(buf, n, &h, &why));
	CHECK(!resfile_end_parse(hdr, hn, &e, &why));
	CHECK_STR(why, "has no end sector (made by an older tools/mkimage, or damaged: rebuild the stick)");
	/* The loader marks it where it marks the header. */
	size_t at = resfile_boot_offset(buf, n);
	CHECK(at > 0);
	memcpy(buf + at, "0123456789abcdef", RESFILE_ID_LEN);
	CHECK(resfile_end_parse(buf, n, &e, &why));
	CHECK_STR(e.boot, "0123456789abcdef");
}

TEST(damaged_ends_are_refused_with_a_reason)
{
	static const struct {
		const char *what, *with, *why;
	} cases[] = {
		{ "end v1", "end v2", "has no end sector (made by an older tools/mkimage, or damaged: rebuild the stick)" },
		{ "id=0123", "id=0G23", "bad id line in its end sector" },
		{ "file=", "fil =", "bad file line in its end sector" },
		{ "boot=00000000dead", "boot=00000000DEAD", "bad boot line in its end sector" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[RESFILE_HDR_BYTES + 1];
		struct resfile_hdr h = sample();
		struct resfile_end out;
		CHECK(resfile_end_format(buf, sizeof(buf), &h));
		buf[RESFILE_HDR_BYTES] = 0;
		damage(buf, cases[i].what, cases[i].with);
		const char *why = 0;
		CHECK(!resfile_end_parse(buf, RESFILE_HDR_BYTES, &out, &why));
		CHECK_STR(why, cases[i].why);
	}
	struct resfile_hdr h = sample();
	char buf[RESFILE_HDR_BYTES];
	h.boot[2] = 0;
	CHECK(!resfile_end_format(buf, sizeof(buf), &h));
}

int main(void)
{
	RUN(mkimage_header_parses);
	RUN(format_parses_back);
	RUN(format_refuses_bad_fields);
	RUN(boot_mark_offset);
	RUN(damaged_headers_are_refused_with_a_reason);
	RUN(mkimage_end_parses);
	RUN(damaged_ends_are_refused_with_a_reason);
	return check_summary("resfile");
}
