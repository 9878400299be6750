/* options.c - a table-driven parser for the key=value command line described in options.h (the table: options_table.c). */
#include <stdarg.h>
#include <stdbool.h>

#include "fmt.h"
#include "lib.h"
#include "qb_limits.h"
#include "options.h"
#include "options_table.h"

/* ---- Constants ------------------------------------------------------------ */

#define OPT_PROGRAM_SUFFIX ".efi"
#define OPT_LIST_SEP ','
#define OPT_LIST_ALL "all"     /* workloads=all */
#define OPT_ELLIPSIS "..."
#define OPT_PRINTABLE_FIRST 0x20
#define OPT_PRINTABLE_LAST 0x7e
#define OPT_BAD_CHAR '?'
#define OPT_DEC_BASE 10
#define OPT_HINT_MAX_LEN 31     /* longest word a hint is looked for */
#define OPT_HINT_EDIT_DIV 3     /* a hint is at most len/3 edits away (at least 1) */
#define OPT_HINT_MIN_PREFIX 3   /* a prefix this long of exactly one name is a hint too */

/* ---- Types ---------------------------------------------------------------- */

struct opt_parser {
	struct opt_error *errs;
	unsigned max_errs;
	unsigned count;
	const char *const *names;
	unsigned n_names;
};

/* ---- Private Functions ---------------------------------------------------- */

static uint32_t *opt_field(struct options *o, const struct opt_row *row)
{
	return (uint32_t *)((char *)o + row->offset);
}

static bool opt_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* lib.h has no memchr: the first c in s[0..n), or NULL. */
static const char *opt_chr(const char *s, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return s + i;
	return NULL;
}

static bool opt_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

static char opt_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The first word is the program's own path if it has no '=' and ends in ".efi". */
static bool opt_is_program(const char *w, size_t n)
{
	size_t sn = sizeof(OPT_PROGRAM_SUFFIX) - 1;

	if (n < sn || opt_chr(w, n, '='))
		return false;
	for (size_t i = 0; i < sn; i++)
		if (opt_lower(w[n - sn + i]) != OPT_PROGRAM_SUFFIX[i])
			return false;
	return true;
}

/* Copy n bytes into a fixed field: printable ASCII, "..." when cut. */
static void opt_copy(char *dst, size_t size, const char *s, size_t n)
{
	size_t keep = MIN(n, size - 1), i;

	for (i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = c >= OPT_PRINTABLE_FIRST && c <= OPT_PRINTABLE_LAST
			 ? (char)c : OPT_BAD_CHAR;
	}
	dst[i] = '\0';
	if (n > keep)
		memcpy(dst + keep - (sizeof(OPT_ELLIPSIS) - 1), OPT_ELLIPSIS,
		       sizeof(OPT_ELLIPSIS));
}

__attribute__((format(printf, 6, 7)))
static void opt_error(struct opt_parser *p, const char *key, size_t klen,
		      const char *val, size_t vlen, const char *why, ...)
{
	struct opt_error *e;
	va_list ap;

	if (p->count++ >= p->max_errs)
		return;
	e = &p->errs[p->count - 1];
	e->hint[0] = e->valid[0] = '\0';
	opt_copy(e->key, sizeof(e->key), key, klen);
	opt_copy(e->value, sizeof(e->value), val, vlen);
	va_start(ap, why);
	fmt_vsnprintf(e->why, sizeof(e->why), why, ap);
	va_end(ap);
}

/* The last error stored, or NULL when it was only counted. */
static struct opt_error *opt_last(struct opt_parser *p)
{
	return p->count && p->count <= p->max_errs ? &p->errs[p->count - 1] : NULL;
}

/* Say, in the last error, the word that was probably meant: key=value. */
static void opt_hint(struct opt_parser *p, const char *key, const char *value)
{
	struct opt_error *e = opt_last(p);
	if (e)
		fmt_snprintf(e->hint, sizeof(e->hint), "%s=%s", key, value);
}

