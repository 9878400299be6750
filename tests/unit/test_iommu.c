/* test_iommu.c - host tests for kernel/run/iommu.c against register models of an Intel VT-d unit and an AMD IOMMU that the firmware left on: translation and protected memory turned off and waited for (bounded by the reference clock, not a hang), one GCMD bit changed per write with interrupt remapping and queued invalidation kept, AMD's command buffer and logs stopped before IommuEn, units left off untouched, and the `iommu` member of the state record. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "console.h"
#include "devio.h"
#include "iommu.h"
#include "iommu_regs.h"
#include "paging.h"
#include "record.h"
#include "timer.h"

#define VTD_BASE 0xfed90000ull
#define AMD_BASE 0xfd500000ull
#define NEVER (-1)
#define MAX_WRITES 32

/* ---- The models ------------------------------------------------------------- */
static struct {
	uint64_t cap;
	uint32_t gsts, pmen;
	int release_after;             /* GSTS/PMEN reads until a change takes; NEVER */
	int reads;
	bool te_off_asked, epm_off_asked;
	uint32_t gcmd[MAX_WRITES];
	unsigned n_gcmd, n_writes;
} vtd_m;

static struct {
	uint64_t control, status;
	uint64_t writes[MAX_WRITES];
	unsigned n_writes;
	int reads;
} amd_m;

static uint64_t now_us;
static char text[4096];
static unsigned errors;

static void reset(void)
{
	memset(&vtd_m, 0, sizeof(vtd_m));
	memset(&amd_m, 0, sizeof(amd_m));
	vtd_m.release_after = 3;
	now_us = 0;
	text[0] = 0;
	errors = 0;
}

static bool settles(void)
{
	return vtd_m.release_after != NEVER && ++vtd_m.reads >= vtd_m.release_after;
}

uint32_t devio_read32(volatile void *base, uint32_t off)
{
	if ((uintptr_t)base != VTD_BASE)
		return 0xffffffffu;
	if (off == VTD_GSTS_REG && vtd_m.te_off_asked && settles())
		vtd_m.gsts &= ~VTD_GSTS_TES;
	if (off == VTD_PMEN_REG && vtd_m.epm_off_asked && settles())
		vtd_m.pmen &= ~VTD_PMEN_PRS;
	return off == VTD_GSTS_REG ? vtd_m.gsts : off == VTD_PMEN_REG ? vtd_m.pmen : 0;
}

void devio_write32(volatile void *base, uint32_t off, uint32_t v)
{
	if ((uintptr_t)base != VTD_BASE)
		return;
	vtd_m.n_writes++;
	if (off == VTD_GCMD_REG && vtd_m.n_gcmd < MAX_WRITES) {
		vtd_m.gcmd[vtd_m.n_gcmd++] = v;
		vtd_m.te_off_asked = !(v & VTD_GCMD_TE);
		vtd_m.reads = 0;
	} else if (off == VTD_PMEN_REG) {
		vtd_m.pmen = (vtd_m.pmen & VTD_PMEN_PRS) | (v & VTD_PMEN_EPM);
		vtd_m.epm_off_asked = !(v & VTD_PMEN_EPM);
		vtd_m.reads = 0;
	}
}

uint64_t devio_read64(volatile void *base, uint32_t off)
{
	if ((uintptr_t)base == VTD_BASE)
		return off == VTD_CAP_REG ? vtd_m.cap : 0;
	if (off == AMD_IOMMU_STATUS && !(amd_m.control & (AMD_CTL_CMD_BUF_EN | AMD_CTL_EVENT_LOG_EN)) && ++amd_m.reads >= 2)
		amd_m.status &= ~(AMD_STS_CMD_BUF_RUN | AMD_STS_EVENT_LOG_RUN);
	return off == AMD_IOMMU_CONTROL ? amd_m.control : off == AMD_IOMMU_STATUS ? amd_m.status : 0;
}

void devio_write64(volatile void *base, uint32_t off, uint64_t v)
{
	if ((uintptr_t)base == AMD_BASE && off == AMD_IOMMU_CONTROL && amd_m.n_writes < MAX_WRITES) {
		amd_m.writes[amd_m.n_writes++] = v;
		amd_m.control = v;
	}
}

void *paging_map_mmio(uint64_t phys, uint64_t size)
{
	(void)size;
	return (void *)(uintptr_t)phys;
}

struct timer_deadline timer_deadline_ms(uint64_t ms)
{
	return (struct timer_deadline){ true, now_us + ms * 1000 };
}

bool timer_passed(const struct timer_deadline *d)
{
	now_us += 10;
	return now_us >= d->at;
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text + strlen(text), sizeof(text) - strlen(text), fmt, ap);
	va_end(ap);
}

void console_error(const char *what, const char *fmt, ...)
{
	(void)what;
	(void)fmt;
	errors++;
}

/* ---- Helpers ---------------------------------------------------------------- */
static struct acpi_info ai;

static void one_vtd(void)
{
	memset(&ai, 0, sizeof(ai));
	ai.dmar.present = true;
	ai.dmar.flags = ACPI_DMAR_INTR_REMAP | ACPI_DMAR_DMA_CTRL_OPT_IN;
	ai.dmar.n_units = 1;
	ai.dmar.units[0] = (struct acpi_iommu){ .kind = ACPI_IOMMU_VTD, .flags = 1, .base = VTD_BASE };
}

static void one_amd(void)
{
	memset(&ai, 0, sizeof(ai));
	ai.ivrs.present = true;
	ai.ivrs.n_units = 1;
	ai.ivrs.units[0] = (struct acpi_iommu){ .kind = ACPI_IOMMU_AMD, .ivhd_type = 0x11, .device_id = 2,
						.base = AMD_BASE };
}

