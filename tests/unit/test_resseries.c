/* test_resseries.c - host tests for a series of boots on the stick (issue 37): the series and options lines of a series log's header (captures from a QEMU series and from tools/mkimage, the longest line that fits, every damaged field refused), series= read as the kernel's parser reads it, the plan (kernel/lib/resseries.c) for every state the logs can be in, and a series written as the kernel writes it (kernel/lib/reswrite.c) on a disk in memory, with the power cut after each write of a boot in turn: the boots before it stay whole, the plan is that boot again, and the series then ends whole. */
#include <stdio.h>
#include <stdlib.h>

#include "boot_info.h"
#include "check.h"
#include "options.h"
#include "resfile.h"
#include "resseries.h"
#include "reswrite.h"

#define CAPTURE_KERNEL "tests/fixtures/resfile/series-02.log.hdr"
#define CAPTURE_MKIMAGE "tests/fixtures/resfile/series-07.log.hdr"
#define NLOGS 5
#define LOG0_AT (16u * 1024)
#define FILE_BYTES (64u * 1024)
#define DISK_BYTES (LOG0_AT + NLOGS * FILE_BYTES + 16u * 1024)
#define CHUNK (16u * 1024)
#define ID "0123456789abcdef"

/* ---- Helpers -------------------------------------------------------------- */
static bool read_file(const char *path, char *buf, size_t cap, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	*n = fread(buf, 1, cap, f);
	fclose(f);
	return true;
}

static struct resfile_hdr series_hdr(uint32_t k, const char *series, uint32_t of, bool done, uint32_t tries)
{
	struct resfile_hdr h = { .id = ID, .offset = LOG0_AT + (k - 1) * FILE_BYTES, .length = FILE_BYTES,
				 .boot = "00000000deadbeef" };
	snprintf(h.file, sizeof(h.file), "%02u.log", k);
	if (series) {
		snprintf(h.series, sizeof(h.series), "%s", series);
		h.series_boot = k;
		h.series_of = of;
		h.series_done = done;
		h.series_try = tries;
		h.used = 4096;
		snprintf(h.options, sizeof(h.options), "series=%u profile=quick", of);
	}
	return h;
}

/* A stick's series logs, all empty (as tools/mkimage makes them). */
static void fresh(struct resfile_hdr *logs, uint32_t n)
{
	for (uint32_t k = 1; k <= n; k++)
		logs[k - 1] = series_hdr(k, NULL, 0, false, 0);
}

/* ---- The header's series lines -------------------------------------------- */
TEST(captures_parse_and_format_back)
{
	char buf[1024], again[RESFILE_HDR_BYTES];
	size_t n = 0;
	struct resfile_hdr h;
	const char *why = "unset";
	CHECK(read_file(CAPTURE_KERNEL, buf, sizeof(buf), &n));
	CHECK_EQ_U(n, RESFILE_HDR_BYTES);
	CHECK(resfile_parse(buf, n, &h, &why));
	CHECK_STR(h.file, "02.log");
	CHECK_EQ_U(strlen(h.series), RESFILE_ID_LEN);
	CHECK_EQ_U(h.series_boot, 2);
	CHECK_EQ_U(h.series_of, 3);
	CHECK(h.series_done);
	CHECK_EQ_U(h.series_try, 1);
	CHECK_STR(h.options, "series=3 workloads=selftest profile=quick finish=qemu");
	CHECK(h.used > 0);
	CHECK(resfile_format(again, sizeof(again), &h));
	CHECK(memcmp(again, buf, RESFILE_HDR_BYTES) == 0);
	CHECK(read_file(CAPTURE_MKIMAGE, buf, sizeof(buf), &n));
	CHECK(resfile_parse(buf, n, &h, &why));
	CHECK_STR(h.file, "07.log");
	CHECK_EQ_U(h.series[0], 0);
	CHECK_EQ_U(h.used, 0);
	CHECK(resfile_format(again, sizeof(again), &h));
	CHECK(memcmp(again, buf, RESFILE_HDR_BYTES) == 0);
}

