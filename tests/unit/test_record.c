/* test_record.c - host tests for kernel/console/record.c: exact lines, escaping, overflow, nesting, CRC and a strict JSON check. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "json_check.h"
#include "record.h"

#define BUF_SIZE 4096
#define GUARD_SIZE 32
#define GUARD_BYTE 0xa5
#define REF_POLY 0xedb88320u
#define FUZZ_RECORDS 2000
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The JSON of the sample record below, and zlib.crc32() of it (Python). */
static const char sample_json[] =
	"{\"v\":1,\"kind\":\"sample\",\"u\":18446744073709551615,"
	"\"i\":-9223372036854775808,\"t\":true,\"f\":false,\"n\":null,"
	"\"s\":\"a\\\"b\\\\c/\\u000a\\u0001\\u007f\\u00e9\",\"sn\":\"ABC\","
	"\"nul\":null,\"h\":\"0xdeadbeef\",\"h0\":\"0x0\",\"f2\":1234.57,"
	"\"fneg\":-0.500,\"nan\":null,\"inf\":null,\"f0\":2,"
	"\"o\":{\"a\":1,\"arr\":[1,\"x\",{},[],true,null,-1,\"0xff\",0.1]},"
	"\"empty\":[],\"eo\":{}}";
#define SAMPLE_ZLIB_CRC 0xb2ef80c2u

static uint64_t rng_state = 0x94d049bb133111ebull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint32_t ref_crc32(const char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= (uint8_t)p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ REF_POLY : crc >> 1;
	}
	return ~crc;
}

TEST(json_checker_self_test)
{
	static const char *const good[] = {
		"{}", "{\"a\":1}", "{\"a\":[1,-0.5,1e3,\"x\\u00e9\"],\"b\":{}}",
		"{ \"a\" : [ true , false , null ] }",
	};
	static const char *const bad[] = {
		"", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":01}",
		"{\"a\":1.}", "{\"a\":.5}", "{\"a\":\"\x01\"}", "{\"a\":\"\\x\"}",
		"{\"a\":\"\\u12g4\"}", "{a:1}", "[1]", "{\"a\":1}x", "{\"a\":tru}",
		"{\"a\":[1,]}", "{\"a\":\"unterminated}", "{\"a\":+1}",
	};

	for (size_t i = 0; i < NELEM(good); i++)
		CHECK(json_object_valid(good[i], strlen(good[i])));
	for (size_t i = 0; i < NELEM(bad); i++)
		CHECK(!json_object_valid(bad[i], strlen(bad[i])));
}

/* ---- Helpers ------------------------------------------------------------- */

/* Build the record whose JSON is sample_json; returns rec_finish's result. */
static const char *build_sample(struct rec *r, char *buf, size_t cap,
				size_t *len)
{
	rec_begin(r, buf, cap, "sample");
	rec_u64(r, "u", UINT64_MAX);
	rec_i64(r, "i", INT64_MIN);
	rec_bool(r, "t", true);
	rec_bool(r, "f", false);
	rec_null(r, "n");
	rec_str(r, "s", "a\"b\\c/\n\x01\x7f\xe9");
	rec_strn(r, "sn", "ABCDEF", 3);
	rec_str(r, "nul", NULL);
	rec_hex(r, "h", 0xdeadbeef);
	rec_hex(r, "h0", 0);
	rec_f64(r, "f2", 1234.5678, 2);
	rec_f64(r, "fneg", -0.5, 3);
	rec_f64(r, "nan", NAN, 3);
	rec_f64(r, "inf", -INFINITY, 1);
	rec_f64(r, "f0", 2.5, 0);
	rec_obj_begin(r, "o");
	rec_u64(r, "a", 1);
	rec_arr_begin(r, "arr");
	rec_u64(r, NULL, 1);
	rec_str(r, NULL, "x");
	rec_obj_begin(r, NULL);
	rec_obj_end(r);
	rec_arr_begin(r, NULL);
	rec_arr_end(r);
	rec_bool(r, NULL, true);
	rec_null(r, NULL);
	rec_i64(r, NULL, -1);
	rec_hex(r, NULL, 0xff);
	rec_f64(r, NULL, 0.1, 1);
	rec_arr_end(r);
	rec_obj_end(r);
	rec_arr_begin(r, "empty");
	rec_arr_end(r);
	rec_obj_begin(r, "eo");
	rec_obj_end(r);
	return rec_finish(r, len);
}

