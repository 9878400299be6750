/* fuzz.h - what every libFuzzer harness in tests/fuzz shares: the invariant check and a reader of fuzz bytes.
 *
 * Header-only, like tests/unit/check.h. A broken invariant prints where and
 * why, then abort()s: libFuzzer treats that as a crash and keeps the input. */
#ifndef QB_TESTS_FUZZ_H
#define QB_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's entry point, called once per input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with the location and the condition when cond is false. */
#define FUZZ_ASSERT(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant broken: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* Consumes fuzz bytes front to back; past the end every read gives zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n, i;
};

static inline struct fuzz_in fuzz_in(const uint8_t *p, size_t n)
{
	struct fuzz_in in = { p, n, 0 };

	return in;
}

static inline size_t fuzz_left(const struct fuzz_in *in)
{
	return in->n - in->i;
}

/* The next n bytes (n <= 8) as a little-endian number. */
static inline uint64_t fuzz_le(struct fuzz_in *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < n; k++)
		if (in->i < in->n)
			v |= (uint64_t)in->p[in->i++] << (8 * k);
	return v;
}

/* Up to n bytes at the cursor (fewer at the end); *got says how many. */
static inline const uint8_t *fuzz_bytes(struct fuzz_in *in, size_t n, size_t *got)
{
	const uint8_t *p = in->p + in->i;

	*got = n < fuzz_left(in) ? n : fuzz_left(in);
	in->i += *got;
	return p;
}

/* True if the n bytes at s are all printable ASCII (0x20..0x7e). */
static inline int fuzz_printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

/* True if the field of cap bytes holds a NUL-terminated printable string. */
static inline int fuzz_cstr_ok(const char *s, size_t cap)
{
	const char *nul = memchr(s, 0, cap);

	return nul && fuzz_printable(s, (size_t)(nul - s));
}

#endif
