/* memtype.c - MTRRs and PAT on every CPU, and what they mean for the RAM we measure in (Intel SDM vol. 3A §12.11-12.12; AMD APM vol. 2 §7.7); see memtype.h. */
#include "memtype.h"
#include "console.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"
#include "mtrr.h"
#include "percpu.h"
#include "pmm.h"

/* ---- Constants ------------------------------------------------------------ */
#define ADDR_EAX_PHYS CPUID_MASK(7, 0)   /* CPUID 80000008H EAX[7:0]: MAXPHYADDR */
#define VENDOR_AMD_EBX 0x68747541u       /* "Auth" */
#define VENDOR_HYGON_EBX 0x6f677948u     /* "Hygo" */
#define WHAT_LEN 24

static const uint32_t fixed_msr[MTRR_FIXED_MSRS] = {
	MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000,
	MSR_IA32_MTRR_FIX4K_C0000, MSR_IA32_MTRR_FIX4K_C0000 + 1, MSR_IA32_MTRR_FIX4K_C0000 + 2,
	MSR_IA32_MTRR_FIX4K_C0000 + 3, MSR_IA32_MTRR_FIX4K_C0000 + 4, MSR_IA32_MTRR_FIX4K_C0000 + 5,
	MSR_IA32_MTRR_FIX4K_C0000 + 6, MSR_IA32_MTRR_FIX4K_C0000 + 7,
};

/* ---- Private Variables ---------------------------------------------------- */
static struct mtrr_regs bsp;
static const char *bsp_why;                /* why the BSP's MTRRs are unknown, or NULL */
static uint64_t not_wb_bytes, not_wb_ranges;
static uint32_t n_mismatch;              /* CPUs that still differ */
static uint32_t n_reset_synced;          /* APs found reset (MTRRs off) and given the BSP's */
static bool safe_mode;
/* What the check found on each CPU. */
static enum { MT_SAME, MT_RESET_SYNCED, MT_RESET_UNSET, MT_SYNCED, MT_DIFFERS } cpu_state[QB_MAX_CPUS];
static uint32_t n_reset_unset;           /* reset APs left so: safe mode writes no MSR */
static char mismatch_what[QB_MAX_CPUS][WHAT_LEN]; /* per CPU: the first register that differed */

/* ---- Private Functions ---------------------------------------------------- */
/* This CPU's registers; *why says what could not be read (NULL: all). */
static void read_regs(struct mtrr_regs *r, const char **why)
{
	struct cpuid_regs c;
	memset(r, 0, sizeof(*r));
	*why = 0;
	cpuid_raw(0, 0, &c);
	r->amd = c.ebx == VENDOR_AMD_EBX || c.ebx == VENDOR_HYGON_EBX;
	cpuid_raw(CPUID_LEAF_FEATURES, 0, &c);
	bool mtrr = c.edx & (1u << CPUID_1_EDX_MTRR), pat = c.edx & (1u << CPUID_1_EDX_PAT);
	cpuid_raw(CPUID_LEAF_EXT_MAX, 0, &c);
	if (c.eax >= CPUID_LEAF_ADDR) {
		cpuid_raw(CPUID_LEAF_ADDR, 0, &c);
		r->phys_bits = (uint8_t)CPUID_FIELD(c.eax, ADDR_EAX_PHYS);
	}
	r->have_pat = pat && msr_read_safe(MSR_IA32_PAT, &r->pat) == MSR_OK;
	if (!mtrr) {
		*why = "unknown: CPUID.01H:EDX.MTRR is clear";
		return;
	}
	if (msr_read_safe(MSR_IA32_MTRRCAP, &r->cap) != MSR_OK ||
	    msr_read_safe(MSR_IA32_MTRR_DEF_TYPE, &r->def_type) != MSR_OK) {
		*why = msr_gp_reason(MSR_IA32_MTRRCAP);
		return;
	}
	r->n_var = MIN((uint32_t)(r->cap & MTRRCAP_VCNT_MASK), (uint32_t)MTRR_MAX_VAR);
	for (uint32_t i = 0; i < r->n_var; i++)
		if (msr_read_safe(MSR_IA32_MTRR_PHYSBASE0 + 2 * i, &r->base[i]) != MSR_OK ||
		    msr_read_safe(MSR_IA32_MTRR_PHYSBASE0 + 2 * i + 1, &r->mask[i]) != MSR_OK) {
			*why = msr_gp_reason(MSR_IA32_MTRR_PHYSBASE0 + 2 * i);
			return;
		}
	if (r->cap & MTRRCAP_FIX)
		for (unsigned k = 0; k < MTRR_FIXED_MSRS; k++)
			if (msr_read_safe(fixed_msr[k], &r->fixed[k]) != MSR_OK) {
				*why = msr_gp_reason(fixed_msr[k]);
				return;
			}
	if (r->amd && (msr_read_safe(MSR_AMD_SYSCFG, &r->syscfg) != MSR_OK ||
		       msr_read_safe(MSR_AMD_TOM2, &r->tom2) != MSR_OK)) {
		r->syscfg = r->tom2 = 0; /* hypervisors often hide them: no TOM2 rule then */
	}
	r->have_mtrr = true;
}

