/* idle.c - MONITOR/MWAIT or HLT-and-IPI for CPUs that wait for work; see idle.h. */
#include "idle.h"
#include "apic.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "fmt.h"
#include "percpu.h"
#include "spinlock.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define CPUID_1_ECX_MONITOR (1u << 3)      /* Intel SDM vol. 2A CPUID leaf 01H: MONITOR/MWAIT */
#define CPUID_LEAF_MWAIT 5u                /* MONITOR/MWAIT leaf */
#define MWAIT_HINT_C1 0u                   /* EAX: C1, the shallowest, fastest to leave */
#define MWAIT_NO_EXTENSIONS 0u             /* ECX */
#define SLEEP_CALIBRATE_MS 2u              /* the APIC timer counted against the TSC this long */
#define SLEEP_PROOF_MS 10u                 /* a 1 ms one-shot must be in the IRR within this */
#define SLEEP_MAX_MS 1000u                 /* one HLT at most this long, so a count fits 32 bits */

/* ---- Private Variables ---------------------------------------------------- */
static enum idle_method method = IDLE_POLL;
static const char *why = "not chosen yet";
static volatile uint64_t strays;
static enum { SLEEP_UNTRIED, SLEEP_HLT, SLEEP_PAUSE } sleep_how;
static uint64_t timer_hz;
static char sleep_name[96] = "not used yet";

/* ---- Public Functions ----------------------------------------------------- */
void idle_init(enum idle_method want)
{
	struct cpuid_regs r;
	cpuid_raw(0, 0, &r);
	uint32_t max = r.eax;
	cpuid_raw(CPUID_LEAF_FEATURES, 0, &r);
	bool monitor = (r.ecx & CPUID_1_ECX_MONITOR) && max >= CPUID_LEAF_MWAIT;
	bool hyp = r.ecx & (1u << CPUID_1_ECX_HYPERVISOR);
	switch (want) {
	case IDLE_POLL:
		method = IDLE_POLL;
		why = "idle=poll";
		return;
	case IDLE_HLT:
		method = IDLE_HLT;
		why = "idle=hlt";
		return;
	case IDLE_MWAIT:
		method = monitor ? IDLE_MWAIT : IDLE_HLT;
		why = monitor ? "idle=mwait" : "idle=mwait, but CPUID.01H:ECX[3] MONITOR is 0: hlt";
		return;
	case IDLE_AUTO:
		break;
	}
	if (monitor && !hyp) {
		method = IDLE_MWAIT;
		why = "CPUID.01H:ECX[3] MONITOR";
	} else {
		method = IDLE_HLT;
		why = hyp ? "hypervisor: MWAIT may be emulated as a spin" : "no MONITOR/MWAIT";
	}
}

void idle_wait(const volatile uint64_t *word, uint64_t seen, const volatile uint32_t *stop)
{
	switch (method) {
	case IDLE_MWAIT:
		/* Arm the monitor, re-check, then sleep: a store between the two
		 * checks still ends the MWAIT at once (Intel SDM vol. 2B MWAIT). */
		__asm__ volatile("monitor" : : "a"(word), "c"(0), "d"(0) : "memory");
		if (*word == seen && !*stop)
			__asm__ volatile("mwait" : : "a"(MWAIT_HINT_C1), "c"(MWAIT_NO_EXTENSIONS) : "memory");
		break;
	case IDLE_HLT:
		/* STI's one-instruction shadow: an IPI sent after the check wakes
		 * the HLT rather than being taken before it. */
		if (*word == seen && !*stop)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		break;
	default:
		cpu_pause();
		break;
	}
}

/* CPUID.06H:EAX[2] ARAT: the local APIC timer keeps counting in deep
 * C-states. Without it, a HLT the firmware promotes to C1E or deeper may
 * stop the timer that was to end it (Intel SDM vol. 3A §11.5.4). */
