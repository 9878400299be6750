/* smbios.c - the walk over the SMBIOS structure table (DSP0134 3.7 §6.1), its strings (§6.1.3) and types 0-4 (§7.1-7.5); see smbios.h. */
#include "smbios.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define PRINT_MIN 0x20
#define PRINT_MAX 0x7e

/* §7.1 Table 6: BIOS Information offsets. */
#define T0_VENDOR 0x04
#define T0_VERSION 0x05
#define T0_DATE 0x08
#define T0_MAJOR 0x14                  /* 2.4+ */
#define T0_MINOR 0x15
#define T0_MIN_LEN 0x12                /* 2.0 */

/* §7.2 Table 10: System Information. */
#define T1_MANUFACTURER 0x04
#define T1_PRODUCT 0x05
#define T1_VERSION 0x06
#define T1_SERIAL 0x07
#define T1_UUID 0x08                   /* 2.1+, 16 bytes */
#define T1_UUID_LEN 16
#define T1_SKU 0x19                    /* 2.4+ */
#define T1_FAMILY 0x1a
#define T1_MIN_LEN 0x08

/* §7.3 Table 13: Baseboard Information. */
#define T2_MANUFACTURER 0x04
#define T2_PRODUCT 0x05
#define T2_VERSION 0x06
#define T2_SERIAL 0x07
#define T2_MIN_LEN 0x08

/* §7.4 Table 16: System Enclosure. */
#define T3_MANUFACTURER 0x04
#define T3_TYPE 0x05
#define T3_TYPE_MASK 0x7f              /* bit 7: chassis lock present */
#define T3_SERIAL 0x07
#define T3_MIN_LEN 0x09

/* §7.5 Table 21: Processor Information. */
#define T4_SOCKET 0x04
#define T4_TYPE 0x05
#define T4_MANUFACTURER 0x07
#define T4_VERSION 0x10
#define T4_MAX_SPEED 0x14
#define T4_CURRENT_SPEED 0x16
#define T4_STATUS 0x18
#define T4_STATUS_POPULATED (1u << 6)
#define T4_CORES 0x23                  /* 2.5+ */
#define T4_CORES_ENABLED 0x24
#define T4_THREADS 0x25
#define T4_CORES2 0x2a                 /* 3.0+: where the byte says FFh */
#define T4_CORES_ENABLED2 0x2c
#define T4_THREADS2 0x2e
#define T4_BYTE_SEE_WORD 0xff
#define T4_MIN_LEN 0x1a                /* 2.0 */

/* ---- Private Functions ---------------------------------------------------- */

static void parse_bios(const struct smbios_struct *s, struct smbios_info *out)
{
	struct smbios_bios *b = &out->bios;
	if (b->present)
		return;                        /* the first one counts */
	b->present = true;
	b->vendor = smbios_string(s, T0_VENDOR);
	b->version = smbios_string(s, T0_VERSION);
	b->date = smbios_string(s, T0_DATE);
	b->major = smbios_u8(s, T0_MAJOR, 0xff);
	b->minor = smbios_u8(s, T0_MINOR, 0xff);
}

static void parse_system(const struct smbios_struct *s, struct smbios_info *out)
{
	struct smbios_system *y = &out->system;
	if (y->present)
		return;
	y->present = true;
	y->manufacturer = smbios_string(s, T1_MANUFACTURER);
	y->product = smbios_string(s, T1_PRODUCT);
	y->version = smbios_string(s, T1_VERSION);
	y->serial = smbios_string(s, T1_SERIAL);
	y->sku = smbios_string(s, T1_SKU);
	y->family = smbios_string(s, T1_FAMILY);
	if (s->n < T1_UUID + T1_UUID_LEN)
		return;
	bool zero = true, ones = true;
	for (unsigned i = 0; i < T1_UUID_LEN; i++) {
		y->uuid[i] = s->p[T1_UUID + i];
		zero &= y->uuid[i] == 0;
		ones &= y->uuid[i] == 0xff;
	}
	y->uuid_state = zero ? SMBIOS_UUID_NOT_SET : ones ? SMBIOS_UUID_NOT_PRESENT : SMBIOS_UUID_OK;
}

static void parse_board(const struct smbios_struct *s, struct smbios_info *out)
{
	struct smbios_board *b = &out->board;
	if (b->present)
		return;
	b->present = true;
	b->manufacturer = smbios_string(s, T2_MANUFACTURER);
	b->product = smbios_string(s, T2_PRODUCT);
	b->version = smbios_string(s, T2_VERSION);
	b->serial = smbios_string(s, T2_SERIAL);
}

