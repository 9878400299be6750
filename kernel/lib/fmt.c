/* fmt.c - a freestanding vsnprintf for the C11 7.21.6.1 subset in fmt.h, with exact %f for IEEE 754 binary64 (its digits from fmt_dec.c). */
#include <stdbool.h>
#include <stdint.h>

#include "fmt.h"
#include "fmt_dec.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */

#define FMT_RET_MAX ((size_t)__INT_MAX__)  /* largest length an int can return */
#define FMT_F_DEFAULT_PREC 6               /* C11 7.21.6.1p8, %f */
#define FMT_U64_MAX_DIGITS 22              /* UINT64_MAX in octal */
#define FMT_PREFIX_MAX 3                   /* sign and "0x" */
#define FMT_NULL_STR "(null)"              /* %s of NULL, as glibc prints it */
#define FMT_NIL_STR "(nil)"                /* %p of NULL, as glibc prints it */

/* IEEE 754-2008 3.4 binary64: sign, 11-bit biased exponent, 52-bit fraction. */
#define DBL_FRAC_BITS 52
#define DBL_EXP_MASK 0x7ffu
#define DBL_SIGN_BIT 63
#define DBL_EXP_BIAS 1023
/* A finite double is mant * 2^(biased_exp - DBL_EXP_SHIFT). */
#define DBL_EXP_SHIFT (DBL_EXP_BIAS + DBL_FRAC_BITS)
#define DEC_BASE 10

/* ---- Types ---------------------------------------------------------------- */

enum fmt_flag {
	FMT_LEFT = 1 << 0,   /* '-' */
	FMT_ZERO = 1 << 1,   /* '0' */
	FMT_PLUS = 1 << 2,   /* '+' */
	FMT_SPACE = 1 << 3,  /* ' ' */
	FMT_ALT = 1 << 4,    /* '#' */
};

enum fmt_len { FMT_LEN_NONE, FMT_LEN_HH, FMT_LEN_H, FMT_LEN_L, FMT_LEN_LL,
	       FMT_LEN_Z, FMT_LEN_J, FMT_LEN_T };

struct fmt_out {
	char *buf;
	size_t cap;
	size_t len;   /* bytes the full output has so far, stored or not */
};

struct fmt_spec {
	unsigned flags;  /* enum fmt_flag */
	size_t width;
	int prec;        /* -1 when absent */
	char conv;
};

/* ---- Private Functions: output -------------------------------------------- */

