/* report_smbios.c - the `machine` record and its text lines (schema: docs/records.md); see report_smbios.h. */
#include "report_smbios.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "sha256.h"

/* ---- Constants ------------------------------------------------------------ */
#define UUID_TEXT 37                   /* 8-4-4-4-12 hex digits and the NUL */
#define UUID_LE_FROM_MAJOR 2           /* DSP0134 7.2.1: from 2.6 the first three fields are little-endian */
#define UUID_LE_FROM_MINOR 6
#define VERSION_LEN 16
#define MAX_LISTED_PROCS 64            /* sockets a record lists: it must stay far below 64 KiB */

/* ---- Private Functions ---------------------------------------------------- */

static void rec_known_u(struct rec *r, const char *key, uint64_t v, bool known)
{
	if (known)
		rec_u64(r, key, v);
	else
		rec_null(r, key);
}

/* "01020304-0506-0708-090a-0b0c0d0e0f10" in lower case, as Linux's product_uuid shows it. */
static void uuid_text(const struct smbios_info *si, char out[UUID_TEXT])
{
	static const uint8_t le[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const uint8_t be[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	/* Without an entry point (the twin's tables alone) the version is unknown: 2.6 and later are the rule. */
	bool is_le = !si->ep_valid || si->ep.major > UUID_LE_FROM_MAJOR ||
		     (si->ep.major == UUID_LE_FROM_MAJOR && si->ep.minor >= UUID_LE_FROM_MINOR);
	const uint8_t *order = is_le ? le : be;
	size_t n = 0;
	for (unsigned i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[n++] = '-';
		n += (size_t)fmt_snprintf(out + n, UUID_TEXT - n, "%02x", si->system.uuid[order[i]]);
	}
	out[n] = 0;
}

static void uuid(struct rec *r, const struct smbios_info *si, bool serials)
{
	const struct smbios_system *y = &si->system;
	if (y->uuid_state != SMBIOS_UUID_OK) {
		rec_null(r, "uuid");
		rec_str(r, "uuid_note", y->uuid_state == SMBIOS_UUID_NOT_SET ? "all 00h: not set"
					: y->uuid_state == SMBIOS_UUID_NOT_PRESENT ? "all FFh: not present"
					: !si->present ? "not read"
					: y->present ? "not in this structure (SMBIOS before 2.1)" : "no type 1 structure");
		return;
	}
	char text[UUID_TEXT];
	uuid_text(si, text);
	struct smbios_str s = { text, (uint16_t)strlen(text), SMBIOS_STR_OK, 0 };
	report_smbios_serial(r, "uuid", &s, serials);
}

/* A table without the structure says so in its object (without a table, source_note says why). */
static void absent(struct rec *r, const struct smbios_info *si, bool present, unsigned type)
{
	char note[40];
	if (present || !si->present)
		return;
	fmt_snprintf(note, sizeof(note), "no type %u structure in the table", type);
	rec_str(r, "note", note);
}

static void bios(struct rec *r, const struct smbios_info *si)
{
	const struct smbios_bios *b = &si->bios;
	rec_obj_begin(r, "bios");
	report_smbios_str(r, "vendor", &b->vendor);
	report_smbios_str(r, "version", &b->version);
	report_smbios_str(r, "date", &b->date);
	char rel[VERSION_LEN];
	fmt_snprintf(rel, sizeof(rel), "%u.%u", b->major, b->minor);
	rec_str(r, "release", b->present && b->major != 0xff ? rel : NULL);
	static const char *const keys[] = { "vendor", "version", "date" };
	const struct smbios_str *strs[] = { &b->vendor, &b->version, &b->date };
	if (b->present)
		report_smbios_notes(r, strs, keys, ARRAY_SIZE(keys));
	absent(r, si, b->present, 0);
	rec_obj_end(r);
}

static void system(struct rec *r, const struct smbios_info *si, bool serials)
{
	const struct smbios_system *y = &si->system;
	rec_obj_begin(r, "system");
	report_smbios_str(r, "manufacturer", &y->manufacturer);
	report_smbios_str(r, "product", &y->product);
	report_smbios_str(r, "version", &y->version);
	report_smbios_str(r, "sku", &y->sku);
	report_smbios_str(r, "family", &y->family);
	report_smbios_serial(r, "serial", &y->serial, serials);
	uuid(r, si, serials);
	static const char *const keys[] = { "manufacturer", "product", "version", "sku", "family", "serial" };
	const struct smbios_str *strs[] = { &y->manufacturer, &y->product, &y->version, &y->sku, &y->family,
					    &y->serial };
	if (y->present)
		report_smbios_notes(r, strs, keys, ARRAY_SIZE(keys));
	absent(r, si, y->present, 1);
	rec_obj_end(r);
}

static void board_chassis(struct rec *r, const struct smbios_info *si, bool serials)
{
	const struct smbios_board *b = &si->board;
	rec_obj_begin(r, "board");
	report_smbios_str(r, "manufacturer", &b->manufacturer);
	report_smbios_str(r, "product", &b->product);
	report_smbios_str(r, "version", &b->version);
	report_smbios_serial(r, "serial", &b->serial, serials);
	static const char *const keys[] = { "manufacturer", "product", "version", "serial" };
	const struct smbios_str *strs[] = { &b->manufacturer, &b->product, &b->version, &b->serial };
	if (b->present)
		report_smbios_notes(r, strs, keys, ARRAY_SIZE(keys));
	absent(r, si, b->present, 2);
	rec_obj_end(r);
	const struct smbios_chassis *c = &si->chassis;
	rec_obj_begin(r, "chassis");
	rec_str(r, "type", c->present && c->type ? smbios_chassis_name(c->type) : NULL);
	report_smbios_str(r, "manufacturer", &c->manufacturer);
	report_smbios_serial(r, "serial", &c->serial, serials);
	absent(r, si, c->present, 3);
	rec_obj_end(r);
}

/* The populated sockets, as many as a record holds; empty ones only counted (a hypervisor may list 128). */
static void processors(struct rec *r, const struct smbios_info *si)
{
	uint32_t populated = 0, listed = 0;
	for (uint32_t i = 0; i < si->n_procs; i++)
		populated += si->procs[i].populated;
	rec_known_u(r, "sockets", si->n_procs, si->present);
	rec_known_u(r, "sockets_populated", populated, si->present);
	rec_arr_begin(r, "processors");
	for (uint32_t i = 0; i < si->n_procs; i++) {
		const struct smbios_proc *c = &si->procs[i];
		if (!c->populated || listed >= MAX_LISTED_PROCS)
			continue;
		listed++;
		rec_obj_begin(r, 0);
		report_smbios_str(r, "socket", &c->socket);
		report_smbios_str(r, "manufacturer", &c->manufacturer);
		report_smbios_str(r, "version", &c->version);
		rec_known_u(r, "max_mhz", c->max_mhz, c->max_mhz != 0);
		rec_known_u(r, "current_mhz", c->current_mhz, c->current_mhz != 0);
		rec_known_u(r, "cores", c->cores, c->cores != 0);
		rec_known_u(r, "cores_enabled", c->cores_enabled, c->cores_enabled != 0);
		rec_known_u(r, "threads", c->threads, c->threads != 0);
		static const char *const keys[] = { "socket", "manufacturer", "version" };
		const struct smbios_str *strs[] = { &c->socket, &c->manufacturer, &c->version };
		report_smbios_notes(r, strs, keys, ARRAY_SIZE(keys));
		rec_obj_end(r);
	}
	rec_arr_end(r);
	if (populated > listed)
		rec_u64(r, "processors_not_listed", populated - listed);
}

static void memory(struct rec *r, const struct report_smbios_in *in, const char *config, bool have_config)
{
	const struct smbios_info *si = in->si;
	rec_arr_begin(r, "memory_arrays");
	for (uint32_t a = 0; a < si->n_arrays; a++) {
		const struct smbios_array *m = &si->arrays[a];
		rec_obj_begin(r, 0);
		rec_str(r, "location", smbios_location_name(m->location));
		rec_str(r, "use", smbios_use_name(m->use));
		rec_str(r, "ecc", smbios_ecc_name(m->ecc));
		rec_u64(r, "slots", m->slots);
		rec_known_u(r, "max_bytes", m->max_bytes, m->max_bytes != 0);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	uint32_t slots = 0, populated = 0;
	uint64_t bytes = 0;
	bool all_known = true;
	for (uint32_t i = 0; i < si->n_devices; i++) {
		const struct smbios_device *d = &si->devices[i];
		if (!smbios_is_system_slot(si, d))
			continue;
		slots++;
		if (!smbios_is_populated(d))
			continue;
		populated++;
		bytes += d->size_bytes;
		all_known &= d->size_state == SMBIOS_SIZE_KNOWN;
	}
	rec_known_u(r, "memory_slots", slots, si->present);
	rec_known_u(r, "memory_populated", populated, si->present);
	rec_known_u(r, "memory_bytes", bytes, si->present && populated && all_known);
	rec_str(r, "memory_config", have_config ? config : NULL);
	if (!have_config)
		rec_str(r, "memory_config_note", config);
	rec_known_u(r, "array_ranges", si->n_map19, si->present);
	rec_known_u(r, "device_ranges", si->n_map20, si->present);
	const struct smbios_placement *pl = in->pl;
	if (pl && pl->known && populated) {
		rec_arr_begin(r, "dimms_per_node");
		for (uint32_t n = 0; n < pl->n_nodes; n++)
			rec_u64(r, 0, pl->per_node[n]);
		rec_arr_end(r);
	} else {
		rec_null(r, "dimms_per_node");
		rec_str(r, "dimms_per_node_note", !si->present ? "no SMBIOS table read"
						   : !populated ? "no populated memory device"
						   : pl ? pl->why : "not placed");
	}
}

/* ---- Public Functions ----------------------------------------------------- */

void report_smbios_product(const struct smbios_info *si, char *buf, size_t cap)
{
	const struct smbios_str *m = &si->system.manufacturer, *p = &si->system.product;
	if (m->state == SMBIOS_STR_OK && p->state == SMBIOS_STR_OK)
		fmt_snprintf(buf, cap, "%.*s %.*s", (int)m->len, m->s, (int)p->len, p->s);
	else if (p->state == SMBIOS_STR_OK)
		fmt_snprintf(buf, cap, "%.*s", (int)p->len, p->s);
	else
		fmt_snprintf(buf, cap, "product unknown");
}

void report_smbios_bios(const struct smbios_info *si, char *buf, size_t cap)
{
	const struct smbios_str *v = &si->bios.version, *d = &si->bios.date;
	if (v->state != SMBIOS_STR_OK) {
		fmt_snprintf(buf, cap, "BIOS unknown");
		return;
	}
	int n = fmt_snprintf(buf, cap, "BIOS %.*s", (int)v->len, v->s);
	if (d->state == SMBIOS_STR_OK && n > 0 && (size_t)n < cap)
		fmt_snprintf(buf + n, cap - (size_t)n, " (%.*s)", (int)d->len, d->s);
}

void report_smbios(const struct report_smbios_in *in)
{
	const struct smbios_info *si = in->si;
	for (uint32_t i = 0; i < si->n_errors; i++) {
		const struct smbios_error *e = &si->errors[i];
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "smbios");
		rec_str(r, "detail", e->msg);
		rec_known_u(r, "type", (uint64_t)e->type, e->type >= 0);
		rec_known_u(r, "handle", (uint64_t)e->handle, e->handle >= 0);
		rec_u64(r, "offset", e->offset);
		console_rec_emit(r);
		kprintf("error: smbios: %s (type %d, offset %u)\n", e->msg, (int)e->type, e->offset);
	}
	if (si->n_errors_lost)
		console_error("smbios", "%u more SMBIOS errors not listed", si->n_errors_lost);

	char config[SMBIOS_CONFIG_LEN], version[VERSION_LEN] = "?";
	bool have_config = smbios_memory_config(si, in->pl, config, sizeof(config));
	struct rec *r = console_rec_open("machine");
	rec_str(r, "source", in->source);
	rec_str(r, "source_note", in->source_note);
	if (si->ep_valid) {
		if (si->ep.v3)
			fmt_snprintf(version, sizeof(version), "%u.%u.%u", si->ep.major, si->ep.minor, si->ep.docrev);
		else
			fmt_snprintf(version, sizeof(version), "%u.%u", si->ep.major, si->ep.minor);
	}
	rec_str(r, "smbios_version", si->ep_valid ? version : NULL);
	rec_str(r, "entry_point", si->ep_valid ? (si->ep.v3 ? "3.0 (_SM3_)" : "2.1 (_SM_)") : NULL);
	if (in->ep_phys)
		rec_hex(r, "entry_point_address", in->ep_phys);
	else
		rec_null(r, "entry_point_address");
	rec_known_u(r, "table_bytes", si->table_bytes, si->present);
	rec_known_u(r, "structures", si->n_structures, si->present);
	rec_known_u(r, "structures_dropped", si->dropped, si->present);
	if (si->present)
		rec_bool(r, "end_of_table", si->end_found);
	else
		rec_null(r, "end_of_table");
	rec_str(r, "serials", in->serials ? "full (serials=on)" : "sha256, first 12 hex digits");
	bios(r, si);
	system(r, si, in->serials);
	board_chassis(r, si, in->serials);
	processors(r, si);
	memory(r, in, config, have_config);
	console_rec_emit(r);
	report_smbios_devices(in);

	char product[REPORT_LINE_LEN / 2], fw[REPORT_LINE_LEN / 2];
	report_smbios_product(si, product, sizeof(product));
	report_smbios_bios(si, fw, sizeof(fw));
	kprintf("system: %s, %s (SMBIOS %s from %s%s%s)\n", product, fw, version, in->source,
		in->source_note ? ": " : "", in->source_note ? in->source_note : "");
	kprintf("memory: %s\n", config);
	if (have_config && in->pl && !in->pl->known && in->pl->n_nodes > 1)
		kprintf("memory: DIMMs not set against nodes: %s\n", in->pl->why);
}