TEST(longest_series_header_fits)
{
	char buf[RESFILE_HDR_BYTES];
	struct resfile_hdr h = series_hdr(20, "fedcba9876543210", 20, true, RESFILE_SERIES_MAX), back;
	const char *why;
	snprintf(h.file, sizeof(h.file), "%.*s", RESFILE_NAME_MAX, "a-long-name.log-and-more");
	memset(h.options, 'o', RESFILE_OPTIONS_MAX);
	h.options[RESFILE_OPTIONS_MAX] = 0;
	h.options[5] = ' ';
	h.used = UINT64_MAX / 4;
	h.length = UINT64_MAX / 2 + 1;
	CHECK(resfile_format(buf, sizeof(buf), &h));
	CHECK(resfile_parse(buf, sizeof(buf), &back, &why));
	CHECK_STR(back.series, h.series);
	CHECK_EQ_U(back.series_boot, 20);
	CHECK_EQ_U(back.series_of, 20);
	CHECK_EQ_U(back.series_try, RESFILE_SERIES_MAX);
	CHECK(back.series_done);
	CHECK_STR(back.options, h.options);
	CHECK_EQ_U(resfile_boot_offset(buf, sizeof(buf)) > 0, 1);
	/* What cannot be written is refused, not cut. */
	struct resfile_hdr bad = h;
	bad.options[RESFILE_OPTIONS_MAX] = 'o';
	bad.options[RESFILE_OPTIONS_MAX - 1] = 'o';
	CHECK(!resfile_format(buf, sizeof(buf), &bad));   /* too long: the NUL is past the field */
	bad = h;
	bad.options[3] = '\n';
	CHECK(!resfile_format(buf, sizeof(buf), &bad));
	bad = h;
	bad.series_boot = 21;
	CHECK(!resfile_format(buf, sizeof(buf), &bad));
	bad = h;
	bad.series_try = 0;
	CHECK(!resfile_format(buf, sizeof(buf), &bad));
	bad = h;
	bad.series[0] = 'F';
	CHECK(!resfile_format(buf, sizeof(buf), &bad));
}

static void damage(char *buf, const char *what, const char *with)
{
	char *p = strstr(buf, what);
	CHECK(p != NULL);
	if (p)
		memcpy(p, with, strlen(with));
}

