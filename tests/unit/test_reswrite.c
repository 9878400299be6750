/* test_reswrite.c - host tests for kernel/lib/reswrite.c on a disk in memory with 512- and 4096-byte blocks: every write is whole blocks inside the two files and never touches their end sectors or a block a header's `used` already covers; and with the power cut after each write in turn, both files still read as tools/qb reads them, the last run's log is always whole in one of them, and results.log holds exactly the saves completed so far. */
#define _GNU_SOURCE                      /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "resfile.h"
#include "reswrite.h"

#define DISK_BYTES (256u * 1024)
#define LOG_AT (16u * 1024)
#define PREV_AT (96u * 1024)
#define FILE_BYTES (64u * 1024)
#define CHUNK (16u * 1024)
#define MAX_WRITES 4096
#define ID "0123456789abcdef"
#define MARK "fedcba9876543210"

struct write_rec {
	uint64_t at;
	uint32_t n;
	uint8_t *data;
};

struct disk {
	uint8_t bytes[DISK_BYTES];
	uint32_t bs;
	struct write_rec w[MAX_WRITES];
	unsigned nw;
	int fail_after;                  /* writes that succeed before the disk stops answering; -1 never */
	const char *bad;                 /* the first rule a write broke */
	uint64_t log_used, prev_used;    /* the headers' used as last written, to check writes against */
};

static struct disk d0, d;
static uint8_t chunk[CHUNK];

/* ---- Helpers -------------------------------------------------------------- */
static struct resfile_hdr hdr(const char *file, uint64_t at, uint64_t used)
{
	struct resfile_hdr h = { .id = ID, .offset = at, .length = FILE_BYTES, .used = used, .boot = MARK };
	snprintf(h.file, sizeof(h.file), "%s", file);
	return h;
}

static uint64_t used_of(const struct disk *k, uint64_t at)
{
	struct resfile_hdr h;
	const char *why;
	return resfile_parse((const char *)k->bytes + at, RESFILE_HDR_BYTES, &h, &why) ? h.used : 0;
}

/* The rules every write keeps, checked as it happens. */
static void check_write(struct disk *k, uint64_t at, uint32_t n)
{
	uint64_t files[2] = { LOG_AT, PREV_AT }, used[2] = { k->log_used, k->prev_used };
	if (at % k->bs || n % k->bs || !n) {
		k->bad = k->bad ? k->bad : "a write that is not whole blocks";
		return;
	}
	for (int i = 0; i < 2; i++) {
		uint64_t f = files[i];
		if (at >= f && at < f + FILE_BYTES) {
			if (at + n > f + FILE_BYTES - k->bs)
				k->bad = k->bad ? k->bad : "a write into the end sector's block";
			/* Committed log blocks: [bs, 512 + used); the header's own block is rewritten. */
			uint64_t lo = f + k->bs, hi = f + RESFILE_HDR_BYTES + used[i];
			if (at != f && at < hi && at + n > lo)
				k->bad = k->bad ? k->bad : "a write over bytes a header's used covers";
			return;
		}
	}
	k->bad = k->bad ? k->bad : "a write outside both files";
}

static bool disk_rw(void *ctx, bool write, uint64_t at, uint32_t n, void *buf)
{
	struct disk *k = ctx;
	if (at % k->bs || n % k->bs || at + n > DISK_BYTES)
		return false;
	if (!write) {
		memcpy(buf, k->bytes + at, n);
		return true;
	}
	if (k->fail_after >= 0 && (int)k->nw >= k->fail_after)
		return false;
	check_write(k, at, n);
	if (k->nw < MAX_WRITES) {
		k->w[k->nw] = (struct write_rec){ at, n, malloc(n) };
		memcpy(k->w[k->nw].data, buf, n);
		k->nw++;
	}
	memcpy(k->bytes + at, buf, n);
	k->log_used = used_of(k, LOG_AT);
	k->prev_used = used_of(k, PREV_AT);
	return true;
}