static const char *record(void)
{
	static char buf[2048];
	struct rec r;
	rec_begin(&r, buf, sizeof(buf), "state");
	iommu_rec(&r);
	return rec_finish(&r, NULL);
}

/* ---- Tests ------------------------------------------------------------------ */
TEST(vtd_left_translating_is_turned_off_one_bit_at_a_time)
{
	reset();
	one_vtd();
	vtd_m.cap = VTD_CAP_PLMR | VTD_CAP_PHMR;
	vtd_m.gsts = VTD_GSTS_TES | VTD_GSTS_IRES | VTD_GSTS_QIES | (1u << 30) /* RTPS, one-shot */;
	vtd_m.pmen = VTD_PMEN_EPM | VTD_PMEN_PRS;
	iommu_release(&ai);
	CHECK_EQ_U(vtd_m.n_gcmd, 1);
	CHECK_EQ_U(vtd_m.gcmd[0], VTD_GSTS_IRES | VTD_GSTS_QIES);  /* TE off; the rest as it was; no one-shot bit */
	CHECK_EQ_U(vtd_m.gsts & VTD_GSTS_TES, 0);
	CHECK_EQ_U(vtd_m.pmen, 0);
	CHECK_EQ_U(errors, 0);
	CHECK(strstr(text, "iommu: VT-d at 0xfed90000 (segment 0): translation was on: turned off for the run; "
			   "protected memory was on: turned off for the run\n") != NULL);
	const char *line = record();
	CHECK(line && strstr(line, "\"iommu\":{\"tables\":\"DMAR\",\"dma_ctrl_platform_opt_in\":true,\"units\":[{\"kind\":"
				   "\"VT-d\",\"base\":\"0xfed90000\",\"segment\":0,\"translation\":\"was on: turned off for "
				   "the run\",\"protected_memory\":\"was on: turned off for the run\","
				   "\"interrupt_remapping\":true}]}"));
}

TEST(vtd_that_never_lets_go_is_bounded_and_reported)
{
	reset();
	one_vtd();
	vtd_m.gsts = VTD_GSTS_TES;
	vtd_m.release_after = NEVER;
	iommu_release(&ai);
	CHECK(now_us >= 1000 * 1000 && now_us < 1010 * 1000);
	CHECK_EQ_U(errors, 1);
	CHECK(strstr(text, "translation was on: still on after 1 s; protected memory not supported") != NULL);
}

TEST(vtd_left_off_is_not_written)
{
	reset();
	one_vtd();
	vtd_m.cap = VTD_CAP_PLMR;
	vtd_m.gsts = VTD_GSTS_IRES;
	iommu_release(&ai);
	CHECK_EQ_U(vtd_m.n_writes, 0);
	CHECK(strstr(text, "translation off; protected memory off\n") != NULL);
}

TEST(amd_iommu_on_is_stopped_then_disabled_in_linux_order)
{
	const uint64_t pass_pw = 1ull << 8;
	reset();
	one_amd();
	amd_m.control = AMD_CTL_IOMMU_EN | AMD_CTL_CMD_BUF_EN | AMD_CTL_EVENT_LOG_EN | AMD_CTL_EVENT_INT_EN | pass_pw;
	amd_m.status = AMD_STS_CMD_BUF_RUN | AMD_STS_EVENT_LOG_RUN;
	iommu_release(&ai);
	CHECK_EQ_U(amd_m.n_writes, 4);
	CHECK_EQ_U(amd_m.writes[0] & AMD_CTL_CMD_BUF_EN, 0);        /* the command buffer first */
	CHECK(amd_m.writes[0] & AMD_CTL_IOMMU_EN);
	CHECK(amd_m.writes[2] & AMD_CTL_IOMMU_EN);
	CHECK_EQ_U(amd_m.writes[3], pass_pw);                         /* IommuEn last; other settings kept */
	CHECK_EQ_U(amd_m.status, 0);
	CHECK(strstr(text, "iommu: AMD-Vi at 0xfd500000 (segment 0): translation was on: turned off for the run\n"));
	const char *line = record();
	CHECK(line && strstr(line, "\"iommu\":{\"tables\":\"IVRS\",\"units\":[{\"kind\":\"AMD-Vi\",\"base\":\"0xfd500000\","
				   "\"segment\":0,\"translation\":\"was on: turned off for the run\"}]}"));
}

TEST(amd_iommu_off_is_not_written)
{
	reset();
	one_amd();
	iommu_release(&ai);
	CHECK_EQ_U(amd_m.n_writes, 0);
	CHECK(strstr(text, "translation off\n") != NULL);
}

TEST(no_tables_says_so)
{
	reset();
	memset(&ai, 0, sizeof(ai));
	iommu_release(&ai);
	const char *line = record();
	CHECK(line && strstr(line, "\"iommu\":\"none: the firmware lists no DMAR or IVRS\""));
	CHECK_EQ_U(text[0], 0);
}

TEST(before_the_walk_the_record_says_so)
{
	const char *line = record();
	CHECK(line && strstr(line, "\"iommu\":\"not looked for\""));
}

int main(void)
{
	RUN(before_the_walk_the_record_says_so); /* first: nothing has looked yet */
	RUN(vtd_left_translating_is_turned_off_one_bit_at_a_time);
	RUN(vtd_that_never_lets_go_is_bounded_and_reported);
	RUN(vtd_left_off_is_not_written);
	RUN(amd_iommu_on_is_stopped_then_disabled_in_linux_order);
	RUN(amd_iommu_off_is_not_written);
	RUN(no_tables_says_so);
	return check_summary("iommu");
}