static void fmt_put(struct fmt_out *o, char c)
{
	/* Keep the last byte of buf for the NUL. */
	if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void fmt_repeat(struct fmt_out *o, char c, size_t n)
{
	while (n && o->len + 1 < o->cap) {
		o->buf[o->len++] = c;
		n--;
	}
	o->len += n;  /* a huge width costs nothing past the buffer */
}

static void fmt_mem(struct fmt_out *o, const char *s, size_t n)
{
	while (n--)
		fmt_put(o, *s++);
}

static void fmt_pad_left(struct fmt_out *o, const struct fmt_spec *s,
			 size_t body)
{
	if (!(s->flags & FMT_LEFT) && s->width > body)
		fmt_repeat(o, ' ', s->width - body);
}

static void fmt_pad_right(struct fmt_out *o, const struct fmt_spec *s,
			  size_t body)
{
	if ((s->flags & FMT_LEFT) && s->width > body)
		fmt_repeat(o, ' ', s->width - body);
}

/* Text padded to the width; the '0' flag does not apply (as in glibc). */
static void fmt_padded(struct fmt_out *o, const struct fmt_spec *s,
		       const char *str, size_t n)
{
	fmt_pad_left(o, s, n);
	fmt_mem(o, str, n);
	fmt_pad_right(o, s, n);
}

static void fmt_string(struct fmt_out *o, const struct fmt_spec *s,
		       const char *str)
{
	size_t n = 0;

	if (!str)
		str = (s->prec < 0 || (size_t)s->prec >= sizeof(FMT_NULL_STR) - 1)
		      ? FMT_NULL_STR : "";
	/* Never read past the precision: the array may not be terminated. */
	while ((s->prec < 0 || n < (size_t)s->prec) && str[n])
		n++;
	fmt_padded(o, s, str, n);
}

/* Body of an integer: prefix, zeros, digits, with the widths of 7.21.6.1. */
static void fmt_integer(struct fmt_out *o, const struct fmt_spec *s,
			uint64_t mag, bool neg, bool is_signed)
{
	const char *xdig = s->conv == 'X' ? "0123456789ABCDEF"
					  : "0123456789abcdef";
	unsigned base = DEC_BASE;
	char digits[FMT_U64_MAX_DIGITS], prefix[FMT_PREFIX_MAX];
	size_t nd = 0, npre = 0, zeros = 0, body;
	uint64_t v = mag;

	if (s->conv == 'o')
		base = 8;
	else if (s->conv == 'x' || s->conv == 'X' || s->conv == 'p')
		base = 16;
	if (s->prec != 0 || v != 0) {
		do {
			digits[nd++] = xdig[v % base];
			v /= base;
		} while (v);
	}
	if (neg)
		prefix[npre++] = '-';
	else if (is_signed && (s->flags & FMT_PLUS))
		prefix[npre++] = '+';
	else if (is_signed && (s->flags & FMT_SPACE))
		prefix[npre++] = ' ';
	if ((s->flags & FMT_ALT) && base == 16 && mag != 0) {
		prefix[npre++] = '0';
		prefix[npre++] = s->conv == 'X' ? 'X' : 'x';
	}
	if (s->prec > 0 && (size_t)s->prec > nd)
		zeros = (size_t)s->prec - nd;
	/* '#' with 'o' raises the precision until the first digit is a 0. */
	if ((s->flags & FMT_ALT) && base == 8 && !zeros &&
	    (nd == 0 || digits[nd - 1] != '0'))
		zeros = 1;
	body = npre + zeros + nd;
	if ((s->flags & FMT_ZERO) && !(s->flags & FMT_LEFT) && s->prec < 0 &&
	    s->width > body) {
		zeros += s->width - body;
		body = s->width;
	}
	fmt_pad_left(o, s, body);
	fmt_mem(o, prefix, npre);
	fmt_repeat(o, '0', zeros);
	while (nd)
		fmt_put(o, digits[--nd]);
	fmt_pad_right(o, s, body);
}

/* ---- Private Functions: %f ----------------------------------------------- */

static void fmt_double(struct fmt_out *o, const struct fmt_spec *s, double v)
{
	char rev[FMT_DEC_INT_DIGITS_MAX + 1], sign = 0;  /* +1: a carry out */
	uint32_t limb[FMT_DEC_FRAC_LIMBS];
	uint64_t bits, mant;
	unsigned bexp;
	size_t prec, ni, nf, lo = 0, body, zeros = 0;
	ptrdiff_t carry_at;
	bool up;
	int e2;

	memcpy(&bits, &v, sizeof(bits));
	bexp = (unsigned)(bits >> DBL_FRAC_BITS) & DBL_EXP_MASK;
	mant = bits & ((1ull << DBL_FRAC_BITS) - 1);
	if (bits >> DBL_SIGN_BIT)
		sign = '-';
	else if (s->flags & FMT_PLUS)
		sign = '+';
	else if (s->flags & FMT_SPACE)
		sign = ' ';

	if (bexp == DBL_EXP_MASK) {
		const char *name = mant ? (s->conv == 'F' ? "NAN" : "nan")
					: (s->conv == 'F' ? "INF" : "inf");
		size_t len = strlen(name) + (sign != 0);

		fmt_pad_left(o, s, len);
		if (sign)
			fmt_put(o, sign);
		fmt_mem(o, name, len - (sign != 0));
		fmt_pad_right(o, s, len);
		return;
	}
	if (bexp)
		mant |= 1ull << DBL_FRAC_BITS;
	else
		bexp = 1;  /* subnormal: same scale as the least normal */
	e2 = (int)bexp - DBL_EXP_SHIFT;
	prec = s->prec < 0 ? FMT_F_DEFAULT_PREC : (size_t)s->prec;

	ni = fmt_dec_int_digits(mant, e2, rev);
	up = fmt_dec_frac_rounds_up(mant, e2, prec, (unsigned)(rev[0] - '0'),
				    &carry_at);
	if (up && carry_at < 0)
		ni = fmt_dec_increment(rev, ni);

	body = (sign != 0) + ni + (prec || (s->flags & FMT_ALT)) + prec;
	if ((s->flags & FMT_ZERO) && !(s->flags & FMT_LEFT) && s->width > body)
		zeros = s->width - body;
	else
		fmt_pad_left(o, s, body);
	if (sign)
		fmt_put(o, sign);
	fmt_repeat(o, '0', zeros);
	while (ni)
		fmt_put(o, rev[--ni]);
	if (prec || (s->flags & FMT_ALT))
		fmt_put(o, '.');

	nf = fmt_dec_frac_load(limb, mant, e2);
	for (size_t i = 0; i < prec; i++) {
		unsigned d;

		if (lo == nf) {
			/* Rounding up leaves a non-zero remainder, so never here. */
			fmt_repeat(o, '0', prec - i);
			break;
		}
		d = fmt_dec_frac_next(limb, &lo, nf);
		if (up && (ptrdiff_t)i == carry_at)
			d++;
		else if (up && (ptrdiff_t)i > carry_at)
			d = 0;
		fmt_put(o, (char)('0' + d));
	}
	fmt_pad_right(o, s, body);
}

/* ---- Private Functions: arguments and parsing ----------------------------- */

static int64_t fmt_arg_signed(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case FMT_LEN_HH: return (signed char)va_arg(*ap, int);
	case FMT_LEN_H:  return (short)va_arg(*ap, int);
	case FMT_LEN_L:  return va_arg(*ap, long);
	case FMT_LEN_LL: return va_arg(*ap, long long);
	case FMT_LEN_Z:  return (int64_t)va_arg(*ap, size_t);
	case FMT_LEN_J:  return va_arg(*ap, intmax_t);
	case FMT_LEN_T:  return va_arg(*ap, ptrdiff_t);
	default:         return va_arg(*ap, int);
	}
}