/* A stick as tools/mkimage makes it, then a log of `old` bytes and a results.prev of `older`. */
static void make_disk(uint32_t bs, const char *old, const char *older)
{
	for (unsigned i = 0; i < d0.nw; i++)
		free(d0.w[i].data);
	memset(&d0, 0, sizeof(d0));
	memset(d0.bytes, 0xa5, sizeof(d0.bytes)); /* anything else on the disk */
	d0.bs = bs;
	d0.fail_after = -1;
	const char *text[2] = { old, older };
	uint64_t at[2] = { LOG_AT, PREV_AT };
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(text[i]);
		uint64_t used = n ? (bs - RESFILE_HDR_BYTES) + n : 0;
		struct resfile_hdr h = hdr(i ? "results.prev" : "results.log", at[i], used);
		memset(d0.bytes + at[i], RESFILE_PAD, FILE_BYTES);
		resfile_format((char *)d0.bytes + at[i], RESFILE_HDR_BYTES, &h);
		resfile_end_format((char *)d0.bytes + at[i] + FILE_BYTES - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, &h);
		memcpy(d0.bytes + at[i] + bs, text[i], n);
	}
	d0.log_used = used_of(&d0, LOG_AT);
	d0.prev_used = used_of(&d0, PREV_AT);
}

/* A file as tools/qb reads it: the header must parse as ours; then `used` bytes from 512. */
static bool view(const struct disk *k, uint64_t at, const char *file, char *out, size_t cap)
{
	struct resfile_hdr h;
	struct resfile_end e;
	const char *why;
	const char *p = (const char *)k->bytes + at;
	if (!resfile_parse(p, RESFILE_HDR_BYTES, &h, &why) || strcmp(h.file, file) || h.offset != at ||
	    h.length != FILE_BYTES || strcmp(h.id, ID) || strcmp(h.boot, MARK))
		return false;
	if (!resfile_end_parse(p + FILE_BYTES - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, &e, &why) || strcmp(e.file, file))
		return false;
	if (h.used >= cap)
		return false;
	memcpy(out, p + RESFILE_HDR_BYTES, h.used);
	out[h.used] = 0;
	return true;
}

/* What a file's log should read after saves of the given pieces: the header
 * block's newlines, then each piece padded to a whole block. */
static void expected(uint32_t bs, const char *const *pieces, int n, char *out)
{
	size_t at = 0;
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (!at) {
			memset(out, '\n', bs - RESFILE_HDR_BYTES);
			at = bs - RESFILE_HDR_BYTES;
		}
		size_t len = strlen(pieces[i]);
		memcpy(out + at, pieces[i], len);
		at += len;
		while ((at + RESFILE_HDR_BYTES) % bs)
			out[at++] = '\n';
	}
	out[at] = 0;
}

static bool run_open(struct reswrite *w, struct disk *k)
{
	struct resfile_hdr log, prev;
	const char *why;
	resfile_parse((const char *)k->bytes + LOG_AT, RESFILE_HDR_BYTES, &log, &why);
	resfile_parse((const char *)k->bytes + PREV_AT, RESFILE_HDR_BYTES, &prev, &why);
	return reswrite_init(w, disk_rw, k, k->bs, chunk, CHUNK, &log, &prev);
}

/* ---- Tests ---------------------------------------------------------------- */
/* A run: keep the last log, then three saves. Then the same writes replayed
 * with the power cut after each one. */
