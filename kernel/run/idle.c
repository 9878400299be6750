/* idle.c - MONITOR/MWAIT or HLT-and-IPI for CPUs that wait for work; see idle.h. */
#include "idle.h"
#include "apic.h"
#include "cpu.h"
#include "cpuid_snap.h"
#include "percpu.h"

/* ---- Constants ------------------------------------------------------------ */
#define CPUID_1_ECX_MONITOR (1u << 3)      /* Intel SDM vol. 2A CPUID leaf 01H: MONITOR/MWAIT */
#define CPUID_LEAF_MWAIT 5u                /* MONITOR/MWAIT leaf */
#define MWAIT_HINT_C1 0u                   /* EAX: C1, the shallowest, fastest to leave */
#define MWAIT_NO_EXTENSIONS 0u             /* ECX */

/* ---- Private Variables ---------------------------------------------------- */
static enum idle_method method = IDLE_POLL;
static const char *why = "not chosen yet";
static volatile uint64_t strays;

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
	if (vector != IDLE_WAKE_VECTOR)
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
