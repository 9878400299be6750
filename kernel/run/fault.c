/* fault.c - exception reports and the stop-everything path (Intel SDM vol. 3A §6.15); see fault.h. */
#include "fault.h"
#include "console.h"
#include "cpu.h"
#include "extable.h"
#include "finish.h"
#include "idle.h"
#include "fmt.h"
#include "lib.h"
#include "percpu.h"
#include "serial.h"
#include "smp.h"

/* ---- Constants ------------------------------------------------------------ */
#define VEC_NMI 2
#define VEC_GENERAL_PROTECTION 13
#define VEC_PAGE_FAULT 14

static const char *const exception_names[IDT_EXCEPTIONS] = {
	"divide error", "debug", "nmi", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault", "coprocessor overrun",
	"invalid tss", "segment not present", "stack fault", "general protection",
	"page fault", "reserved 15", "x87 floating point", "alignment check", "machine check",
	"simd floating point", "virtualization", "control protection", "reserved 22",
	"reserved 23", "reserved 24", "reserved 25", "reserved 26", "reserved 27",
	"hypervisor injection", "vmm communication", "security", "reserved 31",
};

/* ---- Private Variables ---------------------------------------------------- */
static fault_hook_fn hooks[IDT_EXCEPTIONS];
static volatile int32_t panic_owner = -1;
static unsigned long n_faults;
static unsigned long n_fixups;   /* #GPs resumed at an exception-table fixup */

/* ---- Private Functions ---------------------------------------------------- */
/* Become the one CPU that reports and ends the run; any other CPU that gets
 * here, or later receives our NMI, just stops. The others are stopped only
 * after the error record is out (stop_others): if stopping them goes wrong,
 * the reason is already on the console. */
static void become_owner(void)
{
	int32_t me = (int32_t)this_cpu()->index;
	int32_t expected = -1;
	if (!__atomic_compare_exchange_n(&panic_owner, &expected, me, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) && expected != me)
		cpu_halt_forever();
	console_panic_mode();
}

/* Stop the CPUs QuietBench started, one NMI each (kernel/run/smp.c). */
static void stop_others(void)
{
	smp_stop_others();
}

/* A fault while reporting a fault: say the least possible, straight to the UART. */
static void __attribute__((noreturn)) nested_fault(struct fault_frame *f)
{
	char buf[160];
	int n = fmt_snprintf(buf, sizeof(buf), "\r\nfatal: nested exception %llu at rip 0x%llx on cpu %u\r\n",
			     (unsigned long long)f->vector, (unsigned long long)f->rip, this_cpu()->index);
	serial_write(buf, (unsigned long)(n > 0 ? MIN((size_t)n, sizeof(buf) - 1) : 0));
	finish_now(false);
}

/* ---- Public Functions ----------------------------------------------------- */
void fault_set_hook(unsigned vector, fault_hook_fn fn)
{
	if (vector < IDT_EXCEPTIONS)
		hooks[vector] = fn;
}

unsigned long fault_count(void)
{
	return n_faults;
}

unsigned long fault_fixups(void)
{
	return n_fixups;
}

void fault_dispatch(struct fault_frame *f)
{
	struct percpu *me = this_cpu();
	if (f->vector >= IDT_EXCEPTIONS) {
		idle_interrupt((unsigned)f->vector); /* a wake-up IPI, spurious or stray */
		return;
	}
	unsigned vec = (unsigned)f->vector;

	if (vec == VEC_GENERAL_PROTECTION) {
		/* A listed instruction (an MSR that may not exist) resumes at its
		 * fixup, which reports the error to its caller. */
		uintptr_t fix = extable_find(f->rip);
		if (fix) {
			__atomic_add_fetch(&n_fixups, 1, __ATOMIC_RELAXED);
			f->rip = fix;
			return;
		}
	}
	n_faults++;
	if (vec == VEC_NMI && panic_owner >= 0 && panic_owner != (int32_t)me->index)
		cpu_halt_forever(); /* another CPU is ending the run */
	if (hooks[vec] && hooks[vec](f))
		return;
	if (++me->fault_depth > 1)
		nested_fault(f);
	if (vec == VEC_NMI && panic_owner < 0) {
		/* Hardware NMIs happen (watchdogs, memory errors): report, carry on. */
		struct rec *r = console_rec_open("error");
		rec_str(r, "what", "unexpected nmi");
		rec_u64(r, "cpu", me->index);
		rec_hex(r, "rip", f->rip);
		console_rec_emit(r);
		me->fault_depth--;
		return;
	}

	become_owner();
	uint64_t cr2 = read_cr2();
	kprintf("\nfatal: %s (vector %u, error code 0x%llx) on cpu %u at rip 0x%llx, cr2 0x%llx\n",
		exception_names[vec], vec, (unsigned long long)f->error_code, me->index,
		(unsigned long long)f->rip, (unsigned long long)cr2);
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "exception");
	rec_str(r, "name", exception_names[vec]);
	rec_u64(r, "vector", vec);
	rec_hex(r, "error_code", f->error_code);
	rec_hex(r, "rip", f->rip);
	rec_hex(r, "cr2", cr2);
	rec_hex(r, "rsp", f->rsp);
	rec_u64(r, "cpu", me->index);
	rec_u64(r, "apic_id", me->apic_id);
	console_rec_emit(r);
	stop_others();
	finish_mark_failed("exception");
	finish_now(false);
}

void panic(const char *where, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	become_owner();
	kprintf("\npanic: %s: %s (cpu %u)\n", where, why, this_cpu()->index);
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "panic");
	rec_str(r, "where", where);
	rec_str(r, "detail", why);
	rec_u64(r, "cpu", this_cpu()->index);
	console_rec_emit(r);
	stop_others();
	finish_mark_failed("panic");
	finish_now(false);
}