static void power_cut_at_every_write(uint32_t bs)
{
	static char old[3000], older[9000], text[8000], got_log[FILE_BYTES], got_prev[FILE_BYTES];
	static char want_old[FILE_BYTES], want_older[FILE_BYTES], want[4][FILE_BYTES];
	memset(old, 0, sizeof(old));
	memset(older, 0, sizeof(older));
	for (int i = 0; i < 60; i++)
		snprintf(old + strlen(old), sizeof(old) - strlen(old), "last run's line %02d\r\n", i);
	for (int i = 0; i < 400; i++)
		snprintf(older + strlen(older), sizeof(older) - strlen(older), "the run before %03d\r\n", i);
	make_disk(bs, old, older);
	/* The old log as it reads (its header's used covers the header block's newlines). */
	memset(want_old, '\n', bs - RESFILE_HDR_BYTES);
	strcpy(want_old + bs - RESFILE_HDR_BYTES, old);
	memset(want_older, '\n', bs - RESFILE_HDR_BYTES);
	strcpy(want_older + bs - RESFILE_HDR_BYTES, older);
	/* This run's text, saved in three pieces of odd lengths. */
	memset(text, 0, sizeof(text));
	for (int i = 0; i < 150; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "@qb record %03d of this run\r\n", i);
	size_t cuts[3] = { 700, 2345, strlen(text) };
	char piece[3][8000];
	const char *pieces[3] = { piece[0], piece[1], piece[2] };
	for (int i = 0; i < 3; i++) {
		size_t from = i ? cuts[i - 1] : 0;
		memcpy(piece[i], text + from, cuts[i] - from);
		piece[i][cuts[i] - from] = 0;
		expected(bs, pieces, i + 1, want[i + 1]);
	}
	want[0][0] = 0;

	memcpy(&d, &d0, sizeof(d));
	d.nw = 0;
	struct reswrite w;
	CHECK(run_open(&w, &d));
	CHECK(reswrite_keep_previous(&w));
	for (int i = 0; i < 3; i++)
		CHECK(reswrite_save(&w, text, cuts[i]));
	CHECK(d.bad == NULL);
	if (d.bad)
		printf("  %u-byte blocks: %s\n", bs, d.bad);
	CHECK(view(&d, LOG_AT, "results.log", got_log, sizeof(got_log)));
	CHECK_STR(got_log, want[3]);
	CHECK(view(&d, PREV_AT, "results.prev", got_prev, sizeof(got_prev)));
	CHECK_STR(got_prev, want_old);

	/* Replay: the disk as the power cut after write k leaves it. */
	unsigned bad_k = 0, lost_k = 0;
	for (unsigned k = 0; k <= d.nw; k++) {
		static struct disk cut;
		memcpy(cut.bytes, d0.bytes, sizeof(cut.bytes));
		for (unsigned j = 0; j < k; j++)
			memcpy(cut.bytes + d.w[j].at, d.w[j].data, d.w[j].n);
		bool lv = view(&cut, LOG_AT, "results.log", got_log, sizeof(got_log));
		bool pv = view(&cut, PREV_AT, "results.prev", got_prev, sizeof(got_prev));
		bool log_ok = lv && (!strcmp(got_log, want_old) || !strcmp(got_log, want[0]) ||
				     !strcmp(got_log, want[1]) || !strcmp(got_log, want[2]) || !strcmp(got_log, want[3]));
		bool prev_ok = pv && (!strcmp(got_prev, want_older) || !got_prev[0] || !strcmp(got_prev, want_old));
		if (!lv || !pv || !log_ok || !prev_ok)
			bad_k = bad_k ? bad_k : k + 1;
		if (!(lv && !strcmp(got_log, want_old)) && !(pv && !strcmp(got_prev, want_old)))
			lost_k = lost_k ? lost_k : k + 1;
	}
	CHECK_EQ_U(bad_k, 0);   /* 1 + the first write after which a file read wrong */
	CHECK_EQ_U(lost_k, 0);  /* 1 + the first write after which the last run's log was in neither file */
	CHECK(d.nw > 10);
	for (unsigned i = 0; i < d.nw; i++)
		free(d.w[i].data);
}

TEST(power_cut_512) { power_cut_at_every_write(512); }
TEST(power_cut_4096) { power_cut_at_every_write(4096); }

/* The order itself: results.prev's header says empty before its data changes,
 * and each save's header write comes after its data. */