TEST(damaged_series_lines_are_refused)
{
	static const struct {
		const char *what, *with, *why;
	} cases[] = {
		{ "series=fedc", "series=FEDC", "bad series line" },
		{ " boot 02", " boot x2", "bad series line" },
		{ " boot 02 of 05", " boot 07 of 05", "bad series line (a boot past the series' last)" },
		{ " of 05", " of 00", "bad series line" },
		{ "running", "runnin!", "bad series line (neither running nor done)" },
		{ "try 3", "try 0", "bad series line" },
		{ "try 3", "tri 3", "bad series line" },
		{ "options=", "option =", "bad options line" },
		{ "series=5 profile", "series=5\x01profile", "bad options line" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[RESFILE_HDR_BYTES + 1];
		struct resfile_hdr h = series_hdr(2, "fedcba9876543210", 5, false, 3), out;
		CHECK(resfile_format(buf, sizeof(buf), &h));
		buf[RESFILE_HDR_BYTES] = 0;
		damage(buf, cases[i].what, cases[i].with);
		const char *why = 0;
		CHECK(!resfile_parse(buf, RESFILE_HDR_BYTES, &out, &why));
		CHECK_STR(why, cases[i].why);
	}
}

/* ---- series= and the options kept ------------------------------------------ */
TEST(asked_is_the_last_good_word)
{
	CHECK_EQ_U(resseries_asked(""), 0);
	CHECK_EQ_U(resseries_asked(NULL), 0);
	CHECK_EQ_U(resseries_asked("profile=quick series=3"), 3);
	CHECK_EQ_U(resseries_asked("\\quietbench.efi series=20 finish=halt"), 20);
	CHECK_EQ_U(resseries_asked("series=3 series=5"), 5);
	CHECK_EQ_U(resseries_asked("series=5 series=x"), 0);   /* the last wins: the kernel calls it bad */
	CHECK_EQ_U(resseries_asked("series=1"), 0);
	CHECK_EQ_U(resseries_asked("series=21"), 0);
	CHECK_EQ_U(resseries_asked("series="), 0);
	CHECK_EQ_U(resseries_asked("series=99999"), 0);
	CHECK_EQ_U(resseries_asked("xseries=5 myseries=4"), 0);
	CHECK_EQ_U(resseries_asked("series=05\t"), 5);
}

/* The loader's reading of series= is the kernel's parser's: the same N, or none where the kernel refuses it. */
TEST(asked_agrees_with_the_options_parser)
{
	static const char *const lines[] = {
		"series=2", "series=20", "series=1", "series=21", "series=0", "series=x", "series=", "series=3 series=7",
		"series=7 series=1", "/quietbench.efi profile=quick series=5", "series=05", "reps=3 series=12 finish=halt",
		"profile=quick", "",
	};
	static const char *const wl[] = { "selftest" };
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct options o;
		struct opt_error e[4];
		int bad = options_parse(lines[i], wl, 1, &o, e, 4);
		uint32_t want = bad ? 0 : o.series;
		if (resseries_asked(lines[i]) != want)
			printf("  \"%s\": the loader reads %u, the kernel %u (%d errors)\n", lines[i],
			       resseries_asked(lines[i]), o.series, bad);
		CHECK_EQ_U(resseries_asked(lines[i]), want);
		CHECK(o.series == 0 || (o.series >= OPT_SERIES_MIN && o.series <= OPT_SERIES_MAX));
	}
	CHECK_EQ_U(OPT_SERIES_MIN, RESSERIES_MIN);
	CHECK_EQ_U(OPT_SERIES_MAX, RESSERIES_MAX);
	CHECK_EQ_U(BOOT_SERIES_MAX, RESSERIES_MAX);     /* boot_info.h's room for the logs */
}

TEST(options_leave_out_the_program)
{
	char out[RESFILE_OPTIONS_MAX + 1], small[8];
	CHECK(resseries_options("  /quietbench.efi series=3\tprofile=quick \r\n", out, sizeof(out)));
	CHECK_STR(out, "series=3 profile=quick");
	CHECK(resseries_options("series=3", out, sizeof(out)));
	CHECK_STR(out, "series=3");
	CHECK(resseries_options("QUIETBENCH.EFI", out, sizeof(out)));
	CHECK_STR(out, "");
	CHECK(resseries_options("a.efi=1 series=2", out, sizeof(out)));   /* a key, not the program */
	CHECK_STR(out, "a.efi=1 series=2");
	CHECK(!resseries_options("series=3 profile=quick", small, sizeof(small)));
}

/* ---- The plan ------------------------------------------------------------ */
TEST(plan_fresh_stick)
{
	struct resfile_hdr logs[RESSERIES_MAX];
	struct resseries_plan p;
	fresh(logs, RESSERIES_MAX);
	resseries_plan(logs, RESSERIES_MAX, 0, "1111111111111111", "profile=quick", &p);
	CHECK_EQ_U(p.action, RESSERIES_NONE);
	resseries_plan(logs, RESSERIES_MAX, 5, "1111111111111111", "/quietbench.efi series=5  profile=quick", &p);
	CHECK_EQ_U(p.action, RESSERIES_NEW);
	CHECK_EQ_U(p.boot, 1);
	CHECK_EQ_U(p.of, 5);
	CHECK_EQ_U(p.tries, 1);
	CHECK(!p.again);
	CHECK_STR(p.id, "1111111111111111");
	CHECK_STR(p.options, "series=5 profile=quick");
	CHECK_EQ_U(p.empty, 0);
	resseries_plan(logs, RESSERIES_MAX, 20, "1111111111111111", "series=20", &p);
	CHECK_EQ_U(p.action, RESSERIES_NEW);
	CHECK_EQ_U(p.of, 20);
}

