/* reswrite.h - the kernel's writes into the stick's two results files (kernel/lib/resfile.h), in whole disk blocks and in an order that survives a pulled plug. Plain C over a block read/write callback: the kernel passes its USB stick, the host tests a disk in memory that can lose power after any write.
 *
 * Where the bytes go, in each file (bs: the disk's block size, 512 or more):
 *   [0, 512)             the header; on a disk with larger blocks, the rest
 *                        of its block is newlines that count as log, so no
 *                        log text shares a block with the header
 *   [bs, length - bs)    the log, one save after another, each save ending on
 *                        a block boundary: its last block is padded with
 *                        newlines (which tools/qb parse passes over)
 *   [length - 512, ...)  the end sector; its block is never written
 * The header's `used` counts the log's bytes from byte 512 up to the end of
 * the last whole block written, padding included.
 *
 * The order, so that losing power after any write leaves both files as
 * tools/qb reads them (a header's `used` is believed; bytes past it are not),
 * holding a log that is whole up to its last completed save:
 *   Keeping the last run (results.log's log into results.prev):
 *     1. results.prev's header is rewritten with used = 0: it is empty, never
 *        half old and half new, while its data is replaced;
 *     2. the log's blocks are copied into results.prev, then what is left of
 *        results.prev's older, longer log is cleared;
 *     3. results.prev's header gets its new `used`: from here it is kept;
 *     4. results.log's header gets used = 0, then its old log is cleared.
 *     Power lost before 3 leaves results.log as it was: the next boot keeps
 *     it again. Power lost after 3 leaves it in results.prev.
 *   Each save: the new text goes into the blocks after `used` (never into a
 *   block `used` covers), padded to a whole block; only then does the header
 *   get the new `used`. Power lost during a save loses that save alone.
 * A block write is taken to be all or nothing, as file systems take it. */
#ifndef QB_KERNEL_RESWRITE_H
#define QB_KERNEL_RESWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "resfile.h"

/* Read or write `bytes` (whole blocks) at disk byte `at` (block-aligned). */
typedef bool (*reswrite_rw_fn)(void *ctx, bool write, uint64_t at, uint32_t bytes, void *buf);

struct reswrite {
	reswrite_rw_fn rw;
	void *ctx;
	uint32_t bs;                     /* the disk's block size */
	uint8_t *chunk;                  /* scratch: chunk_bytes, a multiple of bs */
	uint32_t chunk_bytes;
	struct resfile_hdr log, prev;    /* as on the disk after the last header write */
	uint64_t text_saved;             /* bytes of the caller's text already in the log */
	bool full;                       /* a save did not fit: what follows is not written */
	const char *why;                 /* what failed: "results.log's header", ... */
};

/* Set w up for the two files' headers (as read back from the disk). False
 * with w->why when the block size or the files' extents do not allow whole
 * blocks (not a power of two of 512 or more, larger than the chunk, or a
 * file that does not start and end on a block, or leaves no block for a log). */
bool reswrite_init(struct reswrite *w, reswrite_rw_fn rw, void *ctx, uint32_t bs, uint8_t *chunk,
		   uint32_t chunk_bytes, const struct resfile_hdr *log, const struct resfile_hdr *prev);

/* The most text results.log can take in one save. */
uint64_t reswrite_room(const struct reswrite *w);

/* Keep results.log's log in results.prev and empty results.log, in the order
 * above. Nothing to do when results.log is empty. False with w->why. */
bool reswrite_keep_previous(struct reswrite *w);

/* Empty results.log (its header's used = 0), for a run whose last log is
 * kept already or was empty. */
bool reswrite_start(struct reswrite *w);

/* Empty results.log (its header's used = 0), then clear its old log: for a
 * log that is not kept in results.prev (a series log, kernel/lib/resseries.h,
 * whose header w->log then carries its series line). */
bool reswrite_empty(struct reswrite *w);

/* Write h as the header of its file (h->offset), the rest of its block
 * newlines: for a file set up elsewhere (a series log emptied). False with
 * w->why. */
bool reswrite_put_header(struct reswrite *w, const struct resfile_hdr *h);

/* Begin a boot of a series (kernel/lib/resseries.h, which has the order):
 * w was set up with the boot's series log as its results.log, its series
 * line (id, boot, of, try; running) and options set in w->log. Its header is
 * written with used = 0 (reswrite_empty), its old log cleared, then each of
 * stale[0 .. n_stale) (the logs to empty, as read back from the stick) gets
 * used = 0 and no series line. False with w->why. */
bool reswrite_series_begin(struct reswrite *w, struct resfile_hdr *stale, uint32_t n_stale);

/* End a boot of a series: the last save of text[0, n) (the whole log, its
 * done record last), committed by a header that says done. False with
 * w->why. */
bool reswrite_series_end(struct reswrite *w, const char *text, size_t n);

/* Append text[w->text_saved, n) to results.log and commit it: the caller's
 * text is the whole log so far (n grows from save to save). What does not fit
 * is dropped and w->full set. False with w->why when a write fails. */
bool reswrite_save(struct reswrite *w, const char *text, size_t n);

#endif