static void parse_chassis(const struct smbios_struct *s, struct smbios_info *out)
{
	struct smbios_chassis *c = &out->chassis;
	if (c->present)
		return;
	c->present = true;
	c->type = smbios_u8(s, T3_TYPE, 0) & T3_TYPE_MASK;
	c->manufacturer = smbios_string(s, T3_MANUFACTURER);
	c->serial = smbios_string(s, T3_SERIAL);
}

/* A 2.5 count byte, or its 3.0 word where the byte says FFh (§7.5.6-7.5.8). */
static uint16_t count(const struct smbios_struct *s, uint8_t byte_off, uint8_t word_off)
{
	uint8_t b = smbios_u8(s, byte_off, 0);
	if (b != T4_BYTE_SEE_WORD)
		return b;
	uint16_t w = smbios_u16(s, word_off, 0);
	return w ? w : b;
}

static void parse_processor(const struct smbios_struct *s, struct smbios_info *out)
{
	if (out->n_procs >= SMBIOS_MAX_PROCS) {
		out->dropped++;
		return;
	}
	struct smbios_proc *c = &out->procs[out->n_procs++];
	c->handle = smbios_u16(s, 2, 0);
	c->socket = smbios_string(s, T4_SOCKET);
	c->manufacturer = smbios_string(s, T4_MANUFACTURER);
	c->version = smbios_string(s, T4_VERSION);
	c->type = smbios_u8(s, T4_TYPE, 0);
	c->status = smbios_u8(s, T4_STATUS, 0);
	c->populated = (c->status & T4_STATUS_POPULATED) != 0;
	c->max_mhz = smbios_u16(s, T4_MAX_SPEED, 0);
	c->current_mhz = smbios_u16(s, T4_CURRENT_SPEED, 0);
	c->cores = count(s, T4_CORES, T4_CORES2);
	c->cores_enabled = count(s, T4_CORES_ENABLED, T4_CORES_ENABLED2);
	c->threads = count(s, T4_THREADS, T4_THREADS2);
}

/* The least formatted length each type read must have (the first version's). */
static uint8_t min_len(uint8_t type)
{
	switch (type) {
	case SMBIOS_TYPE_BIOS: return T0_MIN_LEN;
	case SMBIOS_TYPE_SYSTEM: return T1_MIN_LEN;
	case SMBIOS_TYPE_BOARD: return T2_MIN_LEN;
	case SMBIOS_TYPE_CHASSIS: return T3_MIN_LEN;
	case SMBIOS_TYPE_PROCESSOR: return T4_MIN_LEN;
	case SMBIOS_TYPE_MEMORY_ARRAY: return 0x0f;  /* §7.17: 2.1 */
	case SMBIOS_TYPE_MEMORY_DEVICE: return 0x15; /* §7.18: 2.1 */
	case SMBIOS_TYPE_ARRAY_MAPPED: return 0x0f;  /* §7.20: 2.1 */
	case SMBIOS_TYPE_DEVICE_MAPPED: return 0x13; /* §7.21: 2.1 */
	}
	return SMBIOS_HEADER_LEN;
}

static void dispatch(const struct smbios_struct *s, struct smbios_info *out)
{
	uint8_t type = s->p[0];
	if (s->n < min_len(type)) {
		smbios_error(out, type, smbios_u16(s, 2, 0), s->offset, "structure shorter than its type's first version");
		return;
	}
	switch (type) {
	case SMBIOS_TYPE_BIOS: parse_bios(s, out); break;
	case SMBIOS_TYPE_SYSTEM: parse_system(s, out); break;
	case SMBIOS_TYPE_BOARD: parse_board(s, out); break;
	case SMBIOS_TYPE_CHASSIS: parse_chassis(s, out); break;
	case SMBIOS_TYPE_PROCESSOR: parse_processor(s, out); break;
	case SMBIOS_TYPE_MEMORY_ARRAY:
	case SMBIOS_TYPE_MEMORY_DEVICE:
	case SMBIOS_TYPE_ARRAY_MAPPED:
	case SMBIOS_TYPE_DEVICE_MAPPED: smbios_parse_memory(s, out); break;
	}
}

/* ---- Public Functions ----------------------------------------------------- */

uint8_t smbios_u8(const struct smbios_struct *s, uint8_t off, uint8_t absent)
{
	return (size_t)off + 1 <= s->n ? s->p[off] : absent;
}

