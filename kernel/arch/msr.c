/* msr.c - RDMSR and WRMSR that survive #GP through the exception table (Intel SDM vol. 2B RDMSR/WRMSR: #GP(0) for a reserved or unimplemented MSR); see msr.h. */
#include "msr.h"
#include "extable.h"
#include "fmt.h"
#include "lib.h"
#include "spinlock.h"

/* ---- Constants ------------------------------------------------------------ */
#define MAX_FAULTED 32           /* distinct MSRs remembered; later ones share a reason */

/* ---- Private Variables ---------------------------------------------------- */
static struct spinlock lock = SPINLOCK_INIT;
static uint32_t n_faulted;
static struct {
	uint32_t msr;
	char reason[MSR_REASON_LEN];
} faulted[MAX_FAULTED];
static const char overflow_reason[] = "unavailable: #GP on an MSR";

/* ---- Private Functions ---------------------------------------------------- */
/* Index of msr in faulted[], or -1. Called with the lock held. */
static int find(uint32_t msr)
{
	for (uint32_t i = 0; i < n_faulted && i < MAX_FAULTED; i++)
		if (faulted[i].msr == msr)
			return (int)i;
	return -1;
}

/* Remember that msr faulted. */
static void note(uint32_t msr)
{
	if (!spin_lock_ms(&lock, SPIN_LOCK_MS, -1))
		return;
	int i = find(msr);
	if (i < 0 && n_faulted < MAX_FAULTED) {
		i = (int)n_faulted;
		faulted[i].msr = msr;
		fmt_snprintf(faulted[i].reason, MSR_REASON_LEN, "unavailable: #GP on MSR 0x%x", msr);
		n_faulted++;
	} else if (i < 0) {
		n_faulted++; /* counted, not kept */
	}
	spin_unlock(&lock);
}

/* ---- Public Functions ----------------------------------------------------- */
int msr_read_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo, hi;
	int err = MSR_OK;
	/* 1: the access; 2: where both paths meet; 3: the fixup, out of line. */
	__asm__ volatile("1:\trdmsr\n"
			 "2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3:\tmovl %[gp], %[err]\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "xorl %%edx, %%edx\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t"
			 EXTABLE_ENTRY("1b", "3b")
			 : [err] "+r"(err), "=a"(lo), "=d"(hi)
			 : "c"(msr), [gp] "i"(MSR_GP)
			 : "memory");
	*val = (uint64_t)hi << 32 | lo;
	if (err)
		note(msr);
	return err;
}

int msr_write_safe(uint32_t msr, uint64_t val)
{
	int err = MSR_OK;
	__asm__ volatile("1:\twrmsr\n"
			 "2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3:\tmovl %[gp], %[err]\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t"
			 EXTABLE_ENTRY("1b", "3b")
			 : [err] "+r"(err)
			 : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)), [gp] "i"(MSR_GP)
			 : "memory");
	if (err)
		note(msr);
	return err;
}

const char *msr_gp_reason(uint32_t msr)
{
	const char *why = overflow_reason;
	if (!spin_lock_ms(&lock, SPIN_LOCK_MS, -1))
		return why;
	int i = find(msr);
	if (i >= 0)
		why = faulted[i].reason;
	spin_unlock(&lock);
	return why;
}

uint32_t msr_faulted(uint32_t *out, uint32_t cap)
{
	uint32_t n = __atomic_load_n(&n_faulted, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n && i < cap && i < MAX_FAULTED; i++)
		out[i] = faulted[i].msr;
	return n;
}