/* Say, in the last error, what is accepted: names[0..n) separated by spaces. */
static void opt_valid_names(struct opt_parser *p, const char *const *names, size_t n, const char *extra)
{
	struct opt_error *e = opt_last(p);
	size_t len = 0;
	if (!e)
		return;
	e->valid[0] = '\0';
	for (size_t i = 0; i <= n && len + 1 < sizeof(e->valid); i++) {
		const char *name = i < n ? names[i] : extra;
		if (!name)
			continue;
		int k = fmt_snprintf(e->valid + len, sizeof(e->valid) - len, "%s%s", len ? " " : "", name);
		len += k > 0 ? (size_t)k : 0;
	}
	if (len >= sizeof(e->valid))
		memcpy(e->valid + sizeof(e->valid) - sizeof(OPT_ELLIPSIS), OPT_ELLIPSIS, sizeof(OPT_ELLIPSIS));
}

/* Edit distance with transpositions (optimal string alignment) between a[0..an)
 * and b, for words up to OPT_HINT_MAX_LEN; longer ones count as far apart. */
static unsigned opt_distance(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);
	unsigned d[OPT_HINT_MAX_LEN + 1][OPT_HINT_MAX_LEN + 1];
	if (an > OPT_HINT_MAX_LEN || bn > OPT_HINT_MAX_LEN)
		return UINT32_MAX;
	for (size_t i = 0; i <= an; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= bn; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= an; i++)
		for (size_t j = 1; j <= bn; j++) {
			unsigned cost = opt_lower(a[i - 1]) != opt_lower(b[j - 1]);
			unsigned v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
			v = MIN(v, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				v = MIN(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return d[an][bn];
}

/* The name in names[0..n) that s[0..len) most likely meant: a small edit
 * away (at most a third of the name, at least one edit allowed), or the
 * only name it is a prefix of (three letters or more). NULL if none. */
static const char *opt_closest(const char *s, size_t len, const char *const *names, size_t n)
{
	const char *best = NULL, *prefix_of = NULL;
	unsigned best_d = UINT32_MAX, prefixes = 0;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t nl = strlen(names[i]);
		unsigned d = opt_distance(s, len, names[i]);
		if (d < best_d && d <= MAX(1u, (unsigned)nl / OPT_HINT_EDIT_DIV)) {
			best_d = d;
			best = names[i];
		}
		if (len >= OPT_HINT_MIN_PREFIX && len < nl && !memcmp(s, names[i], len)) {
			prefixes++;
			prefix_of = names[i];
		}
	}
	return best ? best : prefixes == 1 ? prefix_of : NULL;
}

/* The key of each row, for hints and for the list of valid keys. */
static const char *opt_key_names[ARRAY_SIZE(opt_rows)];

static void opt_key_list(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_rows); i++)
		opt_key_names[i] = opt_rows[i].type == OPT_T_IGNORED ? NULL : opt_rows[i].name;
}

static const struct opt_row *opt_lookup(const char *key, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_rows); i++)
		if (opt_eq(key, n, opt_rows[i].name))
			return &opt_rows[i];
	return NULL;
}

/* Index of s in names[0..n), or -1. */
static int opt_find(const char *s, size_t len, const char *const *names,
		    unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (names[i] && opt_eq(s, len, names[i]))
			return (int)i;
	return -1;
}


static void opt_valid_range(struct opt_parser *p, const struct opt_row *row)
{
	struct opt_error *e = opt_last(p);
	if (e)
		fmt_snprintf(e->valid, sizeof(e->valid), "%u..%u", row->min, row->max);
}

static void opt_uint(struct opt_parser *p, const struct opt_row *row,
		     const char *key, size_t klen, const char *v, size_t vlen,
		     uint32_t *dst)
{
	uint64_t x = 0;

	for (size_t i = 0; i < vlen; i++) {
		if (v[i] < '0' || v[i] > '9') {
			opt_error(p, key, klen, v, vlen, "not a number");
			opt_valid_range(p, row);
			return;
		}
		x = x * OPT_DEC_BASE + (uint64_t)(v[i] - '0');
		if (x > row->max)
			x = (uint64_t)row->max + 1;  /* saturate: no wrap */
	}
	if (x < row->min || x > row->max) {
		opt_error(p, key, klen, v, vlen, "out of range %u..%u",
			  row->min, row->max);
		opt_valid_range(p, row);
		return;
	}
	*dst = (uint32_t)x;
}

