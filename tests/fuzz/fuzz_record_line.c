/* fuzz_record_line.c - libFuzzer harness for rec_check_line() (kernel/console/record.h) on arbitrary bytes, such as a damaged serial line.
 *
 * The input is the line, in an exact-size heap block with no NUL after it,
 * so ASan sees any read past len. rec_check_line()'s verdict and the JSON
 * location it reports must match a second reading of record.h's rule done
 * here independently: "@qb ", one '{'..'}' of printable ASCII, one space, and
 * 8 lowercase hex digits that are the CRC-32 (zlib's) of the braces' text. */
#include <stdbool.h>

#include "fuzz.h"
#include "record.h"

/* ---- Constants ---------------------------------------------------------- */

#define CRC_DIGITS 8
#define TAIL_LEN (1 + CRC_DIGITS)      /* " xxxxxxxx" */
#define CRC32_POLY 0xedb88320u         /* reflected IEEE 802.3, as zlib */

/* ---- Private Functions -------------------------------------------------- */

static uint32_t crc32_ref(const char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= (uint8_t)p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (CRC32_POLY & (0u - (crc & 1)));
	}
	return ~crc;
}

/* The reference verdict. */
static bool line_ok(const char *s, size_t n)
{
	size_t pre = strlen(REC_PREFIX), json_len;
	uint32_t want = 0;

	if (n < pre + 2 + TAIL_LEN || memcmp(s, REC_PREFIX, pre))
		return false;
	json_len = n - pre - TAIL_LEN;
	if (s[pre] != '{' || s[pre + json_len - 1] != '}' || s[pre + json_len] != ' ')
		return false;
	if (!fuzz_printable(s + pre, json_len))
		return false;
	for (size_t i = n - CRC_DIGITS; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			want = want << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			want = want << 4 | (uint32_t)(c - 'a' + 10);
		else
			return false;
	}
	return crc32_ref(s + pre, json_len) == want;
}

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1);
	const char *json = NULL;
	size_t json_len = 0;
	bool ok;

	if (!line)
		return 0;
	memcpy(line, data, size);
	ok = rec_check_line(line, size, &json, &json_len);
	FUZZ_ASSERT(ok == line_ok(line, size));
	if (ok) {
		FUZZ_ASSERT(json == line + strlen(REC_PREFIX));
		FUZZ_ASSERT(json_len == size - strlen(REC_PREFIX) - TAIL_LEN);
	} else {
		FUZZ_ASSERT(json == NULL && json_len == 0);
	}
	FUZZ_ASSERT(rec_check_line(line, size, NULL, NULL) == ok);
	FUZZ_ASSERT(!rec_check_line(NULL, size, NULL, NULL));
	free(line);
	return 0;
}
