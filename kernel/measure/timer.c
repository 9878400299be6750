/* timer.c - HPET (IA-PC HPET 1.0a §2.3) and ACPI PM timer (ACPI 6.5 §4.8.3.3) as reference clocks; see timer.h. */
#include "timer.h"
#include "cpu.h"
#include "paging.h"
#include "spinlock.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define HPET_GCAP_ID 0x000             /* general capabilities and ID */
#define   HPET_GCAP_PERIOD_SHIFT 32    /* counter period in femtoseconds, bits 63:32 */
#define   HPET_GCAP_COUNT_64 (1ull << 13)
#define HPET_GEN_CONF 0x010
#define   HPET_CONF_ENABLE (1ull << 0)
#define HPET_MAIN_COUNTER 0x0f0
#define HPET_REG_SPAN 0x400
#define HPET_MAX_PERIOD_FS 100000000ull /* spec: at most 100 ns */
#define FS_PER_S 1000000000000000ull

#define PM_TIMER_HZ 3579545ull
#define PM_TIMER_MASK24 0xffffffull
#define PM_TIMER_MASK32 0xffffffffull

#define MS_PER_S 1000ull
#define ADVANCE_MS 10                  /* a counter that runs moves within this long (HPET >= 10 MHz, PM timer 3.58 MHz) */

/* ---- Private Variables ---------------------------------------------------- */
static enum timer_kind kind;
static uint64_t hz;
static volatile uint64_t *hpet;
static bool hpet_64;
static uint16_t pm_port;
static volatile uint32_t *pm_mmio;
static uint64_t pm_mask;
static uint64_t last_raw, extended;

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t raw_read(void)
{
	switch (kind) {
	case TIMER_HPET:
		return hpet_64 ? hpet[HPET_MAIN_COUNTER / 8]
			       : *(volatile uint32_t *)((uintptr_t)hpet + HPET_MAIN_COUNTER);
	case TIMER_PM:
		return (pm_mmio ? *pm_mmio : inl(pm_port)) & pm_mask;
	default:
		return 0;
	}
}

static uint64_t raw_mask(void)
{
	if (kind == TIMER_HPET)
		return hpet_64 ? ~0ull : PM_TIMER_MASK32;
	return pm_mask;
}

/* True if the counter changes within a bounded number of reads. */
static bool advances(void)
{
	uint64_t a = raw_read();
	uint64_t deadline = spin_deadline_ms(ADVANCE_MS); /* the TSC frequency is not known yet */
	while (tsc_read() < deadline)
		if (raw_read() != a)
			return true;
	return false;
}

static bool try_hpet(const struct acpi_info *ai)
{
	if (!ai->hpet.present)
		return false;
	hpet = paging_map_mmio(ai->hpet.base, HPET_REG_SPAN);
	if (!hpet)
		return false;
	uint64_t cap = hpet[HPET_GCAP_ID / 8];
	uint64_t period = cap >> HPET_GCAP_PERIOD_SHIFT;
	if (period == 0 || period > HPET_MAX_PERIOD_FS)
		return false;
	hpet_64 = (cap & HPET_GCAP_COUNT_64) != 0;
	hpet[HPET_GEN_CONF / 8] |= HPET_CONF_ENABLE;
	kind = TIMER_HPET;
	hz = FS_PER_S / period;
	if (advances())
		return true;
	kind = TIMER_NONE;
	return false;
}

static bool try_pm(const struct acpi_info *ai)
{
	if (!ai->fadt.pm_timer_present)
		return false;
	pm_mask = ai->fadt.pm_timer_32bit ? PM_TIMER_MASK32 : PM_TIMER_MASK24;
	if (ai->fadt.pm_timer_mmio) {
		pm_mmio = paging_map_mmio(ai->fadt.pm_timer_addr, sizeof(uint32_t));
		if (!pm_mmio)
			return false;
	} else {
		if (ai->fadt.pm_timer_addr > 0xffff)
			return false;
		pm_port = (uint16_t)ai->fadt.pm_timer_addr;
	}
	kind = TIMER_PM;
	hz = PM_TIMER_HZ;
	if (advances())
		return true;
	kind = TIMER_NONE;
	return false;
}

/* ---- Public Functions ----------------------------------------------------- */
enum timer_kind timer_init(const struct acpi_info *ai)
{
	kind = TIMER_NONE;
	hz = 0;
	if (!try_hpet(ai))
		try_pm(ai);
	last_raw = raw_read();
	extended = last_raw;
	return kind;
}

enum timer_kind timer_kind(void)
{
	return kind;
}

uint64_t timer_hz(void)
{
	return hz;
}

const char *timer_name(void)
{
	return kind == TIMER_HPET ? "hpet" : kind == TIMER_PM ? "pm-timer" : "none";
}

uint64_t timer_read(void)
{
	uint64_t now = raw_read();
	uint64_t mask = raw_mask();
	extended += (now - last_raw) & mask;
	last_raw = now;
	return extended;
}

struct timer_deadline timer_deadline_ms(uint64_t ms)
{
	struct timer_deadline d = { kind != TIMER_NONE && hz, 0 };
	d.at = d.on_timer ? timer_read() + ms * hz / MS_PER_S : spin_deadline_ms(ms);
	return d;
}

bool timer_passed(const struct timer_deadline *d)
{
	return d->on_timer ? timer_read() >= d->at : tsc_read() >= d->at;
}
