/* test_sha256.c - kernel/lib/sha256.c against the test vectors of FIPS 180-4's examples (NIST CSRC "SHA256.pdf": "abc", the 448- and 896-bit messages) and NIST's others (the empty message, a million 'a'), whole and fed in odd pieces across block boundaries, and the truncated hex the records show. */
#include <stdio.h>
#include "check.h"
#include "sha256.h"

static void hex(const uint8_t *d, char *out)
{
	for (unsigned i = 0; i < SHA256_BYTES; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static const char *digest(const char *msg)
{
	static char out[2 * SHA256_BYTES + 1];
	uint8_t d[SHA256_BYTES];
	sha256(msg, strlen(msg), d);
	hex(d, out);
	return out;
}

TEST(nist_vectors)
{
	CHECK_STR(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR(digest("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* A million 'a' in pieces of 1 to 97 bytes: the same digest as in one piece. */
TEST(million_a_in_pieces)
{
	static char a[1000000];
	memset(a, 'a', sizeof(a));
	struct sha256 c;
	sha256_init(&c);
	size_t off = 0, step = 1;
	while (off < sizeof(a)) {
		size_t n = step < sizeof(a) - off ? step : sizeof(a) - off;
		sha256_update(&c, a + off, n);
		off += n;
		step = step % 97 + 1;
	}
	uint8_t d[SHA256_BYTES];
	char out[2 * SHA256_BYTES + 1];
	sha256_final(&c, d);
	hex(d, out);
	CHECK_STR(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* The lengths around the padding's block boundary (55, 56, 63, 64 bytes), against Python's hashlib. */
TEST(padding_boundaries)
{
	static const char *want[] = {
		"9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318", /* 55 x 'a' */
		"b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a", /* 56 */
		"7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34", /* 63 */
		"ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb", /* 64 */
	};
	static const size_t len[] = { 55, 56, 63, 64 };
	char a[64];
	memset(a, 'a', sizeof(a));
	for (unsigned i = 0; i < 4; i++) {
		uint8_t d[SHA256_BYTES];
		char out[2 * SHA256_BYTES + 1];
		sha256(a, len[i], d);
		hex(d, out);
		CHECK_STR(out, want[i]);
	}
}

/* What a record shows for a serial number: the first 12 hex digits. */
TEST(truncated_hex)
{
	char out[65];
	sha256_hex("RR9-0042", 8, out, 12);
	CHECK_STR(out, "2d06e505b73c");
	sha256_hex("abc", 3, out, 64);
	CHECK_STR(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abc", 3, out, 99);                 /* more than a digest has: the whole digest */
	CHECK_EQ_U(strlen(out), 64);
}

int main(void)
{
	RUN(nist_vectors);
	RUN(million_a_in_pieces);
	RUN(padding_boundaries);
	RUN(truncated_hex);
	return check_summary("sha256");
}