/* Program this CPU's MTRRs and PAT as the BSP's, as Linux does for each AP
 * (SDM vol. 3A §12.11.8: caches off and flushed, MTRRs disabled while they
 * change, TLBs flushed, then all back on). False if a write faulted. */
static bool copy_bsp(void)
{
	bool ok = true;
	uint64_t cr0 = read_cr0(), cr4 = read_cr4();
	write_cr0((cr0 | CR0_CD) & ~CR0_NW);
	cpu_wbinvd();
	if (cr4 & CR4_PGE)
		write_cr4(cr4 & ~CR4_PGE); /* flushes global translations too */
	write_cr3(read_cr3());
	ok &= msr_write_safe(MSR_IA32_MTRR_DEF_TYPE, bsp.def_type & ~MTRR_DEF_E) == MSR_OK;
	for (uint32_t i = 0; ok && i < bsp.n_var; i++)
		ok &= msr_write_safe(MSR_IA32_MTRR_PHYSBASE0 + 2 * i, bsp.base[i]) == MSR_OK &&
		      msr_write_safe(MSR_IA32_MTRR_PHYSBASE0 + 2 * i + 1, bsp.mask[i]) == MSR_OK;
	if (bsp.cap & MTRRCAP_FIX)
		for (unsigned k = 0; ok && k < MTRR_FIXED_MSRS; k++)
			ok &= msr_write_safe(fixed_msr[k], bsp.fixed[k]) == MSR_OK;
	if (ok && bsp.have_pat)
		ok &= msr_write_safe(MSR_IA32_PAT, bsp.pat) == MSR_OK;
	cpu_wbinvd();
	write_cr3(read_cr3());
	ok &= msr_write_safe(MSR_IA32_MTRR_DEF_TYPE, bsp.def_type) == MSR_OK;
	write_cr4(cr4);
	write_cr0(cr0);
	return ok;
}

static void add_piece(void *ctx, uint64_t base, uint64_t len, enum mtrr_type t)
{
	bool *ok = ctx;
	if (mtrr_effective(&bsp, t) == MTRR_WB) {
		*ok &= pmm_add(base, len);
		return;
	}
	not_wb_bytes += len;
	not_wb_ranges++;
	console_error("memtype", "RAM 0x%llx+0x%llx is %s, not write-back: kept out of the allocator",
		      (unsigned long long)base, (unsigned long long)len, mtrr_type_name(mtrr_effective(&bsp, t)));
}

/* ---- Public Functions ----------------------------------------------------- */
void memtype_check_this_cpu(uint32_t cpu, bool safe)
{
	struct mtrr_regs mine;
	const char *why;
	char again[WHAT_LEN];
	if (cpu >= QB_MAX_CPUS)
		return;
	safe_mode = safe;
	read_regs(&mine, &why);
	cpu_state[cpu] = MT_SAME;
	if (!mtrr_differs(&bsp, &mine, mismatch_what[cpu], WHAT_LEN))
		return;
	/* MTRRs all off on an AP: it was reset (an INIT clears them in some
	 * emulators, while real CPUs keep them) and only needs the BSP's. An
	 * AP with MTRRs on but different is a firmware inconsistency: it is
	 * made the same too, and reported. Safe mode writes no MSR. */
	bool was_reset = mine.have_mtrr && !(mine.def_type & MTRR_DEF_E);
	if (bsp.have_mtrr && mine.have_mtrr && !safe_mode && copy_bsp()) {
		read_regs(&mine, &why);
		if (!mtrr_differs(&bsp, &mine, again, WHAT_LEN)) {
			cpu_state[cpu] = was_reset ? MT_RESET_SYNCED : MT_SYNCED;
			return;
		}
	}
	cpu_state[cpu] = was_reset && safe_mode ? MT_RESET_UNSET : MT_DIFFERS;
}

void memtype_read_bsp(void)
{
	read_regs(&bsp, &bsp_why);
}