TEST(plan_refuses_what_the_stick_cannot_keep)
{
	struct resfile_hdr logs[RESSERIES_MAX];
	struct resseries_plan p;
	char longer[RESFILE_OPTIONS_MAX + 20];
	fresh(logs, 3);
	resseries_plan(logs, 3, 5, "1111111111111111", "series=5", &p);
	CHECK_EQ_U(p.action, RESSERIES_REFUSE);
	CHECK_STR(p.why, "the stick has fewer series logs than series= asks for: rebuild it with tools/mkimage");
	resseries_plan(logs, 0, 5, "1111111111111111", "series=5", &p);
	CHECK_EQ_U(p.action, RESSERIES_REFUSE);
	CHECK_STR(p.why, "the stick has no /quietbench/series/ logs (made by an older tools/mkimage: rebuild it)");
	resseries_plan(logs, 0, 0, "1111111111111111", "", &p);
	CHECK_EQ_U(p.action, RESSERIES_NONE);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	memcpy(longer, "series=3 ", 9);
	fresh(logs, RESSERIES_MAX);
	resseries_plan(logs, RESSERIES_MAX, 3, "1111111111111111", longer, &p);
	CHECK_EQ_U(p.action, RESSERIES_REFUSE);
	CHECK(strstr(p.why, "longer than the 200 bytes") != NULL);
}

TEST(plan_continues_a_series_under_way)
{
	struct resfile_hdr logs[RESSERIES_MAX];
	struct resseries_plan p;
	fresh(logs, RESSERIES_MAX);
	logs[0] = series_hdr(1, "aaaaaaaaaaaaaaaa", 5, true, 1);
	logs[1] = series_hdr(2, "aaaaaaaaaaaaaaaa", 5, true, 2);
	/* GRUB's default entry: other options, no series= */
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "profile=full", &p);
	CHECK_EQ_U(p.action, RESSERIES_CONTINUE);
	CHECK_EQ_U(p.boot, 3);
	CHECK_EQ_U(p.of, 5);
	CHECK_EQ_U(p.tries, 1);
	CHECK(!p.again);
	CHECK_STR(p.id, "aaaaaaaaaaaaaaaa");
	CHECK_STR(p.options, "series=5 profile=quick");
	CHECK(p.other_options);
	CHECK(p.why == NULL);
	CHECK_EQ_U(p.empty, 0);
	/* The same options: nothing to replace, nothing to say. */
	resseries_plan(logs, RESSERIES_MAX, 5, "2222222222222222", "series=5 profile=quick", &p);
	CHECK_EQ_U(p.boot, 3);
	CHECK(!p.other_options);
	CHECK(p.why == NULL);
	/* Another series= waits for this one. */
	resseries_plan(logs, RESSERIES_MAX, 3, "2222222222222222", "series=3", &p);
	CHECK_EQ_U(p.action, RESSERIES_CONTINUE);
	CHECK_EQ_U(p.of, 5);
	CHECK(p.why != NULL);
}

TEST(plan_runs_a_cut_boot_again)
{
	struct resfile_hdr logs[RESSERIES_MAX];
	struct resseries_plan p;
	fresh(logs, RESSERIES_MAX);
	logs[0] = series_hdr(1, "aaaaaaaaaaaaaaaa", 3, true, 1);
	logs[1] = series_hdr(2, "aaaaaaaaaaaaaaaa", 3, false, 2);  /* started twice, cut twice */
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.action, RESSERIES_CONTINUE);
	CHECK_EQ_U(p.boot, 2);
	CHECK(p.again);
	CHECK_EQ_U(p.tries, 3);
	CHECK_EQ_U(p.empty, 0);
	/* Boot 1 itself cut: it runs again, and the logs of an older series are emptied. */
	logs[0] = series_hdr(1, "bbbbbbbbbbbbbbbb", 2, false, 1);
	logs[1] = series_hdr(2, "aaaaaaaaaaaaaaaa", 3, true, 1);
	logs[2] = series_hdr(3, "aaaaaaaaaaaaaaaa", 3, true, 1);
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.action, RESSERIES_CONTINUE);
	CHECK_EQ_U(p.boot, 1);
	CHECK_EQ_U(p.of, 2);
	CHECK(p.again);
	CHECK_EQ_U(p.empty, 0x6);
	/* A log of another series where the next boot goes: written over, not again. */
	logs[0] = series_hdr(1, "bbbbbbbbbbbbbbbb", 3, true, 1);
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.boot, 2);
	CHECK(!p.again);
	CHECK_EQ_U(p.tries, 1);
	CHECK_EQ_U(p.empty, 0x4);
	/* The try count stops at its most. */
	logs[1] = series_hdr(2, "bbbbbbbbbbbbbbbb", 3, false, RESFILE_SERIES_MAX);
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.tries, RESFILE_SERIES_MAX);
}

