/* fuzz_record.c - libFuzzer harness for the record encoder's round trip (kernel/console/record.h: JSON per RFC 8259, CRC-32 per crc32.h).
 *
 * The input is a little program of record calls (format below). The harness
 * runs it into a large buffer and into an exact-size buffer of the chosen
 * capacity, and keeps a model of which programs are valid. A valid program
 * must give a line that rec_check_line() accepts and that a strict JSON
 * reader (fuzz_json.c, independent of kernel/) reads back as exactly the
 * values written; integers and hex as C's printf writes them, decimals as
 * glibc's correctly rounded %.*f. An invalid one must give NULL and an empty buffer.
 * The small buffer must hold the same line exactly when it fits.
 *
 * Program: u16 cap (0: a NULL buffer), kind as a string, then operations
 * until the input ends, each an opcode byte (mod OP_COUNT) and its operands:
 *   key     u8 length (0xff: NULL), then the bytes (a NUL inside ends the key)
 *   string  u16 length (0xffff: NULL), then the bytes
 *   u64 i64 hex   key, 8 bytes     bool  key, 1 byte      null  key
 *   str    key, string             strn  key, string, u16 n
 *   f64    key, 8 bytes (a double), 1 byte (signed decimals)
 *   obj_begin arr_begin  key       obj_end arr_end  nothing
 * tests/fuzz/make_seeds.py writes real records from tests/tools/data/ in this form. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>

#include "fuzz.h"
#include "fuzz_json.h"
#include "record.h"

/* ---- Constants ---------------------------------------------------------- */

#define BIG_CAP (1u << 20)             /* every program of up to MAX_INPUT bytes fits */
#define MAX_INPUT (16u << 10)          /* each input byte writes at most ~30 (f64: 11 -> 330) */
#define MAX_OPS 4096
#define ARENA_LEN (1u << 20)           /* keys and strings of one input, NUL-terminated */
#define MAX_EVENTS (MAX_OPS + 8)
#define NUM_LEN 400                    /* %.17f of DBL_MAX is 327 bytes */
#define KEY_NULL 0xffu
#define STR_NULL 0xffffu

enum op {
	OP_U64, OP_I64, OP_BOOL, OP_NULL, OP_STR, OP_STRN, OP_HEX, OP_F64,
	OP_OBJ_BEGIN, OP_OBJ_END, OP_ARR_BEGIN, OP_ARR_END, OP_COUNT
};

/* ---- Types -------------------------------------------------------------- */

/* One decoded call. */
struct call {
	enum op op;
	const char *key;               /* NULL or NUL-terminated, in the arena */
	const char *s;                 /* OP_STR, OP_STRN: NULL or in the arena */
	size_t n;                      /* OP_STRN */
	uint64_t u;                    /* OP_U64, OP_I64, OP_HEX, OP_BOOL; the double's bits */
	int decimals;                  /* OP_F64 */
};

/* ---- Private Variables -------------------------------------------------- */

static struct call calls[MAX_OPS];
static char arena[ARENA_LEN], decoded[BIG_CAP], nums[MAX_EVENTS][NUM_LEN];
static size_t arena_len;
static char big[BIG_CAP], saved[BIG_CAP];
/* What the model expects, and what the JSON reader finds in the line. */
static struct fuzz_json_event want[MAX_EVENTS], got[MAX_EVENTS];
static unsigned n_want;

/* ---- Private Functions: decoding the program ---------------------------- */

/* Copy n bytes into the arena, NUL-terminated. */
static const char *keep(const uint8_t *p, size_t n)
{
	char *s = arena + arena_len;

	FUZZ_ASSERT(arena_len + n + 1 <= sizeof(arena));
	memcpy(s, p, n);
	s[n] = '\0';
	arena_len += n + 1;
	return s;
}

static const char *read_key(struct fuzz_in *in)
{
	size_t len = (size_t)fuzz_le(in, 1), got_n;
	const uint8_t *p;

	if (len == KEY_NULL)
		return NULL;
	p = fuzz_bytes(in, len, &got_n);
	return keep(p, got_n);
}

static const char *read_str(struct fuzz_in *in)
{
	size_t len = (size_t)fuzz_le(in, 2), got_n;
	const uint8_t *p;

	if (len == STR_NULL)
		return NULL;
	p = fuzz_bytes(in, len, &got_n);
	return keep(p, got_n);
}

