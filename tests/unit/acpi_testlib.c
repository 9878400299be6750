/* acpi_testlib.c - the q35 layouts and table-damaging helpers shared by the ACPI host test programs (see acpi_testlib.h). No CHECKs here: check.h's counters are per program. */
#include <string.h>

#include "acpi_testlib.h"

const struct fx_q35 smp1 = { .n_cpus = 1, .n_enabled = 1, .rsdp_rev = 2 };
const struct fx_q35 smp4 = { .n_cpus = 4, .n_enabled = 4, .rsdp_rev = 2 };
const struct fx_q35 smp8_numa2 = {
	.n_cpus = 8, .n_enabled = 8, .n_nodes = 2, .node_mem = 512 * MIB, .rsdp_rev = 2,
};
static const uint32_t ids_x2[] = { 0, 1, 2, 300 };
const struct fx_q35 x2apic300 = {
	.n_cpus = 4, .n_enabled = 4, .apic_ids = ids_x2, .n_nodes = 2, .node_mem = 512 * MIB,
	.rsdp_rev = 2,
};
const struct fx_q35 smp4_max8 = { .n_cpus = 8, .n_enabled = 4, .rsdp_rev = 2 };

/* Flip one bit of the byte at off in the region at phys. */
void flip(uint64_t phys, uint32_t off)
{
	fixture_bytes(phys)[off] ^= 0x40;
}

/* Set the header length of the table at phys, checksum fixed or not. */
void set_len(uint64_t phys, uint32_t len, bool fix)
{
	memcpy(fixture_bytes(phys) + 4, &len, 4);
	if (fix)
		fx_fix_checksum(phys);
}