static void opt_choice(struct opt_parser *p, const struct opt_row *row,
		       const char *key, size_t klen, const char *v, size_t vlen,
		       uint32_t *dst)
{
	char list[OPT_CHOICE_LIST_MAX];
	int i = opt_find(v, vlen, row->choices, row->n_choices);

	if (i >= 0) {
		*dst = (uint32_t)i;
		return;
	}
	opt_choice_list(list, sizeof(list), row);
	opt_error(p, key, klen, v, vlen, "expected one of %s", list);
	opt_valid_names(p, row->choices, row->n_choices, NULL);
	const char *near = opt_closest(v, vlen, row->choices, row->n_choices);
	if (near)
		opt_hint(p, row->name, near);
}

/*
 * A comma list: each good item sets its bit, each bad one is an error that
 * names it. The option changes only if at least one item was good.
 */
static void opt_list(struct opt_parser *p, const struct opt_row *row,
		     const char *key, size_t klen, const char *v, size_t vlen,
		     uint32_t *dst)
{
	bool workloads = row->type == OPT_T_WORKLOADS;
	const char *const *names = workloads ? p->names : row->choices;
	unsigned n = workloads ? p->n_names : row->n_choices;
	const char *all = workloads ? OPT_LIST_ALL : OPT_SET_EMPTY;
	uint32_t all_bits = workloads ? OPT_WORKLOADS_ALL : 0;
	uint32_t bits = 0;
	bool any = false;
	char list[OPT_CHOICE_LIST_MAX];
	size_t start = 0;

	while (start <= vlen) {
		const char *item = v + start;
		const char *comma = opt_chr(item, vlen - start, OPT_LIST_SEP);
		size_t ilen = comma ? (size_t)(comma - item) : vlen - start;
		int i = opt_find(item, ilen, names, n);

		start += ilen + 1;
		if (!ilen) {
			opt_error(p, key, klen, v, vlen, "empty list item");
		} else if (opt_eq(item, ilen, all)) {
			bits |= all_bits;
			any = true;
		} else if (i >= 0) {
			bits |= 1u << i;
			any = true;
		} else {
			if (workloads) {
				opt_error(p, key, klen, item, ilen, "unknown workload");
			} else {
				opt_choice_list(list, sizeof(list), row);
				opt_error(p, key, klen, item, ilen, "expected one of %s", list);
			}
			opt_valid_names(p, names, n, all);
			const char *near = opt_closest(item, ilen, names, n);
			if (near)
				opt_hint(p, row->name, near);
		}
	}
	if (any)
		*dst = bits;
}

/* 150, 150s, 30m, 2h, 1h30m: a sum of numbers each with a unit (a lone
 * number is seconds). */
static void opt_duration(struct opt_parser *p, const struct opt_row *row, const char *key, size_t klen,
			 const char *v, size_t vlen, uint32_t *dst)
{
	uint64_t total = 0, num = 0;
	bool digits = false, units = false;
	for (size_t i = 0; i < vlen; i++) {
		char c = v[i];
		if (c >= '0' && c <= '9') {
			num = num * OPT_DEC_BASE + (uint64_t)(c - '0');
			digits = true;
			if (num > row->max)
				goto range;
			continue;
		}
		uint64_t mul = c == 's' ? 1 : c == 'm' ? 60 : c == 'h' ? 3600 : 0;
		if (!mul || !digits) {
			opt_error(p, key, klen, v, vlen, "not a duration (150s, 30m, 2h, 1h30m)");
			return;
		}
		total += num * mul;
		num = 0;
		digits = false;
		units = true;
		if (total > row->max)
			goto range;
	}
	if (digits && units) {
		opt_error(p, key, klen, v, vlen, "a number without a unit after one with a unit");
		return;
	}
	total += num;
	if (total >= row->min && total <= row->max) {
		*dst = (uint32_t)total;
		return;
	}
range:
	opt_error(p, key, klen, v, vlen, "out of range %us..%us", row->min, row->max);
}

static bool opt_prefix(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	return n >= pl && !memcmp(s, prefix, pl);
}