/* Decode the operations after the header; returns how many. */
static unsigned decode(struct fuzz_in *in)
{
	unsigned n = 0;

	while (fuzz_left(in) && n < MAX_OPS) {
		struct call *c = &calls[n++];

		memset(c, 0, sizeof(*c));
		c->op = (enum op)(fuzz_le(in, 1) % OP_COUNT);
		if (c->op != OP_OBJ_END && c->op != OP_ARR_END)
			c->key = read_key(in);
		switch (c->op) {
		case OP_U64: case OP_I64: case OP_HEX: case OP_F64:
			c->u = fuzz_le(in, 8);
			if (c->op == OP_F64)
				c->decimals = (int8_t)fuzz_le(in, 1);
			break;
		case OP_BOOL:
			c->u = fuzz_le(in, 1) & 1;
			break;
		case OP_STR:
			c->s = read_str(in);
			break;
		case OP_STRN:
			c->s = read_str(in);
			c->n = (size_t)fuzz_le(in, 2);
			break;
		default:
			break;
		}
	}
	return n;
}

/* ---- Private Functions: the model --------------------------------------- */

static bool is_ident(const char *k)
{
	if (!k || !*k || (*k >= '0' && *k <= '9'))
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	return true;
}

static void expect(enum fuzz_json_type type, const char *key, const char *val, size_t val_len)
{
	struct fuzz_json_event *e = &want[n_want++];

	FUZZ_ASSERT(n_want <= MAX_EVENTS);
	e->type = type;
	e->has_key = key != NULL;
	e->key = key;
	e->key_len = key ? strlen(key) : 0;
	e->val = val;
	e->val_len = val_len;
}

/* A number (or "0x..." string) as C's printf writes it, kept for the comparison. */
__attribute__((format(printf, 3, 4)))
static void expect_fmt(enum fuzz_json_type type, const char *key, const char *f, ...)
{
	char *buf = nums[n_want];
	va_list ap;
	int len;

	va_start(ap, f);
	len = vsnprintf(buf, NUM_LEN, f, ap);
	va_end(ap);
	FUZZ_ASSERT(len > 0 && len < NUM_LEN);
	expect(type, key, buf, (size_t)len);
}

/*
 * Run the program through the model: the expected events, and whether
 * record.h says the record is valid (keys, nesting, balance, kind).
 */
static bool model(const char *kind, unsigned n)
{
	bool is_array[REC_MAX_DEPTH] = { false };
	unsigned depth = 1;

	n_want = 0;
	expect(FUZZ_JSON_OBJ, NULL, NULL, 0);
	expect_fmt(FUZZ_JSON_NUM, "v", "%d", QB_RECORD_VERSION);
	if (!kind)
		return false;
	expect(FUZZ_JSON_STR, "kind", kind, strlen(kind));
	for (unsigned i = 0; i < n; i++) {
		const struct call *c = &calls[i];
		double d;

		if (c->op == OP_OBJ_END || c->op == OP_ARR_END) {
			if (depth <= 1 || is_array[depth - 1] != (c->op == OP_ARR_END))
				return false;
			depth--;
			expect(FUZZ_JSON_END, NULL, NULL, 0);
			continue;
		}
		if (is_array[depth - 1] ? c->key != NULL : !is_ident(c->key))
			return false;
		switch (c->op) {
		case OP_U64: expect_fmt(FUZZ_JSON_NUM, c->key, "%llu", (unsigned long long)c->u); break;
		case OP_I64: expect_fmt(FUZZ_JSON_NUM, c->key, "%lld", (long long)(int64_t)c->u); break;
		case OP_HEX: expect_fmt(FUZZ_JSON_STR, c->key, "0x%llx", (unsigned long long)c->u); break;
		case OP_BOOL: expect(c->u ? FUZZ_JSON_TRUE : FUZZ_JSON_FALSE, c->key, NULL, 0); break;
		case OP_NULL: expect(FUZZ_JSON_NULL, c->key, NULL, 0); break;
		case OP_STR:
		case OP_STRN:
			if (!c->s)
				expect(FUZZ_JSON_NULL, c->key, NULL, 0);
			else
				expect(FUZZ_JSON_STR, c->key, c->s,
				       c->op == OP_STR ? strlen(c->s) : strnlen(c->s, c->n));
			break;
		case OP_F64:
			memcpy(&d, &c->u, sizeof(d));
			if (!isfinite(d))
				expect(FUZZ_JSON_NULL, c->key, NULL, 0);
			else
				expect_fmt(FUZZ_JSON_NUM, c->key, "%.*f",
					   c->decimals < 0 ? 0 : c->decimals > REC_MAX_DECIMALS
					   ? REC_MAX_DECIMALS : c->decimals, d);
			break;
		default:  /* OP_OBJ_BEGIN, OP_ARR_BEGIN */
			if (depth >= REC_MAX_DEPTH)
				return false;
			is_array[depth++] = c->op == OP_ARR_BEGIN;
			expect(c->op == OP_ARR_BEGIN ? FUZZ_JSON_ARR : FUZZ_JSON_OBJ, c->key, NULL, 0);
			break;
		}
	}
	expect(FUZZ_JSON_END, NULL, NULL, 0);
	return depth == 1;
}

