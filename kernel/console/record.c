/* record.c - builds and verifies the checksummed JSON record lines of record.h (RFC 8259 strings and numbers). */
#include "crc32.h"
#include "fmt.h"
#include "lib.h"
#include "record.h"

/* ---- Constants ------------------------------------------------------------ */

#define REC_PREFIX_LEN (sizeof(REC_PREFIX) - 1)
#define REC_CRC_DIGITS 8                      /* 32 bits in hex */
#define REC_TAIL_LEN (1 + REC_CRC_DIGITS)     /* " xxxxxxxx" */
#define REC_MIN_JSON 2                        /* "{}" */
#define REC_ASCII_FIRST 0x20                  /* RFC 8259 7: below must be escaped */
#define REC_ASCII_LAST 0x7e                   /* DEL and high bytes escaped too */
#define REC_HEX_BITS 4
#define REC_HEX_ALPHA 10                      /* value of hex digit 'a' */

/* ---- Private Functions ---------------------------------------------------- */

static void rec_putn(struct rec *r, const char *s, size_t n)
{
	/* One byte always stays free for the NUL that finish writes. */
	if (r->overflow || r->invalid)
		return;
	if (r->cap == 0 || n > r->cap - 1 - r->len) {
		r->overflow = true;
		return;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void rec_puts(struct rec *r, const char *s)
{
	rec_putn(r, s, strlen(s));
}

/* Format straight into the free space; too long means overflow. */
__attribute__((format(printf, 2, 3)))
static void rec_printf(struct rec *r, const char *f, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (r->overflow || r->invalid)
		return;
	if (r->cap <= r->len) {
		r->overflow = true;
		return;
	}
	room = r->cap - r->len;
	va_start(ap, f);
	n = fmt_vsnprintf(r->buf + r->len, room, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		r->overflow = true;
	else
		r->len += (size_t)n;
}

static bool rec_is_ident(const char *key)
{
	if (!key || !*key || (*key >= '0' && *key <= '9'))
		return false;
	for (; *key; key++) {
		char c = *key;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* Write the separator and "key": for the next member; false if misused. */
static bool rec_member(struct rec *r, const char *key)
{
	unsigned level;

	if (r->invalid || r->done || !r->depth) {
		r->invalid = true;
		return false;
	}
	level = r->depth - 1u;
	if (r->is_array[level] ? key != NULL : !rec_is_ident(key)) {
		r->invalid = true;
		return false;
	}
	if (!r->first[level])
		rec_putn(r, ",", 1);
	r->first[level] = false;
	if (key) {
		rec_putn(r, "\"", 1);
		rec_puts(r, key);
		rec_putn(r, "\":", 2);
	}
	return true;
}

static void rec_open(struct rec *r, const char *key, bool array)
{
	if (!rec_member(r, key))
		return;
	if (r->depth >= REC_MAX_DEPTH) {
		r->invalid = true;
		return;
	}
	rec_putn(r, array ? "[" : "{", 1);
	r->first[r->depth] = true;
	r->is_array[r->depth] = array;
	r->depth++;
}

static void rec_close(struct rec *r, bool array)
{
	/* depth 1 is the record's own object: only rec_finish closes it. */
	if (r->done || r->depth <= 1 || r->is_array[r->depth - 1] != array) {
		r->invalid = true;
		return;
	}
	rec_putn(r, array ? "]" : "}", 1);
	r->depth--;
}

static void rec_escaped(struct rec *r, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	rec_putn(r, "\"", 1);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };

			rec_putn(r, esc, sizeof(esc));
		} else if (c < REC_ASCII_FIRST || c > REC_ASCII_LAST) {
			char esc[] = { '\\', 'u', '0', '0', hex[c >> REC_HEX_BITS],
				       hex[c & ((1u << REC_HEX_BITS) - 1)] };

			rec_putn(r, esc, sizeof(esc));
		} else {
			rec_putn(r, (const char *)&c, 1);
		}
	}
	rec_putn(r, "\"", 1);
}

static bool rec_is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* ---- Public Functions ----------------------------------------------------- */

void rec_begin(struct rec *r, char *buf, size_t cap, const char *kind)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->cap = buf ? cap : 0;
	r->depth = 1;
	r->first[0] = true;
	rec_putn(r, REC_PREFIX "{", REC_PREFIX_LEN + 1);
	rec_u64(r, "v", QB_RECORD_VERSION);
	if (!kind)
		r->invalid = true;
	rec_str(r, "kind", kind);
}

void rec_u64(struct rec *r, const char *key, uint64_t v)
{
	if (rec_member(r, key))
		rec_printf(r, "%llu", (unsigned long long)v);
}

void rec_i64(struct rec *r, const char *key, int64_t v)
{
	if (rec_member(r, key))
		rec_printf(r, "%lld", (long long)v);
}

void rec_bool(struct rec *r, const char *key, bool v)
{
	if (rec_member(r, key))
		rec_puts(r, v ? "true" : "false");
}

void rec_null(struct rec *r, const char *key)
{
	if (rec_member(r, key))
		rec_puts(r, "null");
}

void rec_strn(struct rec *r, const char *key, const char *s, size_t n)
{
	if (!rec_member(r, key))
		return;
	if (s)
		rec_escaped(r, s, n);
	else
		rec_puts(r, "null");
}

void rec_str(struct rec *r, const char *key, const char *s)
{
	rec_strn(r, key, s, s ? strlen(s) : 0);
}

void rec_hex(struct rec *r, const char *key, uint64_t v)
{
	if (rec_member(r, key))
		rec_printf(r, "\"0x%llx\"", (unsigned long long)v);
}

void rec_f64(struct rec *r, const char *key, double v, int decimals)
{
	if (!rec_member(r, key))
		return;
	if (!__builtin_isfinite(v)) {
		rec_puts(r, "null");  /* JSON has no NaN or infinity */
		return;
	}
	decimals = MAX(0, MIN(decimals, REC_MAX_DECIMALS));
	rec_printf(r, "%.*f", decimals, v);
}

void rec_obj_begin(struct rec *r, const char *key)
{
	rec_open(r, key, false);
}

void rec_obj_end(struct rec *r)
{
	rec_close(r, false);
}

void rec_arr_begin(struct rec *r, const char *key)
{
	rec_open(r, key, true);
}

void rec_arr_end(struct rec *r)
{
	rec_close(r, true);
}

const char *rec_finish(struct rec *r, size_t *len)
{
	if (len)
		*len = 0;
	if (r->done)
		return NULL;
	r->done = true;
	if (r->depth != 1)
		r->invalid = true;
	rec_putn(r, "}", 1);
	if (!r->overflow && !r->invalid)
		rec_printf(r, " %08x",
			   crc32(r->buf + REC_PREFIX_LEN, r->len - REC_PREFIX_LEN));
	r->depth = 0;
	if (r->overflow || r->invalid) {
		if (r->cap)
			r->buf[0] = '\0';
		return NULL;
	}
	r->buf[r->len] = '\0';
	if (len)
		*len = r->len;
	return r->buf;
}

bool rec_check_line(const char *line, size_t len, const char **json,
		    size_t *json_len)
{
	const char *tail;
	uint32_t want = 0;
	size_t n;

	if (!line || len < REC_PREFIX_LEN + REC_MIN_JSON + REC_TAIL_LEN ||
	    memcmp(line, REC_PREFIX, REC_PREFIX_LEN))
		return false;
	n = len - REC_PREFIX_LEN - REC_TAIL_LEN;
	tail = line + REC_PREFIX_LEN + n;
	if (line[REC_PREFIX_LEN] != '{' || tail[-1] != '}' || tail[0] != ' ')
		return false;
	for (size_t i = REC_PREFIX_LEN; i < REC_PREFIX_LEN + n; i++)
		if ((unsigned char)line[i] < REC_ASCII_FIRST ||
		    (unsigned char)line[i] > REC_ASCII_LAST)
			return false;
	for (size_t i = 1; i < REC_TAIL_LEN; i++) {
		char c = tail[i];

		if (!rec_is_lower_hex(c))
			return false;
		want = want << REC_HEX_BITS |
		       (uint32_t)(c <= '9' ? c - '0' : c - 'a' + REC_HEX_ALPHA);
	}
	if (crc32(line + REC_PREFIX_LEN, n) != want)
		return false;
	if (json)
		*json = line + REC_PREFIX_LEN;
	if (json_len)
		*json_len = n;
	return true;
}

bool rec_field(const char *line, const char *key, char *out, size_t cap)
{
	char pat[32];
	fmt_snprintf(pat, sizeof(pat), "\"%s\":", key);
	size_t plen = strlen(pat);
	const char *p = line;
	while (*p && strncmp(p, pat, plen))
		p++;
	if (!*p)
		return false;
	if (!cap)
		return false;
	p += plen;
	bool str = *p == '"';
	p += str;
	size_t n = 0;
	while (p[n] && n + 1 < cap && (str ? p[n] != '"' : p[n] != ',' && p[n] != '}'))
		n++;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

bool rec_primary_measure(const char *line, char *median, size_t mcap, char *unit, size_t ucap, bool *noisy)
{
	static const char anchor[] = "\"measures\":{";
	const char *m = line;
	size_t alen = sizeof(anchor) - 1;
	while (*m && strncmp(m, anchor, alen))
		m++;
	*noisy = false;
	if (!*m)
		return false;
	m += alen;
	if (!rec_field(m, "unit", unit, ucap) || !rec_field(m, "median", median, mcap) || !strcmp(median, "null"))
		return false;
	char nz[8];
	*noisy = rec_field(line, "noisy", nz, sizeof(nz)) && nz[0] == '{';
	return true;
}