/* 0x-prefixed hex (up to 64 bits) or decimal; false if not a number. */
static bool opt_number(const char *s, size_t n, uint64_t *out)
{
	unsigned base = OPT_DEC_BASE;
	uint64_t x = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = OPT_HEX_BASE;
		s += 2;
		n -= 2;
	}
	if (!n || n > (base == OPT_HEX_BASE ? 16u : 19u))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = opt_lower(s[i]);
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : base == OPT_HEX_BASE && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : base;
		if (d >= base)
			return false;
		x = x * base + d;
	}
	*out = x;
	return true;
}

/* console=FORM[,BAUD]: all four fields change together, or none does. */
static void opt_console(struct opt_parser *p, const char *key, size_t klen, const char *v,
			size_t vlen, struct options *o)
{
	const char *comma = opt_chr(v, vlen, OPT_LIST_SEP);
	size_t flen = comma ? (size_t)(comma - v) : vlen;
	uint64_t addr = 0, baud = 0;
	enum opt_console kind = OPT_CONSOLE_NONE;

	if (opt_eq(v, vlen, OPT_CONSOLE_NONE_WORD)) {
		o->console = OPT_CONSOLE_NONE;
		o->console_addr_lo = o->console_addr_hi = o->console_baud = 0;
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(opt_com_ports); i++)
		if (opt_eq(v, flen, opt_com_ports[i].name)) {
			kind = OPT_CONSOLE_IO;
			addr = opt_com_ports[i].port;
		}
	if (kind == OPT_CONSOLE_NONE) {
		static const struct {
			const char *prefix;
			enum opt_console kind;
		} forms[] = { { OPT_CONSOLE_IO_PREFIX, OPT_CONSOLE_IO },
			      { OPT_CONSOLE_MMIO32_PREFIX, OPT_CONSOLE_MMIO32 },
			      { OPT_CONSOLE_MMIO8_PREFIX, OPT_CONSOLE_MMIO8 } };
		for (size_t i = 0; i < ARRAY_SIZE(forms) && kind == OPT_CONSOLE_NONE; i++) {
			size_t pl = strlen(forms[i].prefix);
			if (!opt_prefix(v, flen, forms[i].prefix))
				continue;
			if (!opt_number(v + pl, flen - pl, &addr) || !addr) {
				opt_error(p, key, klen, v, vlen, "bad address in %s", forms[i].prefix);
				return;
			}
			kind = forms[i].kind;
		}
	}
	if (kind == OPT_CONSOLE_NONE) {
		opt_error(p, key, klen, v, vlen, "expected %s", OPT_CONSOLE_FORMS);
		return;
	}
	if (kind == OPT_CONSOLE_IO && addr > OPT_IO_PORT_MAX) {
		opt_error(p, key, klen, v, vlen, "I/O port out of range 1..0x%x", OPT_IO_PORT_MAX);
		return;
	}
	if (comma && (!opt_number(comma + 1, vlen - flen - 1, &baud) || baud < OPT_CONSOLE_BAUD_MIN ||
		      baud > OPT_CONSOLE_BAUD_MAX)) {
		opt_error(p, key, klen, v, vlen, "baud rate out of range %u..%u", OPT_CONSOLE_BAUD_MIN,
			  OPT_CONSOLE_BAUD_MAX);
		return;
	}
	o->console = kind;
	o->console_addr_lo = (uint32_t)addr;
	o->console_addr_hi = (uint32_t)(addr >> 32);
	o->console_baud = (uint32_t)baud;
}

/* A bare word that is a workload or a choice of some key (say "counter" or
 * "quick") was meant as that key's value. */
static void opt_bare_hint(struct opt_parser *p, const char *w, size_t n)
{
	if (opt_find(w, n, p->names, p->n_names) >= 0) {
		char val[OPT_ERR_VALUE_LEN];
		opt_copy(val, sizeof(val), w, n);
		opt_hint(p, "workloads", val);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(opt_rows); i++) {
		const struct opt_row *row = &opt_rows[i];
		int k = row->choices && row->type != OPT_T_IGNORED ? opt_find(w, n, row->choices, row->n_choices) : -1;
		if (k >= 0 && row->choices != opt_onoff_names) {
			opt_hint(p, row->name, row->choices[k]);
			return;
		}
	}
}

