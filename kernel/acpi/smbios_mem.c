/* smbios_mem.c - SMBIOS memory: physical memory arrays (type 16, DSP0134 3.7 §7.17), memory devices (type 17, §7.18) and their mapped addresses (types 19 and 20, §7.20-7.21); see smbios.h. */
#include "smbios.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */

/* §7.17 Table 71: Physical Memory Array. */
#define T16_LOCATION 0x04
#define T16_USE 0x05
#define T16_ECC 0x06
#define T16_MAX_CAPACITY 0x07          /* KiB */
#define T16_MAX_SEE_EXTENDED 0x80000000u
#define T16_DEVICES 0x0d
#define T16_EXT_MAX_CAPACITY 0x0f      /* 2.7+, bytes */

/* §7.18 Table 76: Memory Device. */
#define T17_ARRAY 0x04
#define T17_TOTAL_WIDTH 0x08
#define T17_DATA_WIDTH 0x0a
#define T17_SIZE 0x0c
#define T17_SIZE_UNKNOWN 0xffffu
#define T17_SIZE_SEE_EXTENDED 0x7fffu
#define T17_SIZE_IN_KIB (1u << 15)     /* granularity: 0 MiB, 1 KiB */
#define T17_SIZE_MASK 0x7fffu
#define T17_FORM_FACTOR 0x0e
#define T17_LOCATOR 0x10
#define T17_BANK 0x11
#define T17_TYPE 0x12
#define T17_TYPE_DETAIL 0x13
#define T17_SPEED 0x15                 /* 2.3+ MT/s */
#define T17_SPEED_SEE_EXTENDED 0xffffu
#define T17_MANUFACTURER 0x17
#define T17_SERIAL 0x18
#define T17_PART 0x1a
#define T17_ATTRIBUTES 0x1b            /* 2.6+ */
#define T17_RANK_MASK 0x0fu
#define T17_EXT_SIZE 0x1c              /* 2.7+ MiB, bits 30:0 */
#define T17_EXT_SIZE_MASK 0x7fffffffu
#define T17_CONFIGURED_SPEED 0x20      /* 2.7+ */
#define T17_CONFIGURED_MV 0x26         /* 2.8+ */
#define T17_EXT_SPEED 0x54             /* 3.3+ MT/s, bits 30:0 */
#define T17_EXT_CONFIGURED_SPEED 0x58
#define T17_EXT_SPEED_MASK 0x7fffffffu

/* §7.20 Table 81 and §7.21 Table 82: addresses in KiB; FFFFFFFFh: the extended (byte) forms. */
#define T19_START 0x04
#define T19_END 0x08
#define T19_ARRAY 0x0c
#define T19_WIDTH 0x0e
#define T19_EXT_START 0x0f
#define T19_EXT_END 0x17
#define T20_START 0x04
#define T20_END 0x08
#define T20_DEVICE 0x0c
#define T20_MAP19 0x0e
#define T20_EXT_START 0x13
#define T20_EXT_END 0x1b
#define ADDR_SEE_EXTENDED 0xffffffffu
#define KIB 1024ull
#define MIB (1024ull * 1024)

/* ---- Private Functions ---------------------------------------------------- */

static void parse_array(const struct smbios_struct *s, struct smbios_info *out)
{
	if (out->n_arrays >= SMBIOS_MAX_ARRAYS) {
		out->dropped++;
		return;
	}
	struct smbios_array *a = &out->arrays[out->n_arrays++];
	a->handle = smbios_u16(s, 2, 0);
	a->location = smbios_u8(s, T16_LOCATION, 0);
	a->use = smbios_u8(s, T16_USE, 0);
	a->ecc = smbios_u8(s, T16_ECC, 0);
	a->slots = smbios_u16(s, T16_DEVICES, 0);
	uint32_t kib = smbios_u32(s, T16_MAX_CAPACITY, 0);
	a->max_bytes = kib == T16_MAX_SEE_EXTENDED ? smbios_u64(s, T16_EXT_MAX_CAPACITY, 0) : kib * KIB;
}

/* §7.18.5: Size, or Extended Size when Size is 7FFFh (a module of 32 GiB or more). */
static void device_size(const struct smbios_struct *s, struct smbios_device *d, struct smbios_info *out)
{
	uint16_t size = smbios_u16(s, T17_SIZE, T17_SIZE_UNKNOWN);
	if (size == 0) {
		d->size_state = SMBIOS_SIZE_EMPTY;
	} else if (size == T17_SIZE_UNKNOWN) {
		d->size_state = SMBIOS_SIZE_UNKNOWN;
	} else if (size == T17_SIZE_SEE_EXTENDED) {
		uint32_t ext = smbios_u32(s, T17_EXT_SIZE, 0) & T17_EXT_SIZE_MASK;
		d->size_state = ext ? SMBIOS_SIZE_KNOWN : SMBIOS_SIZE_UNKNOWN;
		d->size_bytes = ext * MIB;
		if (!ext)
			smbios_error(out, SMBIOS_TYPE_MEMORY_DEVICE, d->handle, s->offset,
				     "size 7FFFh without an extended size");
	} else {
		/* 8000h is "0 KiB": not a module anyone has; unknown, not empty. */
		d->size_bytes = (size & T17_SIZE_MASK) * (size & T17_SIZE_IN_KIB ? KIB : MIB);
		d->size_state = d->size_bytes ? SMBIOS_SIZE_KNOWN : SMBIOS_SIZE_UNKNOWN;
	}
}

