/* report_smbios.h - the `machine` record and one `memory_device` record per populated slot (docs/records.md), from the SMBIOS table as kernel/acpi/smbios.c decodes it, written once for the kernel and the Linux twin, which each find the table their own way.
 *
 * Layer: run. Includes acpi (smbios), console and lib. */
#ifndef QB_KERNEL_REPORT_SMBIOS_H
#define QB_KERNEL_REPORT_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record.h"
#include "smbios.h"
#include "smbios_summary.h"

#define REPORT_SERIAL_DIGITS 12        /* hex digits of SHA-256 a serial number or UUID shows by default */
#define REPORT_SERIAL_PREFIX "sha256:"
#define REPORT_LINE_LEN 160

/* What the platform found and how. */
struct report_smbios_in {
	const struct smbios_info *si;
	const struct smbios_placement *pl;  /* NULL: no placement was tried */
	const char *source;            /* "uefi-smbios3", "uefi-smbios", "bios-scan", "sysfs-tables", "sysfs-id", "none" */
	const char *source_note;       /* what was not read and why, or NULL */
	uint64_t ep_phys;              /* where the entry point was, 0 if not known */
	bool serials;                  /* serials=on: serial numbers and the UUID in full */
};

/* The error records of the table, the `machine` record, one `memory_device`
 * record per populated memory device, and the "machine:" and "memory:" text
 * lines. */
void report_smbios(const struct report_smbios_in *in);

/* "Dell Inc. PowerEdge R630" (the system's manufacturer and product), or
 * "product unknown"; for headers. */
void report_smbios_product(const struct smbios_info *si, char *buf, size_t cap);

/* "BIOS 2.4.3 (01/17/2017)", or "BIOS unknown". */
void report_smbios_bios(const struct smbios_info *si, char *buf, size_t cap);

/* A string field as the records write it: its text, or null with a note in
 * the open `notes` object when it has none (report_smbios_dev.c). */
void report_smbios_str(struct rec *r, const char *key, const struct smbios_str *s);

/* Write key's notes object (only where some string has none). */
void report_smbios_notes(struct rec *r, const struct smbios_str *const *strs, const char *const *keys, unsigned n);

/* A serial number: "sha256:" and the first REPORT_SERIAL_DIGITS hex digits
 * of the SHA-256 of its text, or the text itself with serials; null with
 * its state when there is none. */
void report_smbios_serial(struct rec *r, const char *key, const struct smbios_str *s, bool serials);

/* The memory_device records. */
void report_smbios_devices(const struct report_smbios_in *in);

#endif
