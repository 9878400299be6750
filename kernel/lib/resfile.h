/* resfile.h - the header and end sector of a results file on the boot stick (/quietbench/results.log and results.prev): 512 bytes of text each that tools/mkimage writes, the UEFI loader finds and the kernel checks before it writes a byte.
 *
 * The header is the file's first sector, lines of text so that a person who
 * opens the file sees what it is:
 *
 *   QuietBench results file v1
 *   id=<16 hex digits: the image's, the same in both files>
 *   file=results.log                 (or results.prev)
 *   offset=<20 digits: the file's first byte on the disk>
 *   length=<20 digits: the file's bytes, header included>
 *   used=<20 digits: log bytes after the header; 0 when empty>
 *   boot=<16 hex digits: written by the loader through the file system at
 *        each boot, then looked for on the raw disk: proof that the
 *        extent is this file's own clusters, not a stale copy's>
 *   series=<16 hex digits> boot <kk> of <nn> running|done try <t>
 *                                    (only in a series log, /quietbench/series/NN.log,
 *                                    that holds a boot of a series: kernel/lib/resseries.h)
 *   options=<the series' command line>   (with the series line)
 *   # ... a comment line ...
 *
 * and newlines to the end of the sector. The log follows; what it does not
 * use is newlines too, which tools/qb parse passes over. Fixed-width numbers
 * let the kernel rewrite `used` in place.
 *
 * The file's last sector is its end, never part of the log:
 *
 *   QuietBench results file end v1
 *   id=<the header's>
 *   file=<the header's>
 *   boot=<16 hex digits: the loader's mark, as in the header>
 *   # ... a comment line ...
 *
 * The loader marks both, so the raw disk shows where the file's first and
 * last sectors really are (boot/efi_resfile.h). Where the kernel puts the
 * log between them, and in what order it writes, is kernel/lib/reswrite.h.
 * Plain C, no state: compiled into the kernel, the UEFI loader and the host
 * tests. */
#ifndef QB_KERNEL_RESFILE_H
#define QB_KERNEL_RESFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RESFILE_HDR_BYTES 512           /* the header, and the end sector */
#define RESFILE_MAGIC "QuietBench results file v1\n"
#define RESFILE_END_MAGIC "QuietBench results file end v1\n"
#define RESFILE_ID_LEN 16
#define RESFILE_NAME_MAX 15
#define RESFILE_OPTIONS_MAX 200         /* a series' command line, kept in its logs' headers */
#define RESFILE_SERIES_MAX 99           /* the most boots, and starts of one boot, a series line can say */
#define RESFILE_PAD '\n'

struct resfile_hdr {
	char id[RESFILE_ID_LEN + 1];      /* lowercase hex */
	char file[RESFILE_NAME_MAX + 1];  /* "results.log" or "results.prev" */
	uint64_t offset;                  /* disk byte of the header's first byte */
	uint64_t length;                  /* bytes, header included: a multiple of 512 */
	uint64_t used;                    /* log bytes after the header */
	char boot[RESFILE_ID_LEN + 1];    /* the loader's mark for this boot, lowercase hex */
	/* A series log's boot (kernel/lib/resseries.h); series[0] is 0 in every other header. */
	char series[RESFILE_ID_LEN + 1];  /* the series' id, lowercase hex */
	uint32_t series_boot, series_of;  /* this log holds boot series_boot of series_of */
	uint32_t series_try;              /* that boot's starts so far: 1, more after a cut */
	bool series_done;                 /* the boot reached its end: its log holds its done record */
	char options[RESFILE_OPTIONS_MAX + 1]; /* the series' command line, printable ASCII */
};

/* The end sector's fields. */
struct resfile_end {
	char id[RESFILE_ID_LEN + 1];
	char file[RESFILE_NAME_MAX + 1];
	char boot[RESFILE_ID_LEN + 1];
};

/* The most log bytes a file of length bytes holds: all but its header and end. */
#define RESFILE_LOG_MAX(length) ((length) - 2 * RESFILE_HDR_BYTES)

#define RESFILE_BOOT_KEY "boot="        /* the boot mark's line */

/* Parse the n bytes at buf (at least RESFILE_HDR_BYTES) into *out. False
 * with *why saying what is wrong: not a results file, a bad field, a length
 * that is not whole sectors or too short for a header, an end and a log, a
 * `used` that runs into the end sector, or a bad series or options line. */
bool resfile_parse(const char *buf, size_t n, struct resfile_hdr *out, const char **why);

/* Where the boot mark's digits start in a header or an end sector (0: none). */
size_t resfile_boot_offset(const char *buf, size_t n);

/* Exactly RESFILE_HDR_BYTES bytes of header for h into buf (cap at least
 * that), with the series and options lines when h->series is set. False if
 * h cannot be written (bad id, name, series line or options). */
bool resfile_format(char *buf, size_t cap, const struct resfile_hdr *h);

/* Parse an end sector (n bytes at buf, at least RESFILE_HDR_BYTES). False
 * with *why: not an end sector, or a bad field. */
bool resfile_end_parse(const char *buf, size_t n, struct resfile_end *out, const char **why);

/* Exactly RESFILE_HDR_BYTES bytes of end sector for h's id, file and boot
 * mark into buf (cap at least that). False if h cannot be written. */
bool resfile_end_format(char *buf, size_t cap, const struct resfile_hdr *h);

#endif
