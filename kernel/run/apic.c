/* apic.c - local APIC IDs, inter-processor interrupts and the one-shot timer (Intel SDM vol. 3A §11.4, §11.5.4, §11.6, §11.12); see apic.h. */
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "msr.h"
#include "paging.h"
#include "spinlock.h"
#include "tsc.h"

/* ---- Constants: xAPIC register offsets (§11.4.1 Table 11-1) ---------------- */
#define XAPIC_ID 0x020
#define   XAPIC_ID_SHIFT 24
#define XAPIC_SVR 0x0f0
#define   SVR_ENABLE (1u << 8)
#define   SVR_SPURIOUS_VECTOR 0xff
#define XAPIC_EOI 0x0b0             /* end of interrupt (§11.8.5): write 0 */
#define XAPIC_ESR 0x280             /* error status (§11.5.3): write, then read */
#define   ESR_SEND_ACCEPT (1u << 2)     /* P6/Pentium: the message was not accepted */
#define   ESR_ILLEGAL_VECTOR_SENT (1u << 5)
#define   ESR_ERRORS_OF_SEND 0xefu      /* bits that report a failed send (Linux do_boot_cpu masks bit 4) */
#define XAPIC_ICR_LO 0x300
#define XAPIC_ICR_HI 0x310
#define   ICR_DEST_SHIFT_XAPIC 24   /* in ICR_HI */
#define XAPIC_IRR 0x200             /* interrupt request, 256 bits as 8 registers 16 bytes apart (§11.8.4) */
#define   IRR_STEP 0x10
#define XAPIC_LVT_TIMER 0x320       /* LVT timer register (§11.5.1 Figure 11-8) */
#define   LVT_MASKED (1u << 16)
#define   LVT_TIMER_ONE_SHOT (0u << 17) /* timer mode bits 18:17 = 00 */
#define XAPIC_TIMER_INITIAL 0x380   /* initial count (§11.5.4): writing it starts the count */
#define XAPIC_TIMER_CURRENT 0x390   /* current count, read only */
#define XAPIC_TIMER_DIVIDE 0x3e0    /* divide configuration (§11.5.4 Figure 11-10), bits 3,1:0 */
#define   TIMER_DIVIDE_BY_16 0x3u
#define XAPIC_SPAN 0x1000

/* x2APIC MSRs (§11.12.1.2): 0x800 + offset / 16; the ICR is one 64-bit MSR. */
#define X2APIC_MSR(off) (MSR_X2APIC_BASE + ((off) >> 4))
#define   ICR_DEST_SHIFT_X2APIC 32

/* ICR fields (§11.6.1 Figure 11-12). */
#define ICR_DELIVERY_FIXED (0u << 8)
#define ICR_DELIVERY_NMI (4u << 8)
#define ICR_DELIVERY_INIT (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_SEND_PENDING (1u << 12)  /* xAPIC only */
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_TRIGGER_LEVEL (1u << 15)
/* No destination shorthand is ever used (§11.6.1 bits 19:18 stay 00): "all"
 * and "all excluding self" would reach CPUs that QuietBench did not start,
 * still parked in firmware code whose memory the kernel has reused. */

#define ICR_IDLE_MS 100              /* "send pending" clears within this (Linux waits 100 ms too) */

/* ---- Private Variables ---------------------------------------------------- */
static volatile uint8_t *xapic;
static bool x2;
static uint32_t last_esr;

/* ---- Private Functions ---------------------------------------------------- */
static uint32_t xapic_read(uint32_t off)
{
	return *(volatile uint32_t *)(xapic + off);
}

static void xapic_write(uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(xapic + off) = v;
}

/* A register in either mode: x2APIC MSRs are architectural once x2APIC is on. */
static uint32_t reg_read(uint32_t off)
{
	return x2 ? (uint32_t)rdmsr(X2APIC_MSR(off)) : xapic_read(off);
}

static void reg_write(uint32_t off, uint32_t v)
{
	if (x2)
		wrmsr(X2APIC_MSR(off), v);
	else
		xapic_write(off, v);
}

static bool icr_idle(void)
{
	if (x2)
		return true; /* x2APIC ICR writes are not pended (§11.12.9) */
	uint64_t deadline = spin_deadline_ms(ICR_IDLE_MS);
	while (xapic_read(XAPIC_ICR_LO) & ICR_SEND_PENDING) {
		if (tsc_read() >= deadline)
			return false;
		cpu_pause();
	}
	return true;
}

static bool send(uint32_t dest, uint32_t icr)
{
	if (!x2 && !xapic)
		return false; /* not set up yet (a fault during early start-up) */
	if (!icr_idle())
		return false;
	if (x2) {
		/* WRMSR to the x2APIC is not serialising: earlier stores (the
		 * mailbox the IPI announces) must be visible before it (Intel SDM
		 * vol. 3A §11.12.3; Linux weak_wrmsr_fence). */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(X2APIC_MSR(XAPIC_ICR_LO), (uint64_t)dest << ICR_DEST_SHIFT_X2APIC | icr);
		return true;
	}
	xapic_write(XAPIC_ICR_HI, dest << ICR_DEST_SHIFT_XAPIC);
	xapic_write(XAPIC_ICR_LO, icr);
	return icr_idle();
}