TEST(plan_after_a_whole_series)
{
	struct resfile_hdr logs[RESSERIES_MAX];
	struct resseries_plan p;
	fresh(logs, RESSERIES_MAX);
	for (uint32_t k = 1; k <= 4; k++)
		logs[k - 1] = series_hdr(k, "aaaaaaaaaaaaaaaa", 4, true, 1);
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "series=4 profile=quick", &p);
	CHECK_EQ_U(p.action, RESSERIES_NONE);    /* whole: GRUB's default entry runs as usual */
	resseries_plan(logs, RESSERIES_MAX, 2, "2222222222222222", "series=2", &p);
	CHECK_EQ_U(p.action, RESSERIES_NEW);     /* a new series over it: every other log of the old one emptied */
	CHECK_STR(p.id, "2222222222222222");
	CHECK_EQ_U(p.empty, 0xe);
	/* A damaged first log (a series line that is not boot 1, N too large): no series. */
	logs[0].series_boot = 2;
	logs[0].series_of = 4;
	resseries_plan(logs, RESSERIES_MAX, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.action, RESSERIES_NONE);
	logs[0] = series_hdr(1, "aaaaaaaaaaaaaaaa", 4, false, 1);
	resseries_plan(logs, 3, 0, "2222222222222222", "", &p);
	CHECK_EQ_U(p.action, RESSERIES_NONE);    /* of 4 on a stick of 3 logs */
}

/* ---- A series on a disk, the power cut after each write ------------------- */
struct disk {
	uint8_t bytes[DISK_BYTES];
	uint32_t bs;
	unsigned writes;                 /* done so far */
	unsigned cut_after;              /* the power goes after this many writes (~0: never) */
	uint32_t kept;                   /* logs no write may touch (bit i: log i + 1) */
	uint32_t header_only;            /* logs only whose header block may be written */
	const char *bad;                 /* the first rule a write broke */
};

static struct disk base, d;
static uint8_t chunk[CHUNK];

static bool disk_rw(void *ctx, bool write, uint64_t at, uint32_t n, void *buf)
{
	struct disk *k = ctx;
	if (at % k->bs || n % k->bs || !n || at + n > DISK_BYTES)
		return false;
	if (!write) {
		memcpy(buf, k->bytes + at, n);
		return true;
	}
	if (k->writes >= k->cut_after)
		return false;                    /* the power is gone: nothing more lands */
	k->writes++;
	for (uint32_t i = 0; i < NLOGS; i++) {
		uint64_t f = LOG0_AT + i * FILE_BYTES;
		if (at + n <= f || at >= f + FILE_BYTES)
			continue;
		if (k->kept >> i & 1)
			k->bad = k->bad ? k->bad : "a write into a log the series keeps";
		else if ((k->header_only >> i & 1) && (at != f || n != k->bs))
			k->bad = k->bad ? k->bad : "a write into an emptied log past its header";
		else if (at + n > f + FILE_BYTES - k->bs)
			k->bad = k->bad ? k->bad : "a write into a log's end sector";
	}
	if (at < LOG0_AT || at + n > LOG0_AT + NLOGS * FILE_BYTES)
		k->bad = k->bad ? k->bad : "a write outside the series logs";
	memcpy(k->bytes + at, buf, n);
	return true;
}