TEST(headers_last_and_prev_invalidated_first)
{
	make_disk(512, "an old log\r\n", "an older log\r\n");
	memcpy(&d, &d0, sizeof(d));
	struct reswrite w;
	CHECK(run_open(&w, &d));
	CHECK(reswrite_keep_previous(&w));
	CHECK(d.nw >= 4);
	CHECK_EQ_U(d.w[0].at, PREV_AT);                    /* 1: results.prev's header ... */
	CHECK(memmem(d.w[0].data, d.w[0].n, "used=00000000000000000000\n", 26) != NULL); /* ... empty */
	CHECK_EQ_U(d.w[1].at, PREV_AT + 512);              /* 2: then its data */
	unsigned n = d.nw;
	CHECK(reswrite_save(&w, "one line\r\n", 10));
	CHECK_EQ_U(d.nw, n + 2);
	CHECK_EQ_U(d.w[n].at, LOG_AT + 512);               /* the text ... */
	CHECK_EQ_U(d.w[n + 1].at, LOG_AT);                 /* ... then the header */
	CHECK(reswrite_save(&w, "one line\r\nand another\r\n", 23));
	CHECK_EQ_U(d.w[n + 2].at, LOG_AT + 1024);          /* the next block: the first is committed */
	CHECK(d.bad == NULL);
	for (unsigned i = 0; i < d.nw; i++)
		free(d.w[i].data);
}

TEST(full_file_keeps_its_end)
{
	static char text[2 * FILE_BYTES], got[FILE_BYTES];
	memset(text, 'x', sizeof(text));
	make_disk(4096, "", "");
	memcpy(&d, &d0, sizeof(d));
	struct reswrite w;
	CHECK(run_open(&w, &d));
	CHECK(reswrite_start(&w));
	CHECK_EQ_U(reswrite_room(&w), FILE_BYTES - 2 * 4096);
	CHECK(reswrite_save(&w, text, 1000));
	CHECK(!w.full);
	CHECK(reswrite_save(&w, text, sizeof(text)));
	CHECK(w.full);
	CHECK(d.bad == NULL);
	CHECK(view(&d, LOG_AT, "results.log", got, sizeof(got)));
	CHECK_EQ_U(strlen(got), FILE_BYTES - 4096 - 512);  /* up to the end sector's block */
	unsigned n = d.nw;
	CHECK(reswrite_save(&w, text, sizeof(text)));    /* full: nothing more is written */
	CHECK_EQ_U(d.nw, n);
	for (unsigned i = 0; i < d.nw; i++)
		free(d.w[i].data);
}

TEST(failed_write_says_which)
{
	make_disk(512, "an old log\r\n", "");
	memcpy(&d, &d0, sizeof(d));
	d.fail_after = 1;
	struct reswrite w;
	CHECK(run_open(&w, &d));
	CHECK(!reswrite_keep_previous(&w));
	CHECK_STR(w.why, "the previous log could not be copied into results.prev");
	for (unsigned i = 0; i < d.nw; i++)
		free(d.w[i].data);
}

TEST(blocks_that_do_not_fit_are_refused)
{
	struct reswrite w;
	struct resfile_hdr log = hdr("results.log", LOG_AT + 512, 0), prev = hdr("results.prev", PREV_AT, 0);
	CHECK(reswrite_init(&w, disk_rw, &d, 512, chunk, CHUNK, &log, &prev));
	CHECK(!reswrite_init(&w, disk_rw, &d, 4096, chunk, CHUNK, &log, &prev));
	CHECK_STR(w.why, "a results file does not start and end on the stick's blocks");
	log.offset = LOG_AT;
	CHECK(!reswrite_init(&w, disk_rw, &d, 768, chunk, CHUNK, &log, &prev));
	CHECK(!reswrite_init(&w, disk_rw, &d, 32768, chunk, CHUNK, &log, &prev));
	log.length = 8192;
	CHECK(!reswrite_init(&w, disk_rw, &d, 4096, chunk, CHUNK, &log, &prev));
	CHECK_STR(w.why, "a results file has no room for a log in the stick's blocks");
}

int main(void)
{
	RUN(power_cut_512);
	RUN(power_cut_4096);
	RUN(headers_last_and_prev_invalidated_first);
	RUN(full_file_keeps_its_end);
	RUN(failed_write_says_which);
	RUN(blocks_that_do_not_fit_are_refused);
	return check_summary("reswrite");
}
