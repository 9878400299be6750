/* report_smbios_dev.c - the `memory_device` records, and how a string, a note and a serial number go into a record; see report_smbios.h. */
#include "report_smbios.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "sha256.h"

/* ---- Private Functions ---------------------------------------------------- */

static const char *state_note(uint8_t state)
{
	switch (state) {
	case SMBIOS_STR_ABSENT: return "not in this structure (an older SMBIOS version)";
	case SMBIOS_STR_NONE: return "not given (string number 0)";
	case SMBIOS_STR_BAD_INDEX: return "names a string the structure does not have";
	case SMBIOS_STR_NOT_ASCII: return "not printable ASCII";
	case SMBIOS_STR_BLANK: return "blank";
	case SMBIOS_STR_ROOT_ONLY: return "readable by root only (/sys/class/dmi/id)";
	case SMBIOS_STR_NO_FILE: return "not in /sys/class/dmi/id";
	}
	return 0;
}

static void rec_known_u(struct rec *r, const char *key, uint64_t v, bool known)
{
	if (known)
		rec_u64(r, key, v);
	else
		rec_null(r, key);
}

/* ---- Public Functions ----------------------------------------------------- */

void report_smbios_str(struct rec *r, const char *key, const struct smbios_str *s)
{
	if (s->state == SMBIOS_STR_OK)
		rec_strn(r, key, s->s, s->len);
	else
		rec_null(r, key);
}

void report_smbios_notes(struct rec *r, const struct smbios_str *const *strs, const char *const *keys, unsigned n)
{
	bool open = false;
	for (unsigned i = 0; i < n; i++) {
		const char *why = state_note(strs[i]->state);
		if (!why || strs[i]->state == SMBIOS_STR_OK)
			continue;
		if (!open)
			rec_obj_begin(r, "notes");
		open = true;
		rec_str(r, keys[i], why);
	}
	if (open)
		rec_obj_end(r);
}

void report_smbios_serial(struct rec *r, const char *key, const struct smbios_str *s, bool serials)
{
	if (s->state != SMBIOS_STR_OK) {
		rec_null(r, key);
		return;
	}
	if (serials) {
		rec_strn(r, key, s->s, s->len);
		return;
	}
	char text[sizeof(REPORT_SERIAL_PREFIX) + REPORT_SERIAL_DIGITS];
	memcpy(text, REPORT_SERIAL_PREFIX, sizeof(REPORT_SERIAL_PREFIX) - 1);
	sha256_hex(s->s, s->len, text + sizeof(REPORT_SERIAL_PREFIX) - 1, REPORT_SERIAL_DIGITS);
	rec_str(r, key, text);
}

void report_smbios_devices(const struct report_smbios_in *in)
{
	const struct smbios_info *si = in->si;
	for (uint32_t i = 0; i < si->n_devices; i++) {
		const struct smbios_device *d = &si->devices[i];
		if (!smbios_is_populated(d))
			continue;
		struct rec *r = console_rec_open("memory_device");
		char handle[8];
		fmt_snprintf(handle, sizeof(handle), "0x%04x", d->handle);
		rec_u64(r, "index", i);
		rec_str(r, "handle", handle);
		rec_known_u(r, "array", (uint64_t)d->array, d->array >= 0);
		rec_str(r, "array_use", d->array >= 0 ? smbios_use_name(si->arrays[d->array].use) : NULL);
		report_smbios_str(r, "locator", &d->locator);
		report_smbios_str(r, "bank", &d->bank);
		rec_known_u(r, "size_bytes", d->size_bytes, d->size_state == SMBIOS_SIZE_KNOWN);
		rec_str(r, "form_factor", d->form_factor ? smbios_form_factor_name(d->form_factor) : NULL);
		rec_str(r, "type", d->type ? smbios_memory_type_name(d->type) : NULL);
		rec_arr_begin(r, "type_detail");
		for (unsigned b = 1; b < SMBIOS_DETAIL_BITS; b++)
			if (d->type_detail & (1u << b))
				rec_str(r, 0, smbios_detail_name(b));
		rec_arr_end(r);
		rec_str(r, "module", smbios_module_name(d));
		rec_known_u(r, "speed_mts", d->speed_mts, d->speed_mts != 0);
		rec_known_u(r, "configured_mts", d->configured_mts, d->configured_mts != 0);
		rec_known_u(r, "rank", d->rank, d->rank != 0);
		rec_known_u(r, "data_width", d->data_width, d->data_width != SMBIOS_WIDTH_UNKNOWN && d->data_width);
		rec_known_u(r, "total_width", d->total_width, d->total_width != SMBIOS_WIDTH_UNKNOWN && d->total_width);
		report_smbios_str(r, "manufacturer", &d->manufacturer);
		report_smbios_str(r, "part_number", &d->part);
		rec_known_u(r, "configured_mv", d->configured_mv, d->configured_mv != 0);
		report_smbios_serial(r, "serial", &d->serial, in->serials);
		bool placed = in->pl && in->pl->node[i] >= 0;
		rec_known_u(r, "node", placed ? (uint64_t)in->pl->node[i] : 0, placed);
		static const char *const keys[] = { "locator", "bank", "manufacturer", "part_number", "serial" };
		const struct smbios_str *strs[] = { &d->locator, &d->bank, &d->manufacturer, &d->part, &d->serial };
		report_smbios_notes(r, strs, keys, ARRAY_SIZE(keys));
		console_rec_emit(r);
	}
}