static void make_stick(uint32_t bs)
{
	memset(&base, 0, sizeof(base));
	memset(base.bytes, 0xa5, sizeof(base.bytes));
	base.bs = bs;
	base.cut_after = ~0u;
	for (uint32_t k = 1; k <= NLOGS; k++) {
		struct resfile_hdr h = series_hdr(k, NULL, 0, false, 0);
		uint8_t *p = base.bytes + h.offset;
		memset(p, RESFILE_PAD, FILE_BYTES);
		resfile_format((char *)p, RESFILE_HDR_BYTES, &h);
		resfile_end_format((char *)p + FILE_BYTES - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, &h);
	}
}

static void headers(const struct disk *k, struct resfile_hdr *logs)
{
	const char *why;
	for (uint32_t i = 0; i < NLOGS; i++)
		CHECK(resfile_parse((const char *)k->bytes + LOG0_AT + i * FILE_BYTES, RESFILE_HDR_BYTES, &logs[i], &why));
}

/* What a boot writes: "boot k start t line i" lines, in three saves. */
static size_t boot_text(uint32_t k, uint32_t t, char *out, size_t cap)
{
	out[0] = 0;
	for (int i = 0; i < 40; i++)
		snprintf(out + strlen(out), cap - strlen(out), "boot %u start %u line %02d\r\n", k, t, i);
	snprintf(out + strlen(out), cap - strlen(out), "@qb {\"kind\":\"done\",\"boot\":%u}\r\n", k);
	return strlen(out);
}

/* One boot as the loader plans it and the kernel writes it; false where the power went. */
static bool boot_once(struct disk *k, uint32_t asked, const char *mark, const char *cmdline, struct resseries_plan *p)
{
	static struct resfile_hdr logs[NLOGS], stale[NLOGS];
	static char text[4096];
	struct reswrite w;
	headers(k, logs);
	resseries_plan(logs, NLOGS, asked, mark, cmdline, p);
	if (p->action != RESSERIES_NEW && p->action != RESSERIES_CONTINUE)
		return true;
	uint32_t n_stale = 0;
	k->kept = k->header_only = 0;
	for (uint32_t i = 0; i < NLOGS; i++) {
		if (p->empty >> i & 1) {
			stale[n_stale++] = logs[i];
			k->header_only |= 1u << i;
		} else if (i + 1 != p->boot) {
			k->kept |= 1u << i;
		}
	}
	struct resfile_hdr mine = logs[p->boot - 1];
	if (!reswrite_init(&w, disk_rw, k, k->bs, chunk, CHUNK, &mine, &mine))
		return false;
	memcpy(w.log.series, p->id, sizeof(w.log.series));
	w.log.series_boot = p->boot;
	w.log.series_of = p->of;
	w.log.series_try = p->tries;
	memcpy(w.log.options, p->options, sizeof(w.log.options));
	if (!reswrite_series_begin(&w, stale, n_stale))
		return false;
	size_t n = boot_text(p->boot, p->tries, text, sizeof(text));
	return reswrite_save(&w, text, n / 3) && reswrite_save(&w, text, 2 * n / 3) &&
	       reswrite_series_end(&w, text, n);
}

/* Log k reads exactly boot k's text (start t) and says done. */
static bool log_is(const struct disk *k, uint32_t boot, uint32_t t, const char *series)
{
	static char want[4096], got[FILE_BYTES];
	struct resfile_hdr h;
	const char *why;
	const char *p = (const char *)k->bytes + LOG0_AT + (boot - 1) * FILE_BYTES;
	if (!resfile_parse(p, RESFILE_HDR_BYTES, &h, &why) || !h.series_done || strcmp(h.series, series) ||
	    h.series_boot != boot || h.series_try != t)
		return false;
	size_t n = 0;
	for (uint64_t i = 0; i < h.used; i++)          /* the log without its padding */
		if (p[RESFILE_HDR_BYTES + i] != '\n' || (i && p[RESFILE_HDR_BYTES + i - 1] == '\r'))
			got[n++] = p[RESFILE_HDR_BYTES + i];
	got[n] = 0;
	boot_text(boot, t, want, sizeof(want));
	return !strcmp(got, want);
}