static void opt_word(struct opt_parser *p, struct options *o, uint32_t *seen,
		     const char *w, size_t n)
{
	const char *eq = opt_chr(w, n, '=');
	size_t klen, vlen;
	const char *v;
	const struct opt_row *row;
	uint32_t bit;

	if (eq) {
		klen = (size_t)(eq - w);
		v = eq + 1;
		vlen = n - klen - 1;
	} else {
		/* A bare word is allowed for on/off keys only: "safe" means "safe=on". */
		row = opt_lookup(w, n);
		if (!row || row->choices != opt_onoff_names) {
			opt_error(p, w, n, "", 0, "missing '='");
			opt_bare_hint(p, w, n);
			return;
		}
		klen = n;
		v = opt_onoff_names[OPT_ON];
		vlen = strlen(v);
	}
	if (!klen) {
		opt_error(p, w, 0, v, vlen, "empty key");
		return;
	}
	row = opt_lookup(w, klen);
	if (!row) {
		opt_error(p, w, klen, v, vlen, "unknown key");
		opt_valid_names(p, opt_key_names, ARRAY_SIZE(opt_key_names), NULL);
		const char *near = opt_closest(w, klen, opt_key_names, ARRAY_SIZE(opt_key_names));
		struct opt_error *e = opt_last(p);
		if (near && e) {
			char val[OPT_ERR_VALUE_LEN];
			opt_copy(val, sizeof(val), v, vlen);
			opt_hint(p, near, val);
		}
		return;
	}
	if (row->type == OPT_T_IGNORED)
		return;
	/* A key given twice is no mistake: the menu entry's words come after
	 * quietbench.cfg's qb_options, and the later one wins (grub.cfg). */
	bit = 1u << (row - opt_rows);
	*seen |= bit;
	if (!vlen) {
		opt_error(p, w, klen, v, vlen, "empty value");
		return;
	}
	switch (row->type) {
	case OPT_T_UINT:
		opt_uint(p, row, w, klen, v, vlen, opt_field(o, row));
		break;
	case OPT_T_CHOICE:
		opt_choice(p, row, w, klen, v, vlen, opt_field(o, row));
		break;
	case OPT_T_CONSOLE:
		opt_console(p, w, klen, v, vlen, o);
		break;
	case OPT_T_DURATION:
		opt_duration(p, row, w, klen, v, vlen, opt_field(o, row));
		break;
	default:
		opt_list(p, row, w, klen, v, vlen, opt_field(o, row));
		break;
	}
}

/* ---- Public Functions ----------------------------------------------------- */

void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < ARRAY_SIZE(opt_rows); i++)
		if (opt_rows[i].type != OPT_T_IGNORED)
			*opt_field(o, &opt_rows[i]) = opt_rows[i].def;
}

int options_parse(const char *cmdline, const char *const *workload_names,
		  unsigned n_names, struct options *o, struct opt_error *errs,
		  unsigned max_errs)
{
	struct opt_parser p = {
		.errs = errs,
		.max_errs = errs ? max_errs : 0,
		.names = workload_names,
		.n_names = workload_names ? MIN(n_names, OPT_MAX_WORKLOADS) : 0,
	};
	const char *s = cmdline ? cmdline : "";
	uint32_t seen = 0;
	bool first = true;

	options_defaults(o);
	opt_key_list();
	for (;;) {
		const char *w;

		while (opt_is_space(*s))
			s++;
		if (!*s)
			break;
		w = s;
		while (*s && !opt_is_space(*s))
			s++;
		if (!(first && opt_is_program(w, (size_t)(s - w))))
			opt_word(&p, o, &seen, w, (size_t)(s - w));
		first = false;
	}
	/* Now that the count is known, "all" is exactly the named bits. */
	if (p.n_names < OPT_MAX_WORKLOADS)
		o->workloads &= (1u << p.n_names) - 1;
	return (int)MIN(p.count, (unsigned)__INT_MAX__);
}
