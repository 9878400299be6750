/* reswrite.c - the results files' writes, in whole blocks and in power-loss order; see reswrite.h for the layout and the order. */
#include "reswrite.h"
#include "lib.h"

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* The log's end in the file (a byte offset), for a header's used. */
static uint64_t log_end(const struct reswrite *w, const struct resfile_hdr *h)
{
	return round_up(RESFILE_HDR_BYTES + h->used, w->bs);
}

/* The first byte past the log area: the end sector's block. */
static uint64_t log_limit(const struct reswrite *w, const struct resfile_hdr *h)
{
	return h->length - w->bs;
}

static bool fail(struct reswrite *w, const char *why)
{
	w->why = why;
	return false;
}

/* h's header and newlines to the end of its block. */
static bool write_header(struct reswrite *w, const struct resfile_hdr *h, const char *why)
{
	if (!resfile_format((char *)w->chunk, w->chunk_bytes, h))
		return fail(w, why);
	memset(w->chunk + RESFILE_HDR_BYTES, RESFILE_PAD, w->bs - RESFILE_HDR_BYTES);
	return w->rw(w->ctx, true, h->offset, w->bs, w->chunk) || fail(w, why);
}

/* Newlines over the file's bytes [from, to) (both on blocks). */
static bool clear(struct reswrite *w, const struct resfile_hdr *h, uint64_t from, uint64_t to, const char *why)
{
	memset(w->chunk, RESFILE_PAD, w->chunk_bytes);
	for (uint64_t at = from; at < to; at += w->chunk_bytes) {
		uint32_t n = (uint32_t)MIN(to - at, (uint64_t)w->chunk_bytes);
		if (!w->rw(w->ctx, true, h->offset + at, n, w->chunk))
			return fail(w, why);
	}
	return true;
}

static bool whole_blocks(uint64_t x, uint32_t bs)
{
	return x % bs == 0;
}

/* ---- Public Functions ----------------------------------------------------- */
bool reswrite_init(struct reswrite *w, reswrite_rw_fn rw, void *ctx, uint32_t bs, uint8_t *chunk,
		   uint32_t chunk_bytes, const struct resfile_hdr *log, const struct resfile_hdr *prev)
{
	memset(w, 0, sizeof(*w));
	w->rw = rw;
	w->ctx = ctx;
	w->bs = bs;
	w->chunk = chunk;
	w->chunk_bytes = chunk_bytes;
	w->log = *log;
	w->prev = *prev;
	if (bs < RESFILE_HDR_BYTES || (bs & (bs - 1)) || !chunk || chunk_bytes < bs || !whole_blocks(chunk_bytes, bs))
		return fail(w, "the stick's block size is not one this writer handles");
	const struct resfile_hdr *h[2] = { log, prev };
	for (int i = 0; i < 2; i++) {
		if (!whole_blocks(h[i]->offset, bs) || !whole_blocks(h[i]->length, bs))
			return fail(w, "a results file does not start and end on the stick's blocks");
		if (h[i]->length < 3 * (uint64_t)bs)
			return fail(w, "a results file has no room for a log in the stick's blocks");
	}
	return true;
}

uint64_t reswrite_room(const struct reswrite *w)
{
	return log_limit(w, &w->log) - w->bs;
}

bool reswrite_start(struct reswrite *w)
{
	w->log.used = 0;
	w->text_saved = 0;
	w->full = false;
	return write_header(w, &w->log, "results.log's header could not be written");
}