/* Boots 1 .. 3 of a series; the power cut after each write of boot 2 in turn;
 * then the stick booted again, from GRUB's default entry (no series=). */
static void cut_in_boot_2(uint32_t bs)
{
	static struct disk after1, ref;
	struct resseries_plan p;
	unsigned bad = 0, runs = 0;
	make_stick(bs);
	memcpy(&after1, &base, sizeof(base));
	CHECK(boot_once(&after1, 3, "aaaaaaaaaaaaaaaa", "/quietbench.efi series=3 profile=quick", &p));
	CHECK_EQ_U(p.action, RESSERIES_NEW);
	CHECK(log_is(&after1, 1, 1, "aaaaaaaaaaaaaaaa"));
	memcpy(&ref, &after1, sizeof(ref));
	ref.writes = 0;
	CHECK(boot_once(&ref, 0, "bbbbbbbbbbbbbbbb", "profile=full", &p));
	CHECK_EQ_U(p.boot, 2);
	CHECK(ref.bad == NULL);
	for (unsigned c = 0; c <= ref.writes; c++) {
		memcpy(&d, &after1, sizeof(d));
		d.writes = 0;
		d.cut_after = c;
		bool whole = boot_once(&d, 0, "bbbbbbbbbbbbbbbb", "profile=full", &p);
		d.cut_after = ~0u;
		/* Boot 1 is whole, and the plan is boot 2 again (the same boot, if its header was written). */
		struct resseries_plan again;
		struct resfile_hdr logs[NLOGS];
		headers(&d, logs);
		resseries_plan(logs, NLOGS, 0, "cccccccccccccccc", "profile=full", &again);
		bool ok = log_is(&d, 1, 1, "aaaaaaaaaaaaaaaa") && !d.bad;
		if (c < ref.writes)
			ok = ok && !whole && again.action == RESSERIES_CONTINUE && again.boot == 2 &&
			     again.again == (c > 0) && again.tries == (c > 0 ? 2u : 1u) &&
			     !strcmp(again.options, "series=3 profile=quick");
		/* The rest of the series, unattended: boot 2 (again) and boot 3; then nothing more. */
		bool rest = boot_once(&d, 0, "dddddddddddddddd", "profile=full", &p) &&
			    boot_once(&d, 0, "eeeeeeeeeeeeeeee", "profile=full", &p) && p.boot == 3 &&
			    boot_once(&d, 0, "ffffffffffffffff", "profile=full", &p) && p.action == RESSERIES_NONE;
		uint32_t t2 = c > 0 && c < ref.writes ? 2 : 1;
		if (c == ref.writes)
			rest = p.action == RESSERIES_NONE;   /* boot 2 whole: boot 3 ran in the rest */
		ok = ok && rest && log_is(&d, 1, 1, "aaaaaaaaaaaaaaaa") && log_is(&d, 2, t2, "aaaaaaaaaaaaaaaa") &&
		     log_is(&d, 3, 1, "aaaaaaaaaaaaaaaa") && !d.bad;
		if (!ok && !bad) {
			bad = c + 1;
			printf("  %u-byte blocks, cut after write %u of %u: %s\n", bs, c, ref.writes, d.bad ? d.bad : "");
		}
		runs++;
	}
	CHECK_EQ_U(bad, 0);        /* 1 + the first cut after which the series did not end whole */
	CHECK(runs > 6);
}

/* A new series over a whole older one, the power cut after each write of its
 * first boot: before its log's header the old series is as it was; after it,
 * the new series' boot 1 runs again, and the old logs are emptied by the end. */