static uint64_t fmt_arg_unsigned(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case FMT_LEN_HH: return (unsigned char)va_arg(*ap, unsigned int);
	case FMT_LEN_H:  return (unsigned short)va_arg(*ap, unsigned int);
	case FMT_LEN_L:  return va_arg(*ap, unsigned long);
	case FMT_LEN_LL: return va_arg(*ap, unsigned long long);
	case FMT_LEN_Z:  return va_arg(*ap, size_t);
	case FMT_LEN_J:  return va_arg(*ap, uintmax_t);
	case FMT_LEN_T:  return (uint64_t)va_arg(*ap, ptrdiff_t);
	default:         return va_arg(*ap, unsigned int);
	}
}

static unsigned fmt_flag_bit(char c)
{
	switch (c) {
	case '-': return FMT_LEFT;
	case '0': return FMT_ZERO;
	case '+': return FMT_PLUS;
	case ' ': return FMT_SPACE;
	case '#': return FMT_ALT;
	default:  return 0;
	}
}

/* Decimal digits at *p, saturating at INT_MAX. */
static int fmt_parse_num(const char **p)
{
	size_t v = 0;

	while (**p >= '0' && **p <= '9') {
		v = v * DEC_BASE + (size_t)(**p - '0');
		if (v > FMT_RET_MAX)
			v = FMT_RET_MAX;
		(*p)++;
	}
	return (int)v;
}

static enum fmt_len fmt_parse_len(const char **p)
{
	switch (**p) {
	case 'h':
		if (*++*p != 'h')
			return FMT_LEN_H;
		++*p;
		return FMT_LEN_HH;
	case 'l':
		if (*++*p != 'l')
			return FMT_LEN_L;
		++*p;
		return FMT_LEN_LL;
	case 'z': ++*p; return FMT_LEN_Z;
	case 'j': ++*p; return FMT_LEN_J;
	case 't': ++*p; return FMT_LEN_T;
	default:  return FMT_LEN_NONE;
	}
}

/* Parse flags, width and precision of the spec after '%'. */
static void fmt_parse_spec(const char **p, struct fmt_spec *s, va_list *ap)
{
	unsigned bit;

	while ((bit = fmt_flag_bit(**p))) {
		s->flags |= bit;
		(*p)++;
	}
	if (**p == '*') {
		int w = va_arg(*ap, int);

		(*p)++;
		if (w < 0)
			s->flags |= FMT_LEFT;  /* 7.21.6.1p5 */
		s->width = (size_t)(w < 0 ? -(int64_t)w : (int64_t)w);
	} else {
		s->width = (size_t)fmt_parse_num(p);
	}
	if (**p == '.') {
		(*p)++;
		if (**p == '*') {
			int pr = va_arg(*ap, int);

			(*p)++;
			s->prec = pr < 0 ? -1 : pr;
		} else {
			s->prec = fmt_parse_num(p);
		}
	}
}

/* ---- Public Functions ----------------------------------------------------- */

int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct fmt_out o = { .buf = buf, .cap = cap, .len = 0 };
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;
		struct fmt_spec s = { .prec = -1 };
		enum fmt_len len;

		if (*fmt != '%') {
			fmt_put(&o, *fmt++);
			continue;
		}
		fmt++;
		fmt_parse_spec(&fmt, &s, &args);
		len = fmt_parse_len(&fmt);
		s.conv = *fmt;
		if (!s.conv) {
			fmt_mem(&o, start, (size_t)(fmt - start));
			break;
		}
		fmt++;
		switch (s.conv) {
		case 'd':
		case 'i': {
			int64_t v = fmt_arg_signed(len, &args);

			fmt_integer(&o, &s, v < 0 ? 0 - (uint64_t)v : (uint64_t)v,
				    v < 0, true);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			fmt_integer(&o, &s, fmt_arg_unsigned(len, &args), false,
				    false);
			break;
		case 'c': {
			char c = (char)va_arg(args, int);

			fmt_padded(&o, &s, &c, 1);
			break;
		}
		case 's':
			fmt_string(&o, &s, va_arg(args, const char *));
			break;
		case 'p': {
			const void *p = va_arg(args, const void *);

			if (!p) {
				fmt_padded(&o, &s, FMT_NIL_STR,
					   sizeof(FMT_NIL_STR) - 1);
				break;
			}
			/* glibc prints %p as %#lx, sign flags included. */
			s.flags |= FMT_ALT;
			fmt_integer(&o, &s, (uintptr_t)p, false, true);
			break;
		}
		case 'f':
		case 'F':
			fmt_double(&o, &s, va_arg(args, double));
			break;
		case '%':
			fmt_put(&o, '%');
			break;
		case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
			(void)va_arg(args, double);  /* keep later args in step */
			fmt_mem(&o, start, (size_t)(fmt - start));
			break;
		case 'n':
			(void)va_arg(args, void *);  /* never written through */
			/* fall through */
		default:
			fmt_mem(&o, start, (size_t)(fmt - start));
			break;
		}
	}
	va_end(args);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len > FMT_RET_MAX ? -1 : (int)o.len;
}

int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