bool reswrite_keep_previous(struct reswrite *w)
{
	uint64_t bs = w->bs;
	if (!w->log.used)
		return reswrite_start(w);
	/* What to keep: results.log's log, as far as results.prev has room. */
	uint64_t old_log = MIN(log_end(w, &w->log), log_limit(w, &w->log));
	uint64_t old_prev = MIN(log_end(w, &w->prev), log_limit(w, &w->prev));
	uint64_t end = MIN(old_log, log_limit(w, &w->prev));
	/* 1. results.prev empty before its data is replaced. */
	w->prev.used = 0;
	if (!write_header(w, &w->prev, "results.prev's header could not be written"))
		return false;
	/* 2. The log's blocks into results.prev, then the rest of its older log cleared. */
	for (uint64_t at = bs; at < end; at += w->chunk_bytes) {
		uint32_t k = (uint32_t)MIN(end - at, (uint64_t)w->chunk_bytes);
		if (!w->rw(w->ctx, false, w->log.offset + at, k, w->chunk) ||
		    !w->rw(w->ctx, true, w->prev.offset + at, k, w->chunk))
			return fail(w, "the previous log could not be copied into results.prev");
	}
	if (old_prev > end && !clear(w, &w->prev, end, old_prev, "results.prev could not be cleared"))
		return false;
	/* 3. results.prev holds it from here. */
	w->prev.used = MIN(w->log.used, end - RESFILE_HDR_BYTES);
	if (!write_header(w, &w->prev, "results.prev's header could not be written"))
		return false;
	/* 4. results.log empty, then its old log cleared. */
	if (!reswrite_start(w))
		return false;
	return clear(w, &w->log, bs, old_log, "results.log could not be cleared");
}

bool reswrite_empty(struct reswrite *w)
{
	uint64_t old_log = MIN(log_end(w, &w->log), log_limit(w, &w->log));
	bool had = w->log.used != 0;
	if (!reswrite_start(w))
		return false;
	return !had || clear(w, &w->log, w->bs, old_log, "results.log could not be cleared");
}

bool reswrite_put_header(struct reswrite *w, const struct resfile_hdr *h)
{
	if (!whole_blocks(h->offset, w->bs) || h->length < 3 * (uint64_t)w->bs)
		return fail(w, "a results file does not start and end on the stick's blocks");
	return write_header(w, h, "a series log's header could not be written");
}

bool reswrite_save(struct reswrite *w, const char *text, size_t n)
{
	uint64_t bs = w->bs, at = log_end(w, &w->log), limit = log_limit(w, &w->log);
	if (n <= w->text_saved || w->full)
		return true;
	uint64_t left = n - w->text_saved, room = limit > at ? limit - at : 0;
	if (left > room) {
		left = room / bs * bs;           /* whole blocks of what fits; the rest is dropped */
		w->full = true;
	}
	/* The new text into the blocks after `used`, the last one padded. */
	for (uint64_t done = 0; done < left;) {
		uint64_t k = MIN(round_up(left - done, bs), (uint64_t)w->chunk_bytes);
		uint64_t have = MIN(k, left - done);
		memcpy(w->chunk, text + w->text_saved + done, have);
		memset(w->chunk + have, RESFILE_PAD, k - have);
		if (!w->rw(w->ctx, true, w->log.offset + at, (uint32_t)k, w->chunk))
			return fail(w, "results.log could not be written");
		at += k;
		done += have;
	}
	w->text_saved += left;
	if (w->full)
		w->text_saved = n;
	if (!left)
		return true;
	/* Only then the header's used: the save is committed. */
	w->log.used = at - RESFILE_HDR_BYTES;
	return write_header(w, &w->log, "results.log's header could not be written");
}

bool reswrite_series_begin(struct reswrite *w, struct resfile_hdr *stale, uint32_t n_stale)
{
	w->log.series_done = false;
	if (!reswrite_empty(w))
		return false;
	for (uint32_t i = 0; i < n_stale; i++) {
		stale[i].used = 0;
		stale[i].series[0] = 0;
		stale[i].series_boot = stale[i].series_of = stale[i].series_try = 0;
		stale[i].series_done = false;
		stale[i].options[0] = 0;
		if (!reswrite_put_header(w, &stale[i]))
			return false;
	}
	return true;
}

bool reswrite_series_end(struct reswrite *w, const char *text, size_t n)
{
	w->log.series_done = true;
	uint64_t used = w->log.used;
	if (!reswrite_save(w, text, n))
		return false;
	/* Nothing new to save, or a log already full: the header alone says done. */
	return w->log.used != used || write_header(w, &w->log, "results.log's header could not be written");
}
