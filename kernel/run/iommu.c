/* iommu.c - the firmware's DMA remapping turned off for the run, as Linux does when it does not use the IOMMU (intel-iommu: iommu_disable_translation, iommu_disable_protect_mem_regions; amd_iommu: iommu_disable); see iommu.h. Register sections are in iommu_regs.h. */
#include "iommu.h"
#include "console.h"
#include "cpu.h"
#include "devio.h"
#include "iommu_regs.h"
#include "lib.h"
#include "paging.h"
#include "timer.h"

/* ---- Constants ------------------------------------------------------------ */
#define IOMMU_UNITS (2 * ACPI_MAX_IOMMUS)

static const char OFF[] = "off";
static const char TURNED_OFF[] = "was on: turned off for the run";
static const char STUCK[] = "was on: still on after 1 s";
static const char UNMAPPED[] = "unknown: its registers cannot be mapped";

/* ---- Types ---------------------------------------------------------------- */
struct unit_state {
	struct acpi_iommu u;
	const char *translation;       /* OFF, TURNED_OFF, STUCK or UNMAPPED */
	const char *protected_memory;  /* VT-d: the same, or "not supported"; AMD: NULL */
	bool interrupt_remapping;      /* VT-d: left on (the kernel's interrupts are all local) */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct unit_state units[IOMMU_UNITS];
static uint32_t n_units, n_more;
static bool looked, dmar, ivrs, opt_in;

/* ---- Private Functions ---------------------------------------------------- */
/* Wait, bounded by IOMMU_OP_MS of the reference clock, until (reg & mask) == 0. */
static bool cleared(volatile uint8_t *r, uint32_t off, uint64_t mask, bool wide)
{
	struct timer_deadline d = timer_deadline_ms(IOMMU_OP_MS);
	for (;;) {
		uint64_t v = wide ? devio_read64(r, off) : devio_read32(r, off);
		if (!(v & mask))
			return true;
		if (timer_passed(&d))
			return !((wide ? devio_read64(r, off) : devio_read32(r, off)) & mask);
		cpu_pause();
	}
}

/* A VT-d unit: protected memory regions off (PMEN.EPM, until PRS clears),
 * then translation (GCMD.TE, one bit changed, until GSTS.TES clears). */
static void vtd(struct unit_state *s)
{
	volatile uint8_t *r = paging_map_mmio(s->u.base, VTD_REG_SPAN);
	if (!r) {
		s->translation = s->protected_memory = UNMAPPED;
		return;
	}
	uint64_t cap = devio_read64(r, VTD_CAP_REG);
	uint32_t sts = devio_read32(r, VTD_GSTS_REG);
	s->interrupt_remapping = sts & VTD_GSTS_IRES;
	if (!(cap & (VTD_CAP_PLMR | VTD_CAP_PHMR))) {
		s->protected_memory = "not supported";
	} else {
		uint32_t pmen = devio_read32(r, VTD_PMEN_REG);
		if (pmen & VTD_PMEN_EPM) {
			devio_write32(r, VTD_PMEN_REG, pmen & ~VTD_PMEN_EPM);
			s->protected_memory = cleared(r, VTD_PMEN_REG, VTD_PMEN_PRS, false) ? TURNED_OFF : STUCK;
		} else {
			s->protected_memory = OFF;
		}
	}
	if (sts & VTD_GSTS_TES) {
		devio_write32(r, VTD_GCMD_REG, (sts & VTD_GSTS_PERSISTENT) & ~VTD_GCMD_TE);
		s->translation = cleared(r, VTD_GSTS_REG, VTD_GSTS_TES, false) ? TURNED_OFF : STUCK;
	} else {
		s->translation = OFF;
	}
}

/* An AMD IOMMU: its command buffer and logs stopped, then IommuEn off, each
 * bit in its own write, in Linux's order. */
static void amd(struct unit_state *s)
{
	static const uint64_t order[] = {
		AMD_CTL_CMD_BUF_EN, AMD_CTL_EVENT_INT_EN, AMD_CTL_EVENT_LOG_EN, AMD_CTL_GA_LOG_EN,
		AMD_CTL_GA_INT_EN, AMD_CTL_PPR_LOG_EN, AMD_CTL_PPR_INT_EN, AMD_CTL_IOMMU_EN,
	};
	volatile uint8_t *r = paging_map_mmio(s->u.base, AMD_IOMMU_REG_SPAN);
	if (!r) {
		s->translation = UNMAPPED;
		return;
	}
	uint64_t ctl = devio_read64(r, AMD_IOMMU_CONTROL);
	bool was_on = ctl & AMD_CTL_IOMMU_EN, any = false;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (ctl & order[i]) {
			ctl &= ~order[i];
			devio_write64(r, AMD_IOMMU_CONTROL, ctl);
			any = true;
		}
	}
	bool stopped = !any || cleared(r, AMD_IOMMU_STATUS, AMD_STS_CMD_BUF_RUN | AMD_STS_EVENT_LOG_RUN, true);
	if (!was_on)
		s->translation = OFF;
	else
		s->translation = stopped && !(devio_read64(r, AMD_IOMMU_CONTROL) & AMD_CTL_IOMMU_EN) ? TURNED_OFF : STUCK;
}

