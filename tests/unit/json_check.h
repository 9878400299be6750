/* json_check.h - a strict RFC 8259 JSON checker (printable ASCII only) for host tests that validate records.
 *
 * Header-only like check.h: json_object_valid() says whether a byte range is
 * exactly one JSON object, with no trailing bytes. */
#ifndef QB_TESTS_JSON_CHECK_H
#define QB_TESTS_JSON_CHECK_H

#include <stddef.h>
#include <string.h>

#define JP_MAX_DEPTH 64  /* deeper nesting is rejected */
#define JP_UHEX_DIGITS 4 /* \uXXXX */

struct jp {
	const char *s;
	size_t n, i;
	int depth;
};

static inline int jp_peek(struct jp *p)
{
	return p->i < p->n ? (unsigned char)p->s[p->i] : -1;
}

static inline void jp_ws(struct jp *p)
{
	while (jp_peek(p) == ' ' || jp_peek(p) == '\t' || jp_peek(p) == '\n' ||
	       jp_peek(p) == '\r')
		p->i++;
}

static inline int jp_lit(struct jp *p, const char *lit)
{
	size_t n = strlen(lit);

	if (p->n - p->i < n || memcmp(p->s + p->i, lit, n))
		return 0;
	p->i += n;
	return 1;
}

static inline int jp_digits(struct jp *p)
{
	size_t start = p->i;

	while (jp_peek(p) >= '0' && jp_peek(p) <= '9')
		p->i++;
	return p->i > start;
}

static inline int jp_number(struct jp *p)
{
	if (jp_peek(p) == '-')
		p->i++;
	if (jp_peek(p) == '0')
		p->i++;
	else if (!(jp_peek(p) >= '1' && jp_peek(p) <= '9') || !jp_digits(p))
		return 0;
	if (jp_peek(p) == '.') {
		p->i++;
		if (!jp_digits(p))
			return 0;
	}
	if (jp_peek(p) == 'e' || jp_peek(p) == 'E') {
		p->i++;
		if (jp_peek(p) == '+' || jp_peek(p) == '-')
			p->i++;
		if (!jp_digits(p))
			return 0;
	}
	return 1;
}

static inline int jp_string(struct jp *p)
{
	if (jp_peek(p) != '"')
		return 0;
	p->i++;
	for (;;) {
		int c = jp_peek(p);

		if (c < 0x20 || c > 0x7e)
			return 0;  /* end of input, control or non-ASCII */
		p->i++;
		if (c == '"')
			return 1;
		if (c != '\\')
			continue;
		c = jp_peek(p);
		p->i++;
		if (c == 'u') {
			for (int k = 0; k < JP_UHEX_DIGITS; k++, p->i++) {
				c = jp_peek(p);
				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F')))
					return 0;
			}
		} else if (!c || !strchr("\"\\/bfnrt", c)) {
			return 0;
		}
	}
}

static inline int jp_value(struct jp *p);

static inline int jp_container(struct jp *p, char open, char close, int object)
{
	if (jp_peek(p) != open || ++p->depth > JP_MAX_DEPTH)
		return 0;
	p->i++;
	jp_ws(p);
	if (jp_peek(p) == close) {
		p->i++;
		p->depth--;
		return 1;
	}
	for (;;) {
		if (object) {
			if (!jp_string(p))
				return 0;
			jp_ws(p);
			if (jp_peek(p) != ':')
				return 0;
			p->i++;
			jp_ws(p);
		}
		if (!jp_value(p))
			return 0;
		jp_ws(p);
		if (jp_peek(p) == close) {
			p->i++;
			p->depth--;
			return 1;
		}
		if (jp_peek(p) != ',')
			return 0;
		p->i++;
		jp_ws(p);
	}
}

static inline int jp_value(struct jp *p)
{
	switch (jp_peek(p)) {
	case '{': return jp_container(p, '{', '}', 1);
	case '[': return jp_container(p, '[', ']', 0);
	case '"': return jp_string(p);
	case 't': return jp_lit(p, "true");
	case 'f': return jp_lit(p, "false");
	case 'n': return jp_lit(p, "null");
	default:  return jp_number(p);
	}
}

/* True if s[0..n) is exactly one JSON object. */
static inline int json_object_valid(const char *s, size_t n)
{
	struct jp p = { .s = s, .n = n };

	if (!n || s[0] != '{' || !jp_value(&p))
		return 0;
	jp_ws(&p);
	return p.i == n;
}

#endif