static bool apic_timer_always_runs(void)
{
	struct cpuid_regs r;
	cpuid_raw(CPUID_LEAF_VENDOR, 0, &r);
	if (r.eax < CPUID_LEAF_POWER)
		return false;
	cpuid_raw(CPUID_LEAF_POWER, 0, &r);
	return r.eax & (1u << CPUID_6_EAX_ARAT);
}

/* Choose how idle_sleep_until rests, once: see idle.h. */
static void sleep_setup(void)
{
	const char *no = 0;
	if (method == IDLE_POLL)
		no = "idle=poll";
	else if (!apic_timer_always_runs())
		no = "CPUID.06H:EAX[2] ARAT is 0: the local APIC timer may stop while the CPU sleeps, and never wake it";
	else if (!tsc_hz())
		no = "the TSC frequency is unknown";
	else if (!(timer_hz = apic_timer_hz(SLEEP_CALIBRATE_MS)) || timer_hz < 1000)
		no = "the local APIC timer does not count";
	if (!no) {
		apic_timer_one_shot(IDLE_TIMER_VECTOR, (uint32_t)(timer_hz / 1000 + 1));
		uint64_t until = spin_deadline_ms(SLEEP_PROOF_MS);
		while (!apic_irr_has(IDLE_TIMER_VECTOR) && tsc_read() < until)
			cpu_pause();
		if (apic_irr_has(IDLE_TIMER_VECTOR))
			__asm__ volatile("sti; nop; cli" ::: "memory"); /* taken: idle_interrupt ends it */
		else
			no = "the local APIC timer's interrupt did not come within 10 ms";
		apic_timer_stop();
	}
	sleep_how = no ? SLEEP_PAUSE : SLEEP_HLT;
	if (no)
		fmt_snprintf(sleep_name, sizeof(sleep_name), "pause: %s", no);
	else
		fmt_snprintf(sleep_name, sizeof(sleep_name), "hlt, woken by the local APIC timer (%llu Hz)",
			     (unsigned long long)timer_hz);
}

void idle_sleep_until(uint64_t deadline)
{
	if (sleep_how == SLEEP_UNTRIED)
		sleep_setup();
	for (uint64_t now = tsc_read(); now < deadline; now = tsc_read()) {
		if (sleep_how != SLEEP_HLT) {
			cpu_pause();
			continue;
		}
		uint64_t left = deadline - now, cap = tsc_hz() / 1000 * SLEEP_MAX_MS;
		uint64_t count = (left < cap ? left : cap) * timer_hz / tsc_hz() + 1;
		apic_timer_one_shot(IDLE_TIMER_VECTOR, count > UINT32_MAX ? UINT32_MAX : (uint32_t)count);
		/* A timer that fires before the HLT leaves its vector pending:
		 * STI's shadow then lets it end the HLT at once. */
		__asm__ volatile("sti; hlt; cli" ::: "memory");
	}
	if (sleep_how == SLEEP_HLT)
		apic_timer_stop();
}

const char *idle_sleep_name(void)
{
	return sleep_name;
}

void idle_kick(uint32_t cpu)
{
	if (method == IDLE_HLT)
		apic_send_fixed(percpu[cpu].apic_id, IDLE_WAKE_VECTOR);
}

void idle_interrupt(unsigned vector)
{
	if (vector == IDLE_SPURIOUS_VECTOR) {
		__atomic_add_fetch(&strays, 1, __ATOMIC_RELAXED); /* spurious: no EOI (§11.9) */
		return;
	}
	if (vector != IDLE_WAKE_VECTOR && vector != IDLE_TIMER_VECTOR)
		__atomic_add_fetch(&strays, 1, __ATOMIC_RELAXED);
	apic_eoi();
}

const char *idle_method_name(void)
{
	switch (method) {
	case IDLE_MWAIT: return "mwait";
	case IDLE_HLT: return "hlt";
	default: return "poll";
	}
}

const char *idle_method_why(void)
{
	return why;
}

uint64_t idle_stray_interrupts(void)
{
	return strays;
}