static void software_enable(void)
{
	if (x2)
		wrmsr(X2APIC_MSR(XAPIC_SVR), SVR_ENABLE | SVR_SPURIOUS_VECTOR);
	else
		xapic_write(XAPIC_SVR, SVR_ENABLE | SVR_SPURIOUS_VECTOR);
}

/* ---- Public Functions ----------------------------------------------------- */
bool apic_init_bsp(uint64_t madt_base, bool need_x2apic)
{
	struct cpuid_regs r;
	cpuid_raw(CPUID_LEAF_FEATURES, 0, &r);
	bool has_x2 = r.ecx & (1u << CPUID_1_ECX_X2APIC);
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	if (base & APIC_BASE_EXTD) {
		x2 = true;
	} else if (need_x2apic && has_x2) {
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN);
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
		x2 = true;
	} else {
		if (need_x2apic)
			console_error("apic", "APIC IDs above %u need x2APIC, which this CPU lacks",
				      APIC_XAPIC_MAX_ID);
		uint64_t phys = base & APIC_BASE_ADDR_MASK;
		if (madt_base && madt_base != phys)
			console_error("apic", "MADT says the local APIC is at 0x%llx, IA32_APIC_BASE says 0x%llx; using the MSR",
				      (unsigned long long)madt_base, (unsigned long long)phys);
		xapic = paging_map_mmio(phys, XAPIC_SPAN);
		if (!xapic) {
			console_error("apic", "cannot map the local APIC at 0x%llx", (unsigned long long)phys);
			return false;
		}
	}
	software_enable();
	return true;
}

void apic_init_ap(void)
{
	if (x2) {
		uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
		if (!(base & APIC_BASE_EXTD))
			wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
	}
	software_enable();
}

uint32_t apic_id(void)
{
	if (!x2 && !xapic)
		return 0; /* before apic_init_bsp: only the BSP runs */
	if (x2)
		return (uint32_t)rdmsr(X2APIC_MSR(XAPIC_ID));
	return xapic_read(XAPIC_ID) >> XAPIC_ID_SHIFT;
}

bool apic_is_x2(void)
{
	return x2;
}

const char *apic_mode_name(void)
{
	return x2 ? "x2apic" : "xapic";
}

bool apic_send_init(uint32_t dest)
{
	return send(dest, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL);
}

bool apic_send_init_deassert(uint32_t dest)
{
	if (x2)
		return true; /* not supported, nor needed, in x2APIC mode (§11.12.10.1) */
	return send(dest, ICR_DELIVERY_INIT | ICR_TRIGGER_LEVEL);
}

bool apic_send_sipi(uint32_t dest, uint8_t vector)
{
	if (x2)
		return send(dest, ICR_DELIVERY_STARTUP | vector);
	/* xAPIC: clear the ESR, send, and read what the send left there
	 * (Intel SDM vol. 3A §9.4.4.1; Linux wakeup_secondary_cpu_via_init). */
	xapic_write(XAPIC_ESR, 0);
	(void)xapic_read(XAPIC_ESR);
	bool ok = send(dest, ICR_DELIVERY_STARTUP | vector);
	xapic_write(XAPIC_ESR, 0);
	last_esr = xapic_read(XAPIC_ESR) & ESR_ERRORS_OF_SEND;
	return ok && !last_esr;
}

uint32_t apic_last_esr(void)
{
	return last_esr;
}

bool apic_send_nmi(uint32_t dest)
{
	return send(dest, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
}

bool apic_send_fixed(uint32_t dest, uint8_t vector)
{
	return send(dest, ICR_DELIVERY_FIXED | ICR_LEVEL_ASSERT | vector);
}

void apic_eoi(void)
{
	if (x2)
		wrmsr(X2APIC_MSR(XAPIC_EOI), 0);
	else if (xapic)
		xapic_write(XAPIC_EOI, 0);
}

bool apic_irr_has(uint8_t vector)
{
	if (!x2 && !xapic)
		return false;
	return reg_read(XAPIC_IRR + (uint32_t)(vector / 32) * IRR_STEP) & (1u << (vector % 32));
}

uint64_t apic_timer_hz(uint32_t ms)
{
	if ((!x2 && !xapic) || !tsc_hz())
		return 0;
	reg_write(XAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONE_SHOT);
	reg_write(XAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	uint64_t start = tsc_read();
	reg_write(XAPIC_TIMER_INITIAL, UINT32_MAX);
	uint64_t end = start + tsc_hz() * ms / 1000;
	while (tsc_read() < end)
		cpu_pause();
	uint32_t left = reg_read(XAPIC_TIMER_CURRENT);
	uint64_t took = tsc_read() - start;
	reg_write(XAPIC_TIMER_INITIAL, 0); /* stops it (§11.5.4) */
	if (!took || left == 0 || left == UINT32_MAX)
		return 0; /* it did not count, or ran out: no rate */
	return (uint64_t)(UINT32_MAX - left) * tsc_hz() / took;
}

void apic_timer_one_shot(uint8_t vector, uint32_t count)
{
	if (!x2 && !xapic)
		return;
	reg_write(XAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	reg_write(XAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | vector);
	reg_write(XAPIC_TIMER_INITIAL, count ? count : 1);
}

void apic_timer_stop(void)
{
	if (!x2 && !xapic)
		return;
	reg_write(XAPIC_TIMER_INITIAL, 0);
	reg_write(XAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONE_SHOT);
}
