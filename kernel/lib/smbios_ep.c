/* smbios_ep.c - SMBIOS entry points and the structure walk (DSP0134 3.7 §5.2, §6.1.2-6.1.3); see smbios_ep.h. */
#include "smbios_ep.h"

/* ---- Private Functions ---------------------------------------------------- */

static bool same(const uint8_t *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)s[i])
			return false;
	return true;
}

static bool sums_to_zero(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s == 0;
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static bool decode30(const uint8_t *p, size_t avail, struct smbios_ep *out, const char **why)
{
	uint8_t len = p[6];
	if (len < SMBIOS_EP30_LEN || len > avail) {
		*why = "3.0 entry point length below 0x18 or past what can be read";
		return false;
	}
	if (!sums_to_zero(p, len)) {
		*why = "3.0 entry point checksum";
		return false;
	}
	out->v3 = true;
	out->length = len;
	out->major = p[7];
	out->minor = p[8];
	out->docrev = p[9];
	out->table_length = le32(p + 0x0c);
	out->table_address = le64(p + 0x10);
	out->n_structures = 0;
	return true;
}

static bool decode21(const uint8_t *p, size_t avail, struct smbios_ep *out, const char **why)
{
	uint8_t len = p[5];
	if (len != SMBIOS_EP21_LEN && len != SMBIOS_EP21_LEN_ERRATUM) {
		*why = "2.1 entry point length not 0x1F";
		return false;
	}
	if (avail < SMBIOS_EP21_LEN) {
		*why = "2.1 entry point past what can be read";
		return false;
	}
	if (!sums_to_zero(p, len)) {
		*why = "2.1 entry point checksum";
		return false;
	}
	if (!same(p + SMBIOS_EP21_INTERMEDIATE, SMBIOS_EP21_DMI_ANCHOR, 5)) {
		*why = "2.1 entry point without its _DMI_ anchor";
		return false;
	}
	if (!sums_to_zero(p + SMBIOS_EP21_INTERMEDIATE, SMBIOS_EP21_INTERMEDIATE_LEN)) {
		*why = "2.1 entry point intermediate checksum";
		return false;
	}
	out->v3 = false;
	out->length = len;
	out->major = p[6];
	out->minor = p[7];
	out->docrev = 0;
	out->table_length = le16(p + 0x16);
	out->table_address = le32(p + 0x18);
	out->n_structures = le16(p + 0x1c);
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */

bool smbios_ep_decode(const uint8_t *p, size_t avail, struct smbios_ep *out, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (p && avail >= SMBIOS_EP30_ANCHOR_LEN + 2 && same(p, SMBIOS_EP30_ANCHOR, SMBIOS_EP30_ANCHOR_LEN))
		return decode30(p, avail, out, why);
	if (p && avail >= SMBIOS_EP21_ANCHOR_LEN + 2 && same(p, SMBIOS_EP21_ANCHOR, SMBIOS_EP21_ANCHOR_LEN))
		return decode21(p, avail, out, why);
	*why = "no _SM3_ or _SM_ anchor";
	return false;
}

size_t smbios_ep_scan(const uint8_t *base, size_t len)
{
	struct smbios_ep ep;
	for (int want3 = 1; want3 >= 0; want3--)
		for (size_t off = 0; off + SMBIOS_EP30_LEN <= len; off += SMBIOS_SCAN_STEP) {
			const uint8_t *p = base + off;
			bool is3 = same(p, SMBIOS_EP30_ANCHOR, SMBIOS_EP30_ANCHOR_LEN);
			bool is2 = same(p, SMBIOS_EP21_ANCHOR, SMBIOS_EP21_ANCHOR_LEN);
			if (((want3 && is3) || (!want3 && is2)) && smbios_ep_decode(p, len - off, &ep, 0))
				return off;
		}
	return (size_t)-1;
}

size_t smbios_struct_size(const uint8_t *t, size_t avail)
{
	if (avail < SMBIOS_HEADER_LEN || t[1] < SMBIOS_HEADER_LEN || t[1] > avail)
		return 0;
	for (size_t i = t[1]; i + 1 < avail; i++)
		if (!t[i] && !t[i + 1])
			return i + 2;
	return 0;
}

size_t smbios_table_extent(const uint8_t *t, size_t max)
{
	size_t off = 0;
	while (off < max) {
		size_t n = smbios_struct_size(t + off, max - off);
		if (!n)
			break;
		off += n;
		if (t[off - n] == SMBIOS_TYPE_END)
			break;
	}
	return off;
}
