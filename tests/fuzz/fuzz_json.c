/* fuzz_json.c - a strict JSON reader (RFC 8259, ASCII only) that turns one object into events, for fuzz_record.c to compare with what it wrote. */
#include "fuzz.h"
#include "fuzz_json.h"

/* ---- Types -------------------------------------------------------------- */

struct jr {
	const char *s;
	size_t n, i;
	int depth;
	struct fuzz_json_out *out;
};

/* ---- Private Functions -------------------------------------------------- */

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

/* A string into the out's text; a \u escape must name a byte (the encoder's \u00XX). */
static bool jr_string(struct jr *j, const char **out, size_t *len)
{
	struct fuzz_json_out *o = j->out;
	char *d = o->text + o->text_len;
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
		FUZZ_ASSERT(o->text_len + k < o->text_cap);
		d[k++] = (char)c;
	}
	*out = d;
	*len = k;
	o->text_len += k;
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

static struct fuzz_json_event *emit(struct jr *j, enum fuzz_json_type type,
				    const char *key, size_t key_len, bool has_key)
{
	struct fuzz_json_out *o = j->out;
	struct fuzz_json_event *e;

	if (o->n_ev >= o->ev_cap)
		return NULL;
	e = &o->ev[o->n_ev++];
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

	if (++j->depth > FUZZ_JSON_MAX_DEPTH)
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
	return emit(j, FUZZ_JSON_END, NULL, 0, false) != NULL;
}

static bool jr_value(struct jr *j, const char *key, size_t key_len, bool has_key)
{
	struct fuzz_json_event *e;
	size_t start;

	jr_ws(j);
	switch (jr_peek(j)) {
	case '{':
		return emit(j, FUZZ_JSON_OBJ, key, key_len, has_key) && jr_container(j, true);
	case '[':
		return emit(j, FUZZ_JSON_ARR, key, key_len, has_key) && jr_container(j, false);
	case '"':
		e = emit(j, FUZZ_JSON_STR, key, key_len, has_key);
		return e && jr_string(j, &e->val, &e->val_len);
	case 't':
		return jr_lit(j, "true") && emit(j, FUZZ_JSON_TRUE, key, key_len, has_key);
	case 'f':
		return jr_lit(j, "false") && emit(j, FUZZ_JSON_FALSE, key, key_len, has_key);
	case 'n':
		return jr_lit(j, "null") && emit(j, FUZZ_JSON_NULL, key, key_len, has_key);
	default:
		start = j->i;
		if (!jr_number(j))
			return false;
		e = emit(j, FUZZ_JSON_NUM, key, key_len, has_key);
		if (!e)
			return false;
		e->val = j->s + start;
		e->val_len = j->i - start;
		return true;
	}
}

/* ---- Public Functions --------------------------------------------------- */

bool fuzz_json_parse(const char *s, size_t n, struct fuzz_json_out *out)
{
	struct jr j = { s, n, 0, 0, out };

	out->n_ev = 0;
	out->text_len = 0;
	jr_ws(&j);
	if (jr_peek(&j) != '{' || !jr_value(&j, NULL, 0, false))
		return false;
	jr_ws(&j);
	return j.i == j.n;
}

void fuzz_json_same(const struct fuzz_json_event *want, unsigned n_want,
		    const struct fuzz_json_event *got, unsigned n_got)
{
	FUZZ_ASSERT(n_got == n_want);
	for (unsigned i = 0; i < n_want; i++) {
		const struct fuzz_json_event *w = &want[i], *g = &got[i];

		FUZZ_ASSERT(w->type == g->type);
		FUZZ_ASSERT(w->has_key == g->has_key);
		FUZZ_ASSERT(w->key_len == g->key_len && (!w->key_len || !memcmp(w->key, g->key, w->key_len)));
		FUZZ_ASSERT(w->val_len == g->val_len && (!w->val_len || !memcmp(w->val, g->val, w->val_len)));
	}
}
