/* test_msr.c - host tests of the exception table and the MSR accessors that survive #GP (kernel/arch/extable.c, kernel/arch/msr.c).
 *
 * The real instructions run: in ring 3, RDMSR and WRMSR raise #GP, which
 * Linux delivers as SIGSEGV. The handler below does what kernel/run/fault.c does
 * for a #GP: look the faulting RIP up in the exception table and resume at
 * its fixup. Any other SIGSEGV is a failure and ends the test program. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>

#include "check.h"
#include "extable.h"
#include "msr.h"

static volatile unsigned long fixups, unlisted;

/* kernel/run/fault.c's #GP path, on a ucontext. */
static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	ucontext_t *uc = ctx;
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t fix = extable_find(rip);
	if (!fix) {
		unlisted++;
		static const char msg[] = "test_msr: SIGSEGV at an unlisted instruction\n";
		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(2);
	}
	fixups++;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)fix;
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, 0)) {
		perror("sigaction");
		exit(2);
	}
}

TEST(table_lists_both_accessors)
{
	/* One entry per access instruction: msr_read_safe and msr_write_safe. */
	CHECK_EQ_U(extable_entries(), 2);
	/* Addresses that are not listed instructions have no fixup. */
	CHECK(extable_find(0) == 0);
	CHECK(extable_find((uintptr_t)&msr_read_safe) == 0);
	CHECK(extable_find((uintptr_t)&install) == 0);
}

TEST(read_faults_and_resumes)
{
	uint64_t v = 0x1234;
	unsigned long before = fixups;
	CHECK(msr_read_safe(MSR_IA32_MPERF, &v) == MSR_GP);
	CHECK_EQ_U(fixups, before + 1);
	CHECK_EQ_U(v, 0); /* never a stale or partial value */
	CHECK_STR(msr_gp_reason(MSR_IA32_MPERF), "unavailable: #GP on MSR 0xe7");
}

TEST(write_faults_and_resumes)
{
	unsigned long before = fixups;
	CHECK(msr_write_safe(MSR_IA32_MISC_ENABLE, 1ull << 38) == MSR_GP);
	CHECK_EQ_U(fixups, before + 1);
	CHECK_STR(msr_gp_reason(MSR_IA32_MISC_ENABLE), "unavailable: #GP on MSR 0x1a0");
}

TEST(registers_survive_the_fixup)
{
	/* The compiler keeps values in registers across the call: the fixup
	 * must return with every register but the outputs as they were. */
	volatile uint64_t sum = 0;
	uint64_t a = 0x1111, b = 0x2222, c = 0x3333, v;
	for (int i = 0; i < 16; i++) {
		int err = msr_read_safe(MSR_AMD_HWCR + (uint32_t)(i & 1), &v);
		sum += a + b + c + (uint64_t)(err == MSR_GP) + v;
		a++, b++, c++;
	}
	CHECK_EQ_U(sum, 16 * (0x1111 + 0x2222 + 0x3333 + 1) + 3 * (15 * 16 / 2));
}

TEST(faulted_list_is_distinct_and_ordered)
{
	uint32_t got[8];
	uint64_t v;
	msr_read_safe(MSR_IA32_MPERF, &v); /* again: not listed twice */
	uint32_t n = msr_faulted(got, 8);
	CHECK_EQ_U(n, 4);
	CHECK_EQ_U(got[0], MSR_IA32_MPERF);
	CHECK_EQ_U(got[1], MSR_IA32_MISC_ENABLE);
	CHECK_EQ_U(got[2], MSR_AMD_HWCR);
	CHECK_EQ_U(got[3], MSR_AMD_HWCR + 1);
	CHECK_EQ_U(msr_faulted(got, 1), 4); /* cap respected, total returned */
	CHECK_EQ_U(got[0], MSR_IA32_MPERF);
}

TEST(reason_overflow_is_generic)
{
	uint64_t v;
	for (uint32_t m = 0x4000; m < 0x4000 + 40; m++)
		CHECK(msr_read_safe(m, &v) == MSR_GP);
	uint32_t got[64];
	CHECK_EQ_U(msr_faulted(got, 64), 44); /* every one counted ... */
	CHECK_EQ_U(got[31], 0x4000 + 27);     /* ... the first 32 kept */
	CHECK_STR(msr_gp_reason(0x4000), "unavailable: #GP on MSR 0x4000");
	CHECK_STR(msr_gp_reason(0x4000 + 39), "unavailable: #GP on an MSR");
	CHECK_STR(msr_gp_reason(0x12345678), "unavailable: #GP on an MSR"); /* never faulted */
	CHECK_EQ_U(unlisted, 0);
}

int main(void)
{
	install();
	RUN(table_lists_both_accessors);
	RUN(read_faults_and_resumes);
	RUN(write_faults_and_resumes);
	RUN(registers_survive_the_fixup);
	RUN(faulted_list_is_distinct_and_ordered);
	RUN(reason_overflow_is_generic);
	return check_summary("msr");
}
