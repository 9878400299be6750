/* fuzz_json.h - a strict JSON reader (RFC 8259, ASCII only) for the record harness, independent of kernel/: a line read back as a flat list of events.
 *
 * fuzz_record.c builds the events it expects from the record calls it made
 * and compares them with what this reader finds in the line the encoder wrote. */
#ifndef QB_TESTS_FUZZ_JSON_H
#define QB_TESTS_FUZZ_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define FUZZ_JSON_MAX_DEPTH 64         /* deeper nesting is refused */

/* One JSON value, in document order; a container's members follow it and a FUZZ_JSON_END closes it. */
enum fuzz_json_type {
	FUZZ_JSON_OBJ, FUZZ_JSON_ARR, FUZZ_JSON_END, FUZZ_JSON_STR, FUZZ_JSON_NUM,
	FUZZ_JSON_TRUE, FUZZ_JSON_FALSE, FUZZ_JSON_NULL
};

struct fuzz_json_event {
	enum fuzz_json_type type;
	bool has_key;                  /* an object's member */
	const char *key;               /* not NUL-terminated */
	size_t key_len;
	const char *val;               /* STR: the decoded bytes; NUM: the number's text */
	size_t val_len;
};

/* Where a parse puts its events and its strings' decoded bytes; the caller owns both arrays. */
struct fuzz_json_out {
	struct fuzz_json_event *ev;
	unsigned ev_cap, n_ev;
	char *text;
	size_t text_cap, text_len;
};

/*
 * Read s[0..n) as exactly one object with only whitespace around it into
 * out, whose n_ev and text_len it sets from 0. A \u escape must name a byte (the
 * encoder writes \u00XX). False if s is not such an object, nests deeper
 * than FUZZ_JSON_MAX_DEPTH or has more than ev_cap events; aborts if the
 * decoded strings overflow text.
 */
bool fuzz_json_parse(const char *s, size_t n, struct fuzz_json_out *out);

/* Abort (FUZZ_ASSERT) unless the two event lists are equal: types, keys and values. */
void fuzz_json_same(const struct fuzz_json_event *want, unsigned n_want,
		    const struct fuzz_json_event *got, unsigned n_got);

#endif
