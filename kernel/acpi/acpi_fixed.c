/* acpi_fixed.c - decodes the fixed-layout tables: FADT (ACPI 6.5 5.2.9), HPET (IA-PC HPET 1.0a 3.2.4) and SPCR (Microsoft SPCR rev 2-4). */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "lib.h"
#include "acpi.h"
#include "acpi_tables.h"

/* ---- Constants ---------------------------------------------------------- */

#define FADT_SIG "FACP"
#define HPET_SIG "HPET"
#define SPCR_SIG "SPCR"
#define FADT_PM_TMR_LEN 4              /* Table 5.9: PM_TMR_LEN of a present timer */

/* True if the table (len bytes) holds the whole of field. */
#define HAS_FIELD(len, type, field) \
	((len) >= offsetof(type, field) + sizeof(((type *)0)->field))

/* ---- Private Functions -------------------------------------------------- */

/* Choose the PM timer: X_PM_TMR_BLK if present and usable, else PM_TMR_BLK. */
static void fadt_pm_timer(const struct acpi_fadt_raw *raw, uint32_t len, struct acpi_info *out)
{
	struct acpi_fadt_info *f = &out->fadt;

	if (HAS_FIELD(len, struct acpi_fadt_raw, x_pm_tmr_blk) && raw->x_pm_tmr_blk.address) {
		struct acpi_addr a;

		acpi_gas_decode(&raw->x_pm_tmr_blk, &a);
		if (a.space == ACPI_GAS_SPACE_MEMORY || a.space == ACPI_GAS_SPACE_IO) {
			f->pm_timer_present = true;
			f->pm_timer_mmio = a.space == ACPI_GAS_SPACE_MEMORY;
			f->pm_timer_addr = a.address;
		} else {
			acpi_error(out, FADT_SIG, offsetof(struct acpi_fadt_raw, x_pm_tmr_blk),
				   "X_PM_TMR_BLK in address space %u", a.space);
		}
	}
	if (!f->pm_timer_present && raw->pm_tmr_blk) {
		if (raw->pm_tmr_len == FADT_PM_TMR_LEN) {
			f->pm_timer_present = true;
			f->pm_timer_addr = raw->pm_tmr_blk;
		} else if (raw->pm_tmr_len) {
			acpi_error(out, FADT_SIG, offsetof(struct acpi_fadt_raw, pm_tmr_len),
				   "PM_TMR_LEN %u, not 4", raw->pm_tmr_len);
		}
	}
	if (f->pm_timer_present)
		f->pm_timer_32bit = raw->flags & ACPI_FADT_FLAG_TMR_VAL_EXT;
}

/* Convert an SPCR Configured Baud Rate code to bits/s; false if unknown. */
static bool spcr_baud(uint8_t code, uint32_t *baud)
{
	static const struct {
		uint8_t code;
		uint32_t baud;
	} rates[] = {
		{ ACPI_SPCR_BAUD_KEEP, 0 },
		{ ACPI_SPCR_BAUD_9600, 9600 },
		{ ACPI_SPCR_BAUD_19200, 19200 },
		{ ACPI_SPCR_BAUD_57600, 57600 },
		{ ACPI_SPCR_BAUD_115200, 115200 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
		if (rates[i].code == code) {
			*baud = rates[i].baud;
			return true;
		}
	}
	*baud = 0;
	return false;
}

/* ---- Public Functions --------------------------------------------------- */

int acpi_parse_fadt(const void *table, uint32_t len, struct acpi_info *out)
{
	const struct acpi_fadt_raw *raw = table;
	struct acpi_fadt_info *f = &out->fadt;

	memset(f, 0, sizeof(*f));
	len = acpi_table_len(table, len, FADT_SIG, ACPI_FADT_V1_LEN, out);
	if (!len)
		return ACPI_ERR;
	/* Fields past len do not exist: every read below is guarded by HAS_FIELD or len >= 116. */
	f->present = true;
	f->revision = raw->header.revision;
	f->length = len;
	f->flags = raw->flags;
	f->hw_reduced = raw->flags & ACPI_FADT_FLAG_HW_REDUCED;
	if (!f->hw_reduced)
		fadt_pm_timer(raw, len, out);
	if ((raw->flags & ACPI_FADT_FLAG_RESET_REG_SUP) &&
	    HAS_FIELD(len, struct acpi_fadt_raw, reset_value)) {
		f->reset_present = true;
		acpi_gas_decode(&raw->reset_reg, &f->reset_reg);
		f->reset_value = raw->reset_value;
	}
	return 0;
}

int acpi_parse_hpet(const void *table, uint32_t len, struct acpi_info *out)
{
	const struct acpi_hpet_raw *raw = table;
	struct acpi_hpet_info *h = &out->hpet;
	uint32_t id;

	memset(h, 0, sizeof(*h));
	len = acpi_table_len(table, len, HPET_SIG, sizeof(*raw), out);
	if (!len)
		return ACPI_ERR;
	if (raw->base.space_id != ACPI_GAS_SPACE_MEMORY) {
		acpi_error(out, HPET_SIG, offsetof(struct acpi_hpet_raw, base),
			   "base in address space %u", raw->base.space_id);
		return ACPI_ERR;
	}
	if (!raw->base.address) {
		acpi_error(out, HPET_SIG, offsetof(struct acpi_hpet_raw, base), "base address is 0", 0);
		return ACPI_ERR;
	}
	id = raw->event_timer_block_id;
	h->present = true;
	h->base = raw->base.address;
	h->number = raw->hpet_number;
	h->min_tick = raw->min_tick;
	h->n_comparators = (uint8_t)(((id >> ACPI_HPET_ID_COMPARATORS_SHIFT) &
				      ACPI_HPET_ID_COMPARATORS_MASK) + 1);
	h->counter_64bit = id & ACPI_HPET_ID_COUNTER_64BIT;
	h->vendor_id = (uint16_t)(id >> ACPI_HPET_ID_VENDOR_SHIFT);
	return 0;
}

int acpi_parse_spcr(const void *table, uint32_t len, struct acpi_info *out)
{
	const struct acpi_spcr_raw *raw = table;
	const struct acpi_spcr_rev4_raw *raw4 = table;
	struct acpi_spcr_info *s = &out->spcr;

	memset(s, 0, sizeof(*s));
	len = acpi_table_len(table, len, SPCR_SIG, sizeof(*raw), out);
	if (!len)
		return ACPI_ERR;
	s->present = true;
	s->revision = raw->header.revision;
	s->interface_type = raw->interface_type;
	acpi_gas_decode(&raw->base, &s->base);
	s->interrupt_type = raw->interrupt_type;
	s->irq = raw->irq;
	s->gsi = raw->gsi;
	s->baud_code = raw->baud_code;
	if (!spcr_baud(raw->baud_code, &s->baud))
		acpi_error(out, SPCR_SIG, offsetof(struct acpi_spcr_raw, baud_code),
			   "unknown baud rate code %u", raw->baud_code);
	if (raw->header.revision >= ACPI_SPCR_REV_UART_CLOCK)
		s->uart_clock = raw->uart_clock;
	if (raw->header.revision >= ACPI_SPCR_REV_PRECISE_BAUD &&
	    HAS_FIELD(len, struct acpi_spcr_rev4_raw, precise_baud) && raw4->precise_baud)
		s->baud = raw4->precise_baud;
	return 0;
}