uint16_t smbios_u16(const struct smbios_struct *s, uint8_t off, uint16_t absent)
{
	return (size_t)off + 2 <= s->n ? (uint16_t)(s->p[off] | s->p[off + 1] << 8) : absent;
}

uint32_t smbios_u32(const struct smbios_struct *s, uint8_t off, uint32_t absent)
{
	if ((size_t)off + 4 > s->n)
		return absent;
	return (uint32_t)smbios_u16(s, off, 0) | (uint32_t)smbios_u16(s, (uint8_t)(off + 2), 0) << 16;
}

uint64_t smbios_u64(const struct smbios_struct *s, uint8_t off, uint64_t absent)
{
	if ((size_t)off + 8 > s->n)
		return absent;
	return (uint64_t)smbios_u32(s, off, 0) | (uint64_t)smbios_u32(s, (uint8_t)(off + 4), 0) << 32;
}

struct smbios_str smbios_string(const struct smbios_struct *s, uint8_t field)
{
	struct smbios_str r = { 0, 0, SMBIOS_STR_ABSENT, 0 };
	if ((size_t)field + 1 > s->n)
		return r;
	r.index = s->p[field];
	if (!r.index) {
		r.state = SMBIOS_STR_NONE;
		return r;
	}
	/* The set is strings_len bytes ending in the double NUL: walk to string number index. */
	size_t at = 0;
	for (uint8_t k = 1; k < r.index; k++) {
		while (at < s->strings_len && s->strings[at])
			at++;
		at++;
		if (at >= s->strings_len || !s->strings[at]) {
			r.state = SMBIOS_STR_BAD_INDEX;
			return r;
		}
	}
	if (at >= s->strings_len || !s->strings[at]) {
		r.state = SMBIOS_STR_BAD_INDEX;
		return r;
	}
	size_t n = 0;
	bool ascii = true;
	while (at + n < s->strings_len && s->strings[at + n]) {
		uint8_t c = s->strings[at + n];
		ascii &= c >= PRINT_MIN && c <= PRINT_MAX;
		n++;
	}
	if (!ascii) {
		r.state = SMBIOS_STR_NOT_ASCII;
		return r;
	}
	while (n && s->strings[at + n - 1] == ' ')
		n--;
	if (!n) {
		r.state = SMBIOS_STR_BLANK;
		return r;
	}
	r.s = (const char *)s->strings + at;
	r.len = (uint16_t)MIN(n, (size_t)UINT16_MAX);
	r.state = SMBIOS_STR_OK;
	return r;
}

void smbios_error(struct smbios_info *out, int32_t type, int32_t handle, uint32_t offset, const char *msg)
{
	if (out->n_errors >= SMBIOS_MAX_ERRORS) {
		out->n_errors_lost++;
		return;
	}
	struct smbios_error *e = &out->errors[out->n_errors++];
	size_t i = 0;
	for (; msg[i] && i + 1 < sizeof(e->msg); i++)
		e->msg[i] = msg[i];
	e->msg[i] = 0;
	e->type = type;
	e->handle = handle;
	e->offset = offset;
}

void smbios_parse(const uint8_t *ep, size_t ep_len, const uint8_t *table, size_t len, struct smbios_info *out)
{
	memset(out, 0, sizeof(*out));
	if (ep) {
		out->ep_valid = smbios_ep_decode(ep, ep_len, &out->ep, &out->ep_why);
		if (!out->ep_valid)
			smbios_error(out, -1, -1, 0, out->ep_why);
	}
	if (!table || !len)
		return;
	out->present = true;
	size_t off = 0;
	while (off < len) {
		size_t n = smbios_struct_size(table + off, len - off);
		if (!n) {
			smbios_error(out, len - off >= 1 ? table[off] : -1, -1, (uint32_t)off,
				     len - off < SMBIOS_HEADER_LEN || table[off + 1] < SMBIOS_HEADER_LEN
				     ? "structure length below its header, or past the table"
				     : "strings run past the table (no double NUL)");
			break;
		}
		struct smbios_struct s = { table + off, table[off + 1], table + off + table[off + 1],
					   n - table[off + 1], (uint32_t)off };
		out->n_structures++;
		off += n;
		if (s.p[0] == SMBIOS_TYPE_END) {
			out->end_found = true;
			break;
		}
		dispatch(&s, out);
	}
	out->table_bytes = (uint32_t)off;
	smbios_link_memory(out);
	if (out->ep_valid && !out->ep.v3 && out->ep.n_structures && out->n_structures != out->ep.n_structures &&
	    out->end_found)
		smbios_error(out, -1, -1, (uint32_t)off, "structure count differs from the entry point's");
}
