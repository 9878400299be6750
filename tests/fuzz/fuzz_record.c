/* fuzz_record.c - libFuzzer harness for the record encoder's round trip (kernel/console/record.h: JSON per RFC 8259, CRC-32 per crc32.h).
 *
 * The input is a little program of record calls (format below). The harness
 * runs it into a large buffer and into an exact-size buffer of the chosen
 * capacity, and keeps a model of which programs are valid. A valid program
 * must give a line that rec_check_line() accepts and that a strict JSON
 * parser (here, independent of kernel/) reads back as exactly the values
 * written; integers and hex as C's printf writes them, decimals as glibc's
 * correctly rounded %.*f. An invalid one must give NULL and an empty buffer.
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
#define JSON_MAX_DEPTH 64

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

/* One JSON value as the parser sees it; the model makes the same for what was written. */
enum ev_type { EV_OBJ, EV_ARR, EV_END, EV_STR, EV_NUM, EV_TRUE, EV_FALSE, EV_NULL };

struct event {
	enum ev_type type;
	bool has_key;
	const char *key;               /* not NUL-terminated */
	size_t key_len;
	const char *val;               /* EV_STR: decoded bytes; EV_NUM: the number's text */
	size_t val_len;
};

/* ---- Private Variables -------------------------------------------------- */

static struct call calls[MAX_OPS];
static char arena[ARENA_LEN], decoded[BIG_CAP], nums[MAX_EVENTS][NUM_LEN];
static size_t arena_len, decoded_len;
static char big[BIG_CAP], saved[BIG_CAP];
static struct event want[MAX_EVENTS], got[MAX_EVENTS];
static unsigned n_want, n_got;

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

