/* smbios_names.c - the names of SMBIOS enumerated values, spelt as DSP0134 3.7's tables and dmidecode print them (so that a record reads beside `dmidecode` output); see smbios.h. */
#include "smbios.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define FIRST 1                        /* every table below starts at 01h "Other" */
#define OUT_OF_SPEC "<OUT OF SPEC>"    /* dmidecode's word for a value past the table */

/* §7.17.1 Table 72 (01h-0Ah), then A0h-A4h. */
static const char *const location[] = {
	"Other", "Unknown", "System Board Or Motherboard", "ISA Add-on Card", "EISA Add-on Card",
	"PCI Add-on Card", "MCA Add-on Card", "PCMCIA Add-on Card", "Proprietary Add-on Card", "NuBus",
};
#define LOCATION_PC98 0xa0
static const char *const location_pc98[] = {
	"PC-98/C20 Add-on Card", "PC-98/C24 Add-on Card", "PC-98/E Add-on Card", "PC-98/Local Bus Add-on Card",
	"CXL Flexbus 1.0",
};

/* §7.17.2 Table 73. */
static const char *const use[] = {
	"Other", "Unknown", "System Memory", "Video Memory", "Flash Memory", "Non-volatile RAM", "Cache Memory",
};

/* §7.17.3 Table 74. */
static const char *const ecc[] = {
	"Other", "Unknown", "None", "Parity", "Single-bit ECC", "Multi-bit ECC", "CRC",
};

/* §7.18.1 Table 77. */
static const char *const form_factor[] = {
	"Other", "Unknown", "SIMM", "SIP", "Chip", "DIP", "ZIP", "Proprietary Card", "DIMM", "TSOP",
	"Row Of Chips", "RIMM", "SODIMM", "SRIMM", "FB-DIMM", "Die", "CAMM",
};

/* §7.18.2 Table 78. */
static const char *const mem_type[] = {
	"Other", "Unknown", "DRAM", "EDRAM", "VRAM", "SRAM", "RAM", "ROM", "Flash", "EEPROM", "FEPROM", "EPROM",
	"CDRAM", "3DRAM", "SDRAM", "SGRAM", "RDRAM", "DDR", "DDR2", "DDR2 FB-DIMM", "Reserved", "Reserved",
	"Reserved", "DDR3", "FBD2", "DDR4", "LPDDR", "LPDDR2", "LPDDR3", "LPDDR4", "Logical non-volatile device",
	"HBM", "HBM2", "DDR5", "LPDDR5", "HBM3",
};

/* §7.18.3 Table 79: bit i names (bit 0 reserved). */
static const char *const detail[SMBIOS_DETAIL_BITS] = {
	0, "Other", "Unknown", "Fast-paged", "Static Column", "Pseudo-static", "RAMBus", "Synchronous", "CMOS",
	"EDO", "Window DRAM", "Cache DRAM", "Non-Volatile", "Registered (Buffered)", "Unbuffered (Unregistered)",
	"LRDIMM",
};

/* §7.4.1 Table 17. */
static const char *const chassis[] = {
	"Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower", "Tower", "Portable",
	"Laptop", "Notebook", "Hand Held", "Docking Station", "All In One", "Sub Notebook", "Space-saving",
	"Lunch Box", "Main Server Chassis", "Expansion Chassis", "Sub Chassis", "Bus Expansion Chassis",
	"Peripheral Chassis", "RAID Chassis", "Rack Mount Chassis", "Sealed-case PC", "Multi-system", "CompactPCI",
	"AdvancedTCA", "Blade", "Blade Enclosing", "Tablet", "Convertible", "Detachable", "IoT Gateway",
	"Embedded PC", "Mini PC", "Stick PC",
};

/* ---- Private Functions ---------------------------------------------------- */

static const char *pick(const char *const *names, size_t n, uint8_t v)
{
	return v >= FIRST && (size_t)(v - FIRST) < n ? names[v - FIRST] : OUT_OF_SPEC;
}

/* ---- Public Functions ----------------------------------------------------- */

const char *smbios_location_name(uint8_t v)
{
	if (v >= LOCATION_PC98 && v - LOCATION_PC98 < (int)ARRAY_SIZE(location_pc98))
		return location_pc98[v - LOCATION_PC98];
	return pick(location, ARRAY_SIZE(location), v);
}

const char *smbios_use_name(uint8_t v) { return pick(use, ARRAY_SIZE(use), v); }
const char *smbios_ecc_name(uint8_t v) { return pick(ecc, ARRAY_SIZE(ecc), v); }
const char *smbios_form_factor_name(uint8_t v) { return pick(form_factor, ARRAY_SIZE(form_factor), v); }
const char *smbios_memory_type_name(uint8_t v) { return pick(mem_type, ARRAY_SIZE(mem_type), v); }
const char *smbios_chassis_name(uint8_t v) { return pick(chassis, ARRAY_SIZE(chassis), v); }

const char *smbios_detail_name(unsigned bit)
{
	return bit < SMBIOS_DETAIL_BITS ? detail[bit] : 0;
}

bool smbios_ecc_is_ecc(uint8_t v)
{
	return v == SMBIOS_ECC_SINGLE_BIT || v == SMBIOS_ECC_MULTI_BIT || v == SMBIOS_ECC_CRC;
}

const char *smbios_module_name(const struct smbios_device *d)
{
	if (d->type_detail & SMBIOS_DETAIL_LRDIMM)
		return "LRDIMM";
	if (d->type_detail & SMBIOS_DETAIL_REGISTERED)
		return "RDIMM";
	if (d->form_factor == SMBIOS_FF_SODIMM)
		return "SODIMM";
	if (d->form_factor == SMBIOS_FF_DIMM)
		return d->type_detail & SMBIOS_DETAIL_UNBUFFERED ? "UDIMM" : "DIMM";
	if (d->form_factor == SMBIOS_FF_CHIP || d->form_factor == SMBIOS_FF_ROW_OF_CHIPS)
		return "soldered";
	return d->form_factor == SMBIOS_FF_CAMM ? "CAMM" : 0;
}
