/* cpu.h - inline wrappers for the x86-64 instructions the kernel uses (Intel SDM vol. 2).
 *
 * Layer 2: arch. The x86 CPU itself: instructions, MSRs (with #GP caught),
 * GDT, IDT, per-CPU data, spin locks, CPUID snapshots, the AP trampoline.
 * Includes lib only; prints nothing and waits for nothing (that needs
 * console and the TSC, above it). Every layer from console up may include
 * it; lib must not. */
#ifndef QB_KERNEL_CPU_H
#define QB_KERNEL_CPU_H

#include <stdint.h>

/* Control-register bits, Intel SDM vol. 3A §2.5. */
#define CR0_PE (1ull << 0)
#define CR0_MP (1ull << 1)
#define CR0_EM (1ull << 2)
#define CR0_TS (1ull << 3)
#define CR0_ET (1ull << 4)
#define CR0_NE (1ull << 5)
#define CR0_WP (1ull << 16)
#define CR0_NW (1ull << 29)
#define CR0_CD (1ull << 30)
#define CR0_PG (1ull << 31)

#define CR4_PAE (1ull << 5)
#define CR4_MCE (1ull << 6)
#define CR4_PGE (1ull << 7)
#define CR4_OSFXSR (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CR4_LA57 (1ull << 12)
#define CR4_FSGSBASE (1ull << 16)
#define CR4_PCIDE (1ull << 17)
#define CR4_OSXSAVE (1ull << 18)

/* RFLAGS.IF, Intel SDM vol. 1 §3.4.3 */
#define RFLAGS_IF (1ull << 9)

/* RDTSC, unserialised; user space may use it too (kernel/measure/tsc.h has the serialised forms and the clock). */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* PAUSE is unprivileged: the host tests run it too. */
static inline void cpu_pause(void) { __asm__ volatile("pause" ::: "memory"); }

#ifndef QB_HOST_TEST
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

#define DEFINE_CR(n)                                                          \
	static inline uint64_t read_cr##n(void)                               \
	{                                                                     \
		uint64_t v;                                                   \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));             \
		return v;                                                     \
	}                                                                     \
	static inline void write_cr##n(uint64_t v)                            \
	{                                                                     \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");    \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline uint64_t read_xcr0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpu_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void cpu_wbinvd(void) { __asm__ volatile("wbinvd" ::: "memory"); }
static inline void cpu_mfence(void) { __asm__ volatile("mfence" ::: "memory"); }
static inline void cpu_invlpg(uint64_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

/* Stop this CPU for good: interrupts off, halt forever (NMIs return to hlt). */
static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}
#else
/* On the host, a unit test that builds a file using these defines them as
 * its model of the CPU (tests/unit/test_paging.c). */
uint64_t rdmsr(uint32_t msr);
void wrmsr(uint32_t msr, uint64_t v);
uint64_t read_cr0(void);
void write_cr0(uint64_t v);
uint64_t read_cr3(void);
void write_cr3(uint64_t v);
uint64_t read_cr4(void);
void cpu_invlpg(uint64_t va);
#endif /* QB_HOST_TEST */

#endif