static void expect(enum ev_type type, const char *key, const char *val, size_t val_len)
{
	struct event *e = &want[n_want++];

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
static void expect_fmt(enum ev_type type, const char *key, const char *f, ...)
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
	expect(EV_OBJ, NULL, NULL, 0);
	expect_fmt(EV_NUM, "v", "%d", QB_RECORD_VERSION);
	if (!kind)
		return false;
	expect(EV_STR, "kind", kind, strlen(kind));
	for (unsigned i = 0; i < n; i++) {
		const struct call *c = &calls[i];
		double d;

		if (c->op == OP_OBJ_END || c->op == OP_ARR_END) {
			if (depth <= 1 || is_array[depth - 1] != (c->op == OP_ARR_END))
				return false;
			depth--;
			expect(EV_END, NULL, NULL, 0);
			continue;
		}
		if (is_array[depth - 1] ? c->key != NULL : !is_ident(c->key))
			return false;
		switch (c->op) {
		case OP_U64: expect_fmt(EV_NUM, c->key, "%llu", (unsigned long long)c->u); break;
		case OP_I64: expect_fmt(EV_NUM, c->key, "%lld", (long long)(int64_t)c->u); break;
		case OP_HEX: expect_fmt(EV_STR, c->key, "0x%llx", (unsigned long long)c->u); break;
		case OP_BOOL: expect(c->u ? EV_TRUE : EV_FALSE, c->key, NULL, 0); break;
		case OP_NULL: expect(EV_NULL, c->key, NULL, 0); break;
		case OP_STR:
		case OP_STRN:
			if (!c->s)
				expect(EV_NULL, c->key, NULL, 0);
			else
				expect(EV_STR, c->key, c->s,
				       c->op == OP_STR ? strlen(c->s) : strnlen(c->s, c->n));
			break;
		case OP_F64:
			memcpy(&d, &c->u, sizeof(d));
			if (!isfinite(d))
				expect(EV_NULL, c->key, NULL, 0);
			else
				expect_fmt(EV_NUM, c->key, "%.*f",
					   c->decimals < 0 ? 0 : c->decimals > REC_MAX_DECIMALS
					   ? REC_MAX_DECIMALS : c->decimals, d);
			break;
		default:  /* OP_OBJ_BEGIN, OP_ARR_BEGIN */
			if (depth >= REC_MAX_DEPTH)
				return false;
			is_array[depth++] = c->op == OP_ARR_BEGIN;
			expect(c->op == OP_ARR_BEGIN ? EV_ARR : EV_OBJ, c->key, NULL, 0);
			break;
		}
	}
	expect(EV_END, NULL, NULL, 0);
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

/* ---- Private Functions: a strict JSON reader (RFC 8259, ASCII) ---------- */

struct jr {
	const char *s;
	size_t n, i;
	int depth;
};

static int jr_peek(const struct jr *j)
{
	return j->i < j->n ? (unsigned char)j->s[j->i] : -1;
}

static void jr_ws(struct jr *j)
{
	while (jr_peek(j) == ' ' || jr_peek(j) == '\t' || jr_peek(j) == '\n' || jr_peek(j) == '\r')
		j->i++;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* A string into the decoded buffer; a \u escape must name a byte (the encoder's \u00XX). */
static bool jr_string(struct jr *j, const char **out, size_t *len)
{
	char *d = decoded + decoded_len;
	size_t k = 0;

	if (jr_peek(j) != '"')
		return false;
	j->i++;
	for (;;) {
		int c = jr_peek(j);

		if (c < 0x20 || c > 0x7e)
			return false;      /* the end, a control byte, or not ASCII */
		j->i++;
		if (c == '"')
			break;
		if (c == '\\') {
			int e = jr_peek(j);

			j->i++;
			switch (e) {
			case '"': case '\\': case '/': c = e; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				int v = 0;

				for (int q = 0; q < 4; q++) {
					int h = hexval(jr_peek(j));

					if (h < 0)
						return false;
					v = v << 4 | h;
					j->i++;
				}
				if (v > 0xff)
					return false;
				c = v;
				break;
			}
			default:
				return false;
			}
		}
		FUZZ_ASSERT(decoded_len + k < sizeof(decoded));
		d[k++] = (char)c;
	}
	*out = d;
	*len = k;
	decoded_len += k;
	return true;
}

static bool jr_digits(struct jr *j)
{
	size_t start = j->i;

	while (jr_peek(j) >= '0' && jr_peek(j) <= '9')
		j->i++;
	return j->i > start;
}

static bool jr_number(struct jr *j)
{
	if (jr_peek(j) == '-')
		j->i++;
	if (jr_peek(j) == '0')
		j->i++;
	else if (!(jr_peek(j) >= '1' && jr_peek(j) <= '9') || !jr_digits(j))
		return false;
	if (jr_peek(j) == '.') {
		j->i++;
		if (!jr_digits(j))
			return false;
	}
	if (jr_peek(j) == 'e' || jr_peek(j) == 'E') {
		j->i++;
		if (jr_peek(j) == '+' || jr_peek(j) == '-')
			j->i++;
		if (!jr_digits(j))
			return false;
	}
	return true;
}

static bool jr_lit(struct jr *j, const char *lit)
{
	size_t n = strlen(lit);

	if (j->n - j->i < n || memcmp(j->s + j->i, lit, n))
		return false;
	j->i += n;
	return true;
}

static struct event *emit(enum ev_type type, const char *key, size_t key_len, bool has_key)
{
	struct event *e;

	if (n_got >= MAX_EVENTS)
		return NULL;
	e = &got[n_got++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->has_key = has_key;
	e->key = key;
	e->key_len = key_len;
	return e;
}

static bool jr_value(struct jr *j, const char *key, size_t key_len, bool has_key);

/* The members of an object or the elements of an array, up to the closing bracket. */
static bool jr_container(struct jr *j, bool object)
{
	char close = object ? '}' : ']';

	if (++j->depth > JSON_MAX_DEPTH)
		return false;
	j->i++;
	jr_ws(j);
	if (jr_peek(j) == close) {
		j->i++;
	} else {
		for (;;) {
			const char *k = NULL;
			size_t kl = 0;

			jr_ws(j);
			if (object) {
				if (!jr_string(j, &k, &kl))
					return false;
				jr_ws(j);
				if (jr_peek(j) != ':')
					return false;
				j->i++;
			}
			if (!jr_value(j, k, kl, object))
				return false;
			jr_ws(j);
			if (jr_peek(j) == close) {
				j->i++;
				break;
			}
			if (jr_peek(j) != ',')
				return false;
			j->i++;
		}
	}
	j->depth--;
	return emit(EV_END, NULL, 0, false) != NULL;
}

static bool jr_value(struct jr *j, const char *key, size_t key_len, bool has_key)
{
	struct event *e;
	size_t start;

	jr_ws(j);
	switch (jr_peek(j)) {
	case '{':
		return emit(EV_OBJ, key, key_len, has_key) && jr_container(j, true);
	case '[':
		return emit(EV_ARR, key, key_len, has_key) && jr_container(j, false);
	case '"':
		e = emit(EV_STR, key, key_len, has_key);
		return e && jr_string(j, &e->val, &e->val_len);
	case 't':
		return jr_lit(j, "true") && emit(EV_TRUE, key, key_len, has_key);
	case 'f':
		return jr_lit(j, "false") && emit(EV_FALSE, key, key_len, has_key);
	case 'n':
		return jr_lit(j, "null") && emit(EV_NULL, key, key_len, has_key);
	default:
		start = j->i;
		if (!jr_number(j))
			return false;
		e = emit(EV_NUM, key, key_len, has_key);
		if (!e)
			return false;
		e->val = j->s + start;
		e->val_len = j->i - start;
		return true;
	}
}

/* Exactly one object and nothing after it. */
static bool jr_parse(const char *s, size_t n)
{
	struct jr j = { s, n, 0, 0 };

	n_got = 0;
	decoded_len = 0;
	jr_ws(&j);
	if (jr_peek(&j) != '{' || !jr_value(&j, NULL, 0, false))
		return false;
	jr_ws(&j);
	return j.i == j.n;
}

/* ---- Private Functions: checks ------------------------------------------ */

static void check_events(void)
{
	FUZZ_ASSERT(n_got == n_want);
	for (unsigned i = 0; i < n_want; i++) {
		const struct event *w = &want[i], *g = &got[i];

		FUZZ_ASSERT(w->type == g->type);
		FUZZ_ASSERT(w->has_key == g->has_key);
		FUZZ_ASSERT(w->key_len == g->key_len && (!w->key_len || !memcmp(w->key, g->key, w->key_len)));
		FUZZ_ASSERT(w->val_len == g->val_len && (!w->val_len || !memcmp(w->val, g->val, w->val_len)));
	}
}

/* The line as record.h describes it, and what rec_check_line() says of it and of damaged copies. */
static void check_line(const char *line, size_t len, size_t salt)
{
	const char *json = NULL;
	size_t json_len = 0;
	char *copy;

	FUZZ_ASSERT(strlen(line) == len);
	FUZZ_ASSERT(fuzz_printable(line, len));
	FUZZ_ASSERT(rec_check_line(line, len, &json, &json_len));
	FUZZ_ASSERT(json == line + strlen(REC_PREFIX) && json_len == len - strlen(REC_PREFIX) - 9);
	FUZZ_ASSERT(jr_parse(json, json_len));
	check_events();

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