/* ---- Private Functions: running the program ----------------------------- */

static const char *run(const char *kind, unsigned n, char *buf, size_t cap, size_t *len)
{
	struct rec r;

	rec_begin(&r, buf, cap, kind);
	for (unsigned i = 0; i < n; i++) {
		const struct call *c = &calls[i];
		double d;

		switch (c->op) {
		case OP_U64: rec_u64(&r, c->key, c->u); break;
		case OP_I64: rec_i64(&r, c->key, (int64_t)c->u); break;
		case OP_BOOL: rec_bool(&r, c->key, c->u != 0); break;
		case OP_NULL: rec_null(&r, c->key); break;
		case OP_STR: rec_str(&r, c->key, c->s); break;
		case OP_STRN: rec_strn(&r, c->key, c->s, c->n); break;
		case OP_HEX: rec_hex(&r, c->key, c->u); break;
		case OP_F64:
			memcpy(&d, &c->u, sizeof(d));
			rec_f64(&r, c->key, d, c->decimals);
			break;
		case OP_OBJ_BEGIN: rec_obj_begin(&r, c->key); break;
		case OP_OBJ_END: rec_obj_end(&r); break;
		case OP_ARR_BEGIN: rec_arr_begin(&r, c->key); break;
		default: rec_arr_end(&r); break;
		}
	}
	{
		const char *line = rec_finish(&r, len);
		size_t len2 = 1;

		/* A second finish fails and leaves the buffer alone. */
		if (line)
			memcpy(saved, line, *len + 1);
		FUZZ_ASSERT(rec_finish(&r, &len2) == NULL && len2 == 0);
		if (line)
			FUZZ_ASSERT(!memcmp(saved, line, *len + 1));
		return line;
	}
}

/* ---- Private Functions: checks ------------------------------------------ */

/* The line as record.h describes it, and what rec_check_line() says of it and of damaged copies. */
static void check_line(const char *line, size_t len, size_t salt)
{
	struct fuzz_json_out out = { got, MAX_EVENTS, 0, decoded, sizeof(decoded), 0 };
	const char *json = NULL;
	size_t json_len = 0;
	char *copy;

	FUZZ_ASSERT(strlen(line) == len);
	FUZZ_ASSERT(fuzz_printable(line, len));
	FUZZ_ASSERT(rec_check_line(line, len, &json, &json_len));
	FUZZ_ASSERT(json == line + strlen(REC_PREFIX) && json_len == len - strlen(REC_PREFIX) - 9);
	FUZZ_ASSERT(fuzz_json_parse(json, json_len, &out));
	fuzz_json_same(want, n_want, got, out.n_ev);

	/* One changed byte anywhere, a byte fewer or a newline more: rejected. */
	copy = malloc(len + 1);
	FUZZ_ASSERT(copy);
	memcpy(copy, line, len + 1);
	copy[salt % len] ^= (char)(1 + salt % 255);
	FUZZ_ASSERT(!rec_check_line(copy, len, NULL, NULL));
	memcpy(copy, line, len);
	copy[len] = '\n';
	FUZZ_ASSERT(!rec_check_line(copy, len + 1, NULL, NULL));
	FUZZ_ASSERT(!rec_check_line(line, len - 1, NULL, NULL));
	free(copy);
}

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in(data, size);
	size_t cap = (size_t)fuzz_le(&in, 2), len = 0, small_len = 0;
	const char *kind, *line, *small_line;
	char *small;
	unsigned n;
	bool valid;

	if (size > MAX_INPUT)
		return 0;
	arena_len = 0;
	kind = read_str(&in);
	n = decode(&in);
	valid = model(kind, n);

	line = run(kind, n, big, sizeof(big), &len);
	FUZZ_ASSERT((line != NULL) == valid);
	if (line)
		check_line(line, len, size);
	else
		FUZZ_ASSERT(big[0] == '\0' && len == 0);

	small = cap ? malloc(cap) : NULL;
	if (cap && !small)
		return 0;
	small_line = run(kind, n, small, cap, &small_len);
	if (line && len + 1 <= cap)
		FUZZ_ASSERT(small_line && small_len == len && !memcmp(small_line, line, len + 1));
	else
		FUZZ_ASSERT(!small_line && small_len == 0 && (!cap || small[0] == '\0'));
	free(small);
	return 0;
}
