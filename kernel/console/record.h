/* record.h - the "@qb {JSON} CRC" lines QuietBench prints (JSON per RFC 8259, CRC-32 per crc32.h). */
#ifndef QB_KERNEL_RECORD_H
#define QB_KERNEL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A record line is  @qb {JSON} xxxxxxxx  : the prefix, one JSON object, and
 * the CRC-32 of the object's exact text ('{' to '}') as 8 lowercase hex
 * digits, single spaces between, no trailing space or newline. The object
 * always begins with "v" (QB_RECORD_VERSION) and "kind". Lines are pure
 * printable ASCII: string bytes outside 0x20..0x7e are written as \u00XX.
 */
#define QB_RECORD_VERSION 1
#define REC_PREFIX "@qb "
#define REC_MAX_DEPTH 8        /* open containers, the record's own object included */
#define REC_MAX_DECIMALS 17    /* rec_f64 clamps its decimals to 0..this */

/* A record being built into a caller's buffer; never mallocs. */
struct rec {
	char *buf;                     /* the caller's buffer */
	size_t cap;                    /* its size in bytes, NUL included */
	size_t len;                    /* bytes written so far */
	bool overflow;                 /* buf was too small: finish fails */
	bool invalid;                  /* misuse (bad key, nesting): finish fails */
	bool done;                     /* rec_finish has run */
	uint8_t depth;                 /* containers open, 1 = the record object */
	bool first[REC_MAX_DEPTH];     /* nothing written yet at this level */
	bool is_array[REC_MAX_DEPTH];  /* this level is an array, not an object */
};

/* Start a record in buf: writes  @qb {"v":1,"kind":"KIND"  (kind not NULL). */
void rec_begin(struct rec *r, char *buf, size_t cap, const char *kind);

/*
 * Members. In an object key must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*);
 * in an array it must be NULL. Anything else marks the record invalid.
 */

/* An unsigned integer member. */
void rec_u64(struct rec *r, const char *key, uint64_t v);

/* A signed integer member. */
void rec_i64(struct rec *r, const char *key, int64_t v);

/* true or false. */
void rec_bool(struct rec *r, const char *key, bool v);

/* null. */
void rec_null(struct rec *r, const char *key);

/* A NUL-terminated string, JSON-escaped (NULL writes null). */
void rec_str(struct rec *r, const char *key, const char *s);

/* At most n bytes of s, stopping at a NUL (fixed fields such as ACPI OEM IDs). */
void rec_strn(struct rec *r, const char *key, const char *s, size_t n);

/* The string "0x..." in lowercase hex, e.g. for addresses and MSR values. */
void rec_hex(struct rec *r, const char *key, uint64_t v);

/*
 * A number with a fixed count of decimals (clamped to 0..REC_MAX_DECIMALS),
 * exactly rounded by fmt; NaN and infinities write null.
 */
void rec_f64(struct rec *r, const char *key, double v, int decimals);

/* Open a nested object; close it with rec_obj_end. */
void rec_obj_begin(struct rec *r, const char *key);

/* Close the innermost object (invalid if that is an array or the record itself). */
void rec_obj_end(struct rec *r);

/* Open a nested array; its members take key NULL. */
void rec_arr_begin(struct rec *r, const char *key);

/* Close the innermost array (invalid if that is an object). */
void rec_arr_end(struct rec *r);

/*
 * Close the record and append " %08x" (the CRC). Returns the NUL-terminated
 * line and its length in *len (may be NULL), or NULL if the buffer was too
 * small, a key was bad or nesting is unbalanced; then buf holds "" and never
 * a truncated record. A second call returns NULL and leaves buf alone.
 */
const char *rec_finish(struct rec *r, size_t *len);

/*
 * True if the len bytes at line are exactly  @qb {...} xxxxxxxx  (printable
 * ASCII, lowercase hex) and the CRC matches; *json and *json_len (either may
 * be NULL) then locate the object. The JSON grammar itself is not checked.
 */
bool rec_check_line(const char *line, size_t len, const char **json,
		    size_t *json_len);

/* The text of a top-level "key":"value" or "key":number in a record line
 * (the first occurrence: a record's own fields come before its nested ones),
 * copied into out (cap bytes with the NUL); false if absent. */
bool rec_field(const char *line, const char *key, char *out, size_t cap);

/* A result record's figure as views show it (docs/records.md): the first
 * entry of "measures", its median and unit ("1.234", "ns/increment"), and
 * whether "noisy" is set. False when the record has no measure (no TSC
 * frequency, nothing measured, or a record from before measures). */
bool rec_primary_measure(const char *line, char *median, size_t mcap, char *unit, size_t ucap, bool *noisy);

#endif