/* Check a finished line: shape, CRC against the reference, strict JSON. */
static void check_line_ok(const char *line, size_t len)
{
	const char *json = NULL;
	size_t jlen = 0;
	char crc[16];

	CHECK(line != NULL);
	if (!line)
		return;
	CHECK_EQ_U(strlen(line), len);
	if (!rec_check_line(line, len, &json, &jlen)) {
		printf("  rejected: %s\n", line);
		CHECK(!"rec_check_line accepts the line");
		return;
	}
	CHECK(json == line + strlen(REC_PREFIX));
	CHECK_EQ_U(jlen, len - strlen(REC_PREFIX) - 9);
	CHECK(json_object_valid(json, jlen));
	CHECK(memcmp(json, "{\"v\":1,\"kind\":\"", 15) == 0);
	snprintf(crc, sizeof(crc), " %08x", ref_crc32(json, jlen));
	CHECK_STR(line + len - 9, crc);
	for (size_t i = 0; i < len; i++)
		CHECK(line[i] >= 0x20 && line[i] <= 0x7e);
}

/* ---- Tests ---------------------------------------------------------------- */

TEST(every_value_type)
{
	static char buf[BUF_SIZE];
	char want[BUF_SIZE];
	struct rec r;
	size_t len;
	const char *line = build_sample(&r, buf, sizeof(buf), &len);

	snprintf(want, sizeof(want), "@qb %s %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK_STR(line, want);
	CHECK_EQ_U(len, strlen(want));
	CHECK_EQ_U(ref_crc32(sample_json, strlen(sample_json)), SAMPLE_ZLIB_CRC);
	check_line_ok(line, len);
}

TEST(minimal_record)
{
	char buf[64], want[64];
	struct rec r;
	size_t len;
	const char *line;
	static const char json[] = "{\"v\":1,\"kind\":\"boot\"}";

	rec_begin(&r, buf, sizeof(buf), "boot");
	line = rec_finish(&r, &len);
	snprintf(want, sizeof(want), "@qb %s %08x", json,
		 ref_crc32(json, strlen(json)));
	CHECK_STR(line, want);
	check_line_ok(line, len);
	CHECK(rec_finish(&r, &len) == NULL);  /* second finish */
	CHECK_STR(buf, want);                  /* ... leaves the line alone */
	rec_u64(&r, "late", 1);                /* so do members after it */
	CHECK_STR(buf, want);
}

TEST(escaping)
{
	static char buf[BUF_SIZE];
	char all[256], want[BUF_SIZE];
	struct rec r;
	size_t len, w = 0;
	const char *line;

	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	rec_begin(&r, buf, sizeof(buf), "esc\"ape");
	rec_str(&r, "all", all);
	line = rec_finish(&r, &len);
	check_line_ok(line, len);
	w += (size_t)snprintf(want + w, sizeof(want) - w,
			      "@qb {\"v\":1,\"kind\":\"esc\\\"ape\",\"all\":\"");
	for (int c = 1; c < 256; c++) {
		if (c == '"' || c == '\\')
			w += (size_t)snprintf(want + w, sizeof(want) - w, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			w += (size_t)snprintf(want + w, sizeof(want) - w,
					      "\\u%04x", c);
		else
			want[w++] = (char)c;
	}
	want[w] = '\0';
	CHECK(line && strncmp(line, want, w) == 0);
	CHECK(line && strncmp(line + w, "\"} ", 3) == 0);
}

TEST(strn_and_null_strings)
{
	char buf[256];
	struct rec r;
	size_t len;
	const char *line;
	static const char oem[6] = { 'B', 'O', 'C', 'H', 'S', ' ' };
	static const char padded[6] = { 'A', 'B', '\0', 'X', 'Y', 'Z' };

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_strn(&r, "oem", oem, sizeof(oem));   /* not NUL-terminated */
	rec_strn(&r, "pad", padded, sizeof(padded));
	rec_strn(&r, "zero", "abc", 0);
	rec_strn(&r, "null", NULL, 5);
	rec_str(&r, "empty", "");
	line = rec_finish(&r, &len);
	check_line_ok(line, len);
	CHECK(line && strstr(line, ",\"oem\":\"BOCHS \",\"pad\":\"AB\","
			     "\"zero\":\"\",\"null\":null,\"empty\":\"\"} "));
}

TEST(numbers)
{
	static char buf[BUF_SIZE];
	struct rec r;
	size_t len;
	const char *line;

	char want[BUF_SIZE];

	rec_begin(&r, buf, sizeof(buf), "n");
	rec_f64(&r, "neg_dec", 1.25, -3);     /* clamped to 0 decimals */
	rec_f64(&r, "many", 0.1, 100);        /* clamped to REC_MAX_DECIMALS */
	rec_f64(&r, "negzero", -0.0, 2);
	rec_f64(&r, "huge", 1e300, 2);
	rec_f64(&r, "tiny", 1e-300, 3);
	rec_f64(&r, "nan", -NAN, 2);
	rec_u64(&r, "zero", 0);
	rec_i64(&r, "max", INT64_MAX);
	rec_hex(&r, "max", UINT64_MAX);
	line = rec_finish(&r, &len);
	check_line_ok(line, len);
	snprintf(want, sizeof(want), "\"neg_dec\":1,\"many\":0.10000000000000001,"
		 "\"negzero\":-0.00,\"huge\":%.2f,\"tiny\":0.000,\"nan\":null,"
		 "\"zero\":0,\"max\":9223372036854775807,"
		 "\"max\":\"0xffffffffffffffff\"}", 1e300);
	CHECK(line && strstr(line, want));
}

TEST(overflow_at_every_size)
{
	static char full[BUF_SIZE];
	struct rec r;
	size_t full_len, len;

	CHECK(build_sample(&r, full, sizeof(full), &full_len) != NULL);
	for (size_t cap = 0; cap <= full_len + 1; cap++) {
		/* Guarded: the bytes after cap must never change. */
		char *buf = malloc(cap + GUARD_SIZE);
		const char *line;

		memset(buf, GUARD_BYTE, cap + GUARD_SIZE);
		line = build_sample(&r, buf, cap, &len);
		for (size_t i = cap; i < cap + GUARD_SIZE; i++)
			if ((unsigned char)buf[i] != GUARD_BYTE) {
				CHECK_EQ_U(i, cap + GUARD_SIZE);
				break;
			}
		if (cap <= full_len) {
			CHECK(line == NULL);
			CHECK_EQ_U(len, 0);
			CHECK(cap == 0 || buf[0] == '\0');
		} else {
			CHECK(line == buf);
			CHECK_STR(line, full);
			CHECK_EQ_U(len, full_len);
		}
		free(buf);
		/* Exact-size allocation: ASan sees any write past cap. */
		buf = malloc(cap ? cap : 1);
		line = build_sample(&r, cap ? buf : NULL, cap, &len);
		CHECK((line != NULL) == (cap > full_len));
		free(buf);
	}
}

TEST(unbalanced_nesting)
{
	char buf[512];
	struct rec r;
	size_t len;

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_obj_begin(&r, "o");
	CHECK(rec_finish(&r, &len) == NULL);   /* object left open */
	CHECK_STR(buf, "");
	CHECK_EQ_U(len, 0);

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_arr_begin(&r, "a");
	CHECK(rec_finish(&r, &len) == NULL);   /* array left open */

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_obj_end(&r);                         /* closes the record itself */
	CHECK(rec_finish(&r, &len) == NULL);

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_arr_end(&r);
	CHECK(rec_finish(&r, &len) == NULL);

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_obj_begin(&r, "o");
	rec_arr_end(&r);                         /* wrong closer */
	rec_obj_end(&r);
	CHECK(rec_finish(&r, &len) == NULL);

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_arr_begin(&r, "a");
	rec_obj_end(&r);                         /* wrong closer */
	rec_arr_end(&r);
	CHECK(rec_finish(&r, &len) == NULL);

	rec_begin(&r, buf, sizeof(buf), "k");
	rec_obj_begin(&r, "o");
	rec_obj_end(&r);
	rec_obj_end(&r);                         /* one too many */
	CHECK(rec_finish(&r, &len) == NULL);
}

TEST(nesting_depth_limit)
{
	char buf[512];
	struct rec r;
	size_t len;

	const char *line;

	rec_begin(&r, buf, sizeof(buf), "deep");
	for (int i = 1; i < REC_MAX_DEPTH; i++)
		rec_obj_begin(&r, "d");
	for (int i = 1; i < REC_MAX_DEPTH; i++)
		rec_obj_end(&r);
	line = rec_finish(&r, &len);
	check_line_ok(line, len);

	rec_begin(&r, buf, sizeof(buf), "deeper");
	for (int i = 0; i < REC_MAX_DEPTH; i++)
		rec_arr_begin(&r, i ? NULL : "a");
	for (int i = 0; i < REC_MAX_DEPTH; i++)
		rec_arr_end(&r);
	CHECK(rec_finish(&r, &len) == NULL);
}

TEST(bad_keys)
{
	static const char *const bad[] = { "", "1a", "a-b", "a b", "a\"b",
					   "\xc3\xa9", "a.b", "a\\", "k\n" };
	static const char *const good[] = { "a", "_", "A_1", "_x9",
					    "tsc_hz", "CamelCase" };
	const char *line;
	char buf[256];
	struct rec r;
	size_t len;

	for (size_t i = 0; i < NELEM(bad); i++) {
		rec_begin(&r, buf, sizeof(buf), "k");
		rec_u64(&r, bad[i], 1);
		CHECK(rec_finish(&r, &len) == NULL);
	}
	for (size_t i = 0; i < NELEM(good); i++) {
		rec_begin(&r, buf, sizeof(buf), "k");
		rec_u64(&r, good[i], 1);
		line = rec_finish(&r, &len);
		check_line_ok(line, len);
	}
	/* NULL key in an object, a key in an array, NULL kind. */
	rec_begin(&r, buf, sizeof(buf), "k");
	rec_u64(&r, NULL, 1);
	CHECK(rec_finish(&r, &len) == NULL);
	rec_begin(&r, buf, sizeof(buf), "k");
	rec_arr_begin(&r, "a");
	rec_u64(&r, "x", 1);
	rec_arr_end(&r);
	CHECK(rec_finish(&r, &len) == NULL);
	rec_begin(&r, buf, sizeof(buf), NULL);
	CHECK(rec_finish(&r, &len) == NULL);
}

TEST(check_line_accepts_and_rejects)
{
	static char buf[BUF_SIZE], copy[BUF_SIZE + 2];
	struct rec r;
	size_t len;
	const char *line = build_sample(&r, buf, sizeof(buf), &len);
	unsigned rejected = 0, tried = 0;

	CHECK(line && rec_check_line(line, len, NULL, NULL));
	if (!line)
		return;
	/* Any single-byte change anywhere is caught (CRC-32 burst length 32). */
	memcpy(copy, line, len);
	for (size_t i = 0; i < len; i++) {
		for (int v = 0; v < 256; v++) {
			if (v == (unsigned char)line[i])
				continue;
			copy[i] = (char)v;
			tried++;
			rejected += !rec_check_line(copy, len, NULL, NULL);
		}
		copy[i] = line[i];
	}
	CHECK_EQ_U(rejected, tried);
	/* Every truncation, and trailing extras. */
	for (size_t n = 0; n < len; n++)
		CHECK(!rec_check_line(line, n, NULL, NULL));
	memcpy(copy, line, len);
	copy[len] = '\n';
	CHECK(!rec_check_line(copy, len + 1, NULL, NULL));
	copy[len] = ' ';
	CHECK(!rec_check_line(copy, len + 1, NULL, NULL));
	/* A wrong CRC, and the right one in uppercase. */
	memcpy(copy, line, len);
	copy[len - 1] = copy[len - 1] == '0' ? '1' : '0';
	CHECK(!rec_check_line(copy, len, NULL, NULL));
	snprintf(copy, sizeof(copy), "@qb %s %08X", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
	snprintf(copy, sizeof(copy), "@qb %s %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(rec_check_line(copy, strlen(copy), NULL, NULL));
	/* Missing or wrong prefix, doubled spaces. */
	snprintf(copy, sizeof(copy), "%s %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
	snprintf(copy, sizeof(copy), "@qb  %s %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
	snprintf(copy, sizeof(copy), "@qb %s  %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
	snprintf(copy, sizeof(copy), "@QB %s %08x", sample_json, SAMPLE_ZLIB_CRC);
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
	CHECK(!rec_check_line(NULL, 0, NULL, NULL));
	CHECK(!rec_check_line("", 0, NULL, NULL));
	/* The smallest well-formed line, and a non-ASCII one with a valid CRC. */
	snprintf(copy, sizeof(copy), "@qb {} %08x", ref_crc32("{}", 2));
	CHECK(rec_check_line(copy, strlen(copy), NULL, NULL));
	snprintf(copy, sizeof(copy), "@qb {\"\xe9\"} %08x",
		 ref_crc32("{\"\xe9\"}", 5));
	CHECK(!rec_check_line(copy, strlen(copy), NULL, NULL));
}

/* Random well-formed records: every one must be valid JSON with a good CRC. */
TEST(fuzz_well_formed)
{
	static char buf[BUF_SIZE];
	static const char *const keys[] = { "a", "b_1", "tsc", "cpu", "x" };

	for (int t = 0; t < FUZZ_RECORDS; t++) {
		struct rec r;
		size_t len;
		int open = 1;
		char s[8];

		rec_begin(&r, buf, sizeof(buf), "fuzz");
		for (int op = 0; op < 40; op++) {
			const char *k = r.is_array[r.depth - 1] ? NULL
				      : keys[rng() % NELEM(keys)];
			uint64_t x = rng();

			for (size_t i = 0; i < sizeof(s); i++)
				s[i] = (char)rng();
			switch (rng() % 11) {
			case 0: rec_u64(&r, k, x); break;
			case 1: rec_i64(&r, k, (int64_t)x); break;
			case 2: rec_bool(&r, k, x & 1); break;
			case 3: rec_null(&r, k); break;
			case 4: rec_strn(&r, k, s, sizeof(s)); break;
			case 5: rec_hex(&r, k, x); break;
			case 6: {
				double d;

				memcpy(&d, &x, sizeof(d));
				rec_f64(&r, k, d, (int)(x % 20));
				break;
			}
			case 7:
				if (open < REC_MAX_DEPTH) {
					rec_obj_begin(&r, k);
					open++;
				}
				break;
			case 8:
				if (open < REC_MAX_DEPTH) {
					rec_arr_begin(&r, k);
					open++;
				}
				break;
			default:
				if (open > 1) {
					if (r.is_array[r.depth - 1])
						rec_arr_end(&r);
					else
						rec_obj_end(&r);
					open--;
				}
				break;
			}
		}
		while (open-- > 1) {
			if (r.is_array[r.depth - 1])
				rec_arr_end(&r);
			else
				rec_obj_end(&r);
		}
		const char *line = rec_finish(&r, &len);

		if (!line) {
			/* Only a huge number may legitimately overflow. */
			CHECK(r.overflow && !r.invalid);
			continue;
		}
		check_line_ok(line, len);
		if (check_cur_failed) {
			printf("  %s\n", line);
			break;
		}
	}
}

int main(void)
{
	RUN(json_checker_self_test);
	RUN(every_value_type);
	RUN(minimal_record);
	RUN(escaping);
	RUN(strn_and_null_strings);
	RUN(numbers);
	RUN(overflow_at_every_size);
	RUN(unbalanced_nesting);
	RUN(nesting_depth_limit);
	RUN(bad_keys);
	RUN(check_line_accepts_and_rejects);
	RUN(fuzz_well_formed);
	return check_summary("record");
}
