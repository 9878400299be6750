/* smbios_fixture.c - the SMBIOS dumps the host tests read; see smbios_fixture.h. */
#include "smbios_fixture.h"
#include <stdio.h>
#include <stdlib.h>

void smbios_fixture_path(const char *name, const char *ext, char *out, size_t cap)
{
	const char *dir = getenv("QB_SMBIOS_DIR");
	snprintf(out, cap, "%s/%s%s", dir ? dir : SMBIOS_FIXTURE_DIR, name, ext);
}

bool smbios_fixture_load(const char *name, struct smbios_fixture *f)
{
	char path[512];
	smbios_fixture_path(name, ".bin", path, sizeof(path));
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		printf("  cannot open %s\n", path);
		return false;
	}
	f->len = fread(f->data, 1, sizeof(f->data), fp);
	fclose(fp);
	struct smbios_ep ep;
	const char *why = "";
	if (!smbios_ep_decode(f->data, f->len, &ep, &why) || ep.table_address >= f->len) {
		printf("  %s: entry point: %s\n", path, why);
		return false;
	}
	f->ep = f->data;
	f->table = f->data + ep.table_address;
	f->table_len = f->len - ep.table_address;
	if (ep.table_length < f->table_len)
		f->table_len = ep.table_length;
	return true;
}

void smbios_fixture_parse(const struct smbios_fixture *f, struct smbios_info *out)
{
	smbios_parse(f->ep, SMBIOS_EP_MAX, f->table, f->table_len, out);
}