static void cut_in_a_new_series(uint32_t bs)
{
	static struct disk old, ref;
	struct resseries_plan p;
	unsigned bad = 0;
	make_stick(bs);
	memcpy(&old, &base, sizeof(base));
	CHECK(boot_once(&old, 4, "aaaaaaaaaaaaaaaa", "series=4", &p));
	for (int i = 0; i < 3; i++)
		CHECK(boot_once(&old, 0, "aaaaaaaaaaaaaaaa", "", &p));
	CHECK(log_is(&old, 4, 1, "aaaaaaaaaaaaaaaa"));
	memcpy(&ref, &old, sizeof(ref));
	ref.writes = 0;
	CHECK(boot_once(&ref, 2, "bbbbbbbbbbbbbbbb", "series=2", &p));
	CHECK_EQ_U(p.action, RESSERIES_NEW);
	CHECK_EQ_U(p.empty, 0xe);
	CHECK(ref.bad == NULL);
	for (unsigned c = 0; c <= ref.writes; c++) {
		struct resfile_hdr logs[NLOGS];
		struct resseries_plan next;
		memcpy(&d, &old, sizeof(d));
		d.writes = 0;
		d.cut_after = c;
		boot_once(&d, 2, "bbbbbbbbbbbbbbbb", "series=2", &p);
		d.cut_after = ~0u;
		headers(&d, logs);
		resseries_plan(logs, NLOGS, 0, "cccccccccccccccc", "", &next);
		bool ok = !d.bad;
		if (c == 0)
			ok = ok && next.action == RESSERIES_NONE && log_is(&d, 4, 1, "aaaaaaaaaaaaaaaa");
		else if (c < ref.writes)
			ok = ok && next.action == RESSERIES_CONTINUE && next.boot == 1 && next.of == 2 && next.again;
		else
			ok = ok && next.action == RESSERIES_CONTINUE && next.boot == 2;
		if (c > 0) {
			while (ok && next.action == RESSERIES_CONTINUE) {
				ok = boot_once(&d, 0, "dddddddddddddddd", "", &next);
				headers(&d, logs);
				resseries_plan(logs, NLOGS, 0, "eeeeeeeeeeeeeeee", "", &next);
			}
			headers(&d, logs);
			ok = ok && log_is(&d, 1, c < ref.writes ? 2 : 1, "bbbbbbbbbbbbbbbb") &&
			     log_is(&d, 2, 1, "bbbbbbbbbbbbbbbb") && !d.bad;
			for (uint32_t i = 2; i < 4; i++)           /* the old series' logs: empty, no series line */
				ok = ok && !logs[i].used && !logs[i].series[0];
		}
		if (!ok && !bad) {
			bad = c + 1;
			printf("  %u-byte blocks, cut after write %u of %u: %s\n", bs, c, ref.writes, d.bad ? d.bad : "");
		}
	}
	CHECK_EQ_U(bad, 0);
}

TEST(power_cut_in_boot_2_512) { cut_in_boot_2(512); }
TEST(power_cut_in_boot_2_4096) { cut_in_boot_2(4096); }
TEST(power_cut_in_a_new_series_512) { cut_in_a_new_series(512); }
TEST(power_cut_in_a_new_series_4096) { cut_in_a_new_series(4096); }

int main(void)
{
	RUN(captures_parse_and_format_back);
	RUN(longest_series_header_fits);
	RUN(damaged_series_lines_are_refused);
	RUN(asked_is_the_last_good_word);
	RUN(asked_agrees_with_the_options_parser);
	RUN(options_leave_out_the_program);
	RUN(plan_fresh_stick);
	RUN(plan_refuses_what_the_stick_cannot_keep);
	RUN(plan_continues_a_series_under_way);
	RUN(plan_runs_a_cut_boot_again);
	RUN(plan_after_a_whole_series);
	RUN(power_cut_in_boot_2_512);
	RUN(power_cut_in_boot_2_4096);
	RUN(power_cut_in_a_new_series_512);
	RUN(power_cut_in_a_new_series_4096);
	return check_summary("resseries");
}