static const char *kind_name(const struct acpi_iommu *u)
{
	return u->kind == ACPI_IOMMU_VTD ? "VT-d" : "AMD-Vi";
}

static void take(const struct acpi_iommu *u)
{
	if (n_units == IOMMU_UNITS) {
		n_more++;
		return;
	}
	struct unit_state *s = &units[n_units++];
	memset(s, 0, sizeof(*s));
	s->u = *u;
	if (u->kind == ACPI_IOMMU_VTD)
		vtd(s);
	else
		amd(s);
	kprintf("iommu: %s at 0x%llx (segment %u): translation %s%s%s\n", kind_name(u), (unsigned long long)u->base,
		u->segment, s->translation, s->protected_memory ? "; protected memory " : "",
		s->protected_memory ? s->protected_memory : "");
	if (s->translation == STUCK || s->protected_memory == STUCK)
		console_error("iommu", "%s at 0x%llx is still on after %u ms: USB DMA (the stick) may not reach memory",
			      kind_name(u), (unsigned long long)u->base, IOMMU_OP_MS);
}

/* ---- Public Functions ----------------------------------------------------- */
void iommu_release(const struct acpi_info *ai)
{
	looked = true;
	n_units = n_more = 0;
	dmar = ai->dmar.present;
	ivrs = ai->ivrs.present;
	opt_in = ai->dmar.flags & ACPI_DMAR_DMA_CTRL_OPT_IN;
	for (uint32_t i = 0; dmar && i < ai->dmar.n_units && i < ACPI_MAX_IOMMUS; i++)
		take(&ai->dmar.units[i]);
	for (uint32_t i = 0; ivrs && i < ai->ivrs.n_units && i < ACPI_MAX_IOMMUS; i++)
		take(&ai->ivrs.units[i]);
	if (dmar && ai->dmar.n_dropped)
		console_error("iommu", "%u more DMAR units than the %u kept: left as the firmware set them",
			      ai->dmar.n_dropped, ACPI_MAX_IOMMUS);
	if (ivrs && ai->ivrs.n_dropped)
		console_error("iommu", "%u more IVRS units than the %u kept: left as the firmware set them",
			      ai->ivrs.n_dropped, ACPI_MAX_IOMMUS);
}

void iommu_rec(struct rec *r)
{
	if (!looked) {
		rec_str(r, "iommu", "not looked for");
		return;
	}
	if (!dmar && !ivrs) {
		rec_str(r, "iommu", "none: the firmware lists no DMAR or IVRS");
		return;
	}
	rec_obj_begin(r, "iommu");
	rec_str(r, "tables", dmar && ivrs ? "DMAR IVRS" : dmar ? "DMAR" : "IVRS");
	if (dmar)
		rec_bool(r, "dma_ctrl_platform_opt_in", opt_in);
	rec_arr_begin(r, "units");
	for (uint32_t i = 0; i < n_units; i++) {
		const struct unit_state *s = &units[i];
		rec_obj_begin(r, 0);
		rec_str(r, "kind", kind_name(&s->u));
		rec_hex(r, "base", s->u.base);
		rec_u64(r, "segment", s->u.segment);
		rec_str(r, "translation", s->translation);
		if (s->u.kind == ACPI_IOMMU_VTD) {
			rec_str(r, "protected_memory", s->protected_memory);
			rec_bool(r, "interrupt_remapping", s->interrupt_remapping);
		}
		rec_obj_end(r);
	}
	rec_arr_end(r);
	if (n_more)
		rec_u64(r, "units_more", n_more);
	rec_obj_end(r);
}