/* A speed word, or its 3.3 extended double word where the word is FFFFh (§7.18.9, §7.18.13). */
static uint32_t speed(const struct smbios_struct *s, uint8_t word, uint8_t ext)
{
	uint16_t w = smbios_u16(s, word, 0);
	if (w != T17_SPEED_SEE_EXTENDED)
		return w;
	return smbios_u32(s, ext, 0) & T17_EXT_SPEED_MASK;
}

static void parse_device(const struct smbios_struct *s, struct smbios_info *out)
{
	if (out->n_devices >= SMBIOS_MAX_DEVICES) {
		out->dropped++;
		return;
	}
	struct smbios_device *d = &out->devices[out->n_devices++];
	d->handle = smbios_u16(s, 2, 0);
	d->array_handle = smbios_u16(s, T17_ARRAY, 0);
	d->array = SMBIOS_NONE;
	d->total_width = smbios_u16(s, T17_TOTAL_WIDTH, SMBIOS_WIDTH_UNKNOWN);
	d->data_width = smbios_u16(s, T17_DATA_WIDTH, SMBIOS_WIDTH_UNKNOWN);
	device_size(s, d, out);
	d->form_factor = smbios_u8(s, T17_FORM_FACTOR, 0);
	d->type = smbios_u8(s, T17_TYPE, 0);
	d->type_detail = smbios_u16(s, T17_TYPE_DETAIL, 0);
	d->speed_mts = speed(s, T17_SPEED, T17_EXT_SPEED);
	d->configured_mts = speed(s, T17_CONFIGURED_SPEED, T17_EXT_CONFIGURED_SPEED);
	d->rank = smbios_u8(s, T17_ATTRIBUTES, 0) & T17_RANK_MASK;
	d->configured_mv = smbios_u16(s, T17_CONFIGURED_MV, 0);
	d->locator = smbios_string(s, T17_LOCATOR);
	d->bank = smbios_string(s, T17_BANK);
	d->manufacturer = smbios_string(s, T17_MANUFACTURER);
	d->serial = smbios_string(s, T17_SERIAL);
	d->part = smbios_string(s, T17_PART);
}

/* A range in KiB, or in bytes where both KiB words are FFFFFFFFh (2.7+); false when it is not one. */
static bool range(const struct smbios_struct *s, uint8_t lo, uint8_t hi, uint8_t ext_lo, uint8_t ext_hi,
		  uint64_t *start, uint64_t *end)
{
	uint32_t a = smbios_u32(s, lo, 0), b = smbios_u32(s, hi, 0);
	if (a == ADDR_SEE_EXTENDED && b == ADDR_SEE_EXTENDED) {
		*start = smbios_u64(s, ext_lo, 0);
		*end = smbios_u64(s, ext_hi, 0);
	} else {
		*start = a * KIB;
		*end = b * KIB + (KIB - 1);
	}
	return *end >= *start;
}

static void parse_map19(const struct smbios_struct *s, struct smbios_info *out)
{
	if (out->n_map19 >= SMBIOS_MAX_MAP19) {
		out->dropped++;
		return;
	}
	struct smbios_map19 m = { smbios_u16(s, 2, 0), smbios_u16(s, T19_ARRAY, 0), 0, 0, smbios_u8(s, T19_WIDTH, 0) };
	if (!range(s, T19_START, T19_END, T19_EXT_START, T19_EXT_END, &m.start, &m.end)) {
		smbios_error(out, SMBIOS_TYPE_ARRAY_MAPPED, m.handle, s->offset, "ends before it starts");
		return;
	}
	out->map19[out->n_map19++] = m;
}

static void parse_map20(const struct smbios_struct *s, struct smbios_info *out)
{
	if (out->n_map20 >= SMBIOS_MAX_MAP20) {
		out->dropped++;
		return;
	}
	struct smbios_map20 m = { smbios_u16(s, 2, 0), smbios_u16(s, T20_DEVICE, 0), smbios_u16(s, T20_MAP19, 0), 0, 0 };
	if (!range(s, T20_START, T20_END, T20_EXT_START, T20_EXT_END, &m.start, &m.end)) {
		smbios_error(out, SMBIOS_TYPE_DEVICE_MAPPED, m.handle, s->offset, "ends before it starts");
		return;
	}
	out->map20[out->n_map20++] = m;
}

/* ---- Public Functions ----------------------------------------------------- */

void smbios_parse_memory(const struct smbios_struct *s, struct smbios_info *out)
{
	switch (s->p[0]) {
	case SMBIOS_TYPE_MEMORY_ARRAY: parse_array(s, out); break;
	case SMBIOS_TYPE_MEMORY_DEVICE: parse_device(s, out); break;
	case SMBIOS_TYPE_ARRAY_MAPPED: parse_map19(s, out); break;
	case SMBIOS_TYPE_DEVICE_MAPPED: parse_map20(s, out); break;
	}
}

void smbios_link_memory(struct smbios_info *out)
{
	for (uint32_t i = 0; i < out->n_devices; i++)
		for (uint32_t a = 0; a < out->n_arrays; a++)
			if (out->arrays[a].handle == out->devices[i].array_handle) {
				out->devices[i].array = (int32_t)a;
				break;
			}
}