bool memtype_uniform(uint64_t base, uint64_t len)
{
	return !bsp.have_mtrr || mtrr_type_of(&bsp, base, len) != MTRR_MIXED;
}

bool memtype_write_back(uint64_t base, uint64_t len)
{
	if (!bsp.have_mtrr)
		return true; /* nothing to go by: as for RAM */
	enum mtrr_type t = mtrr_type_of(&bsp, base, len);
	return t != MTRR_MIXED && mtrr_effective(&bsp, t) == MTRR_WB;
}

bool memtype_add_ram(uint64_t base, uint64_t len)
{
	bool ok = true;
	if (!bsp.have_mtrr)
		return pmm_add(base, len); /* nothing to go by: as the firmware's map says */
	mtrr_split(&bsp, base, len, add_piece, &ok);
	return ok;
}

void memtype_check_report(const uint32_t *cpus, uint32_t n)
{
	n_mismatch = n_reset_synced = n_reset_unset = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = cpus[i];
		if (c >= QB_MAX_CPUS)
			continue;
		if (cpu_state[c] == MT_SAME)
			continue;
		if (cpu_state[c] == MT_RESET_SYNCED) {
			n_reset_synced++;
			continue;
		}
		if (cpu_state[c] == MT_RESET_UNSET) {
			n_reset_unset++; /* said in the memory record and in every mem_type */
			continue;
		}
		n_mismatch += cpu_state[c] == MT_DIFFERS;
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "mtrr mismatch");
		rec_str(r, "detail", cpu_state[c] == MT_SYNCED
				     ? "this CPU's memory types differed from the BSP's (a firmware inconsistency): set to the BSP's"
				     : "this CPU's memory types differ from the BSP's and could not be set: buffers it touches may be cached otherwise");
		rec_u64(r, "cpu", c);
		rec_u64(r, "apic_id", percpu[c].apic_id);
		rec_str(r, "register", mismatch_what[c]);
		console_rec_emit(r);
	}
}

const char *memtype_result_type(const uint32_t *cpus, uint32_t n)
{
	if (!bsp.have_mtrr)
		return bsp_why ? bsp_why : "unknown";
	for (uint32_t i = 0; cpus && i < n; i++) {
		uint32_t c = cpus[i];
		if (c < QB_MAX_CPUS && cpu_state[c] == MT_DIFFERS)
			return "MIXED: this result's CPUs' MTRRs or PAT disagree";
		if (c < QB_MAX_CPUS && cpu_state[c] == MT_RESET_UNSET)
			return "MIXED: an AP's MTRRs are off (reset), and safe mode writes no MSR to set them";
	}
	/* The allocator hands out only RAM whose MTRR type is WB: the buffers'
	 * type is what PAT entry 0 makes of WB. */
	return mtrr_type_name(mtrr_effective(&bsp, MTRR_WB));
}

void memtype_report(struct rec *r)
{
	static const uint32_t zero = 0;
	rec_obj_begin(r, "mtrr");
	if (bsp.have_mtrr) {
		rec_bool(r, "enabled", (bsp.def_type & MTRR_DEF_E) != 0);
		rec_str(r, "default_type", mtrr_type_name((enum mtrr_type)(bsp.def_type & MTRR_DEF_TYPE_MASK)));
		rec_u64(r, "variable_used", mtrr_var_used(&bsp));
		rec_u64(r, "variable_total", bsp.cap & MTRRCAP_VCNT_MASK);
		rec_bool(r, "fixed", (bsp.cap & MTRRCAP_FIX) && (bsp.def_type & MTRR_DEF_FE));
		if (bsp.amd)
			rec_hex(r, "tom2", bsp.syscfg & SYSCFG_MTRR_TOM2_EN ? bsp.tom2 : 0);
	} else {
		rec_str(r, "state", bsp_why ? bsp_why : "unknown");
	}
	rec_obj_end(r);
	if (bsp.have_pat) {
		rec_hex(r, "pat", bsp.pat);
		rec_str(r, "pat0", mtrr_type_name((enum mtrr_type)(bsp.pat & 0x7)));
	} else {
		rec_str(r, "pat", "unavailable");
	}
	rec_u64(r, "mtrr_reset_cpus", n_reset_synced); /* APs whose MTRRs were off (reset), given the BSP's */
	if (n_reset_unset)
		rec_u64(r, "mtrr_reset_cpus_unset", n_reset_unset); /* the same, left so in safe mode */
	rec_u64(r, "not_wb_bytes", not_wb_bytes);
	rec_u64(r, "not_wb_ranges", not_wb_ranges);
	rec_str(r, "mem_type", memtype_result_type(&zero, 1)); /* of buffers on the BSP */
}
