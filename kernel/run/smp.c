/* smp.c - AP bring-up with INIT-SIPI-SIPI and bounded waits (Intel SDM vol. 3A §9.4.4, §11.6; Linux do_boot_cpu); see smp.h. */
#include "smp.h"
#include "tsc_sync.h"
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "idt.h"
#include "idle.h"
#include "lib.h"
#include "msr.h"
#include "paging.h"
#include "percpu.h"
#include "pmm.h"
#include "run.h"
#include "smp_slot.h"
#include "trampoline.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define AP_STACK_SIZE (32 * 1024)
#define IST_AREA (3 * IST_STACK_SIZE)
#define INIT_DELAY_US 10000       /* MP spec B.4: 10 ms after INIT */
#define INIT_DELAY_MODERN_US 10   /* parts that need no INIT settling time */
#define CPUID_1_EAX_FAMILY CPUID_MASK(11, 8)      /* Intel SDM vol. 2A, CPUID leaf 1 */
#define CPUID_1_EAX_EXT_FAMILY CPUID_MASK(27, 20)
#define FAMILY_EXTENDED 0xf                          /* family field value that adds the extended one */
#define INTEL_MODERN_FAMILY 6
#define AMD_MODERN_FAMILY 0x17
#define SIPI_DELAY_US 200         /* 200 us between the two SIPIs */
#define PAGE 4096u
#define BELOW_1M 0x100000ull
#define BELOW_4G 0x100000000ull
#define TSC_SYNC_TIMEOUT_MS 1000
#define PARK_TIMEOUT_MS 100

/* What an AP takes from the BSP's control registers: a whitelist, never a
 * copy. Firmware may leave features on (CET, PKE, SMAP, UMIP, VMXE, PCIDE)
 * that would #GP in the trampoline or change how the kernel runs. LA57 comes
 * with the page tables it needs (kernel/mm/paging.c). */
#define AP_CR4_KEEP (CR4_PAE | CR4_PGE | CR4_MCE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_OSXSAVE | \
		     CR4_FSGSBASE | CR4_LA57)
#define AP_CR0_KEEP (CR0_MP | CR0_ET | CR0_NE | CR0_WP)

/* The park IDT's gates name the kernel's code selector; a CPU parked from the
 * trampoline still runs on the trampoline's GDT, where it must be the same. */
_Static_assert(GDT_KCODE_SEL == TRAMP_CODE64_SEL, "park IDT selector in both GDTs");

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t stack_tops[QB_MAX_CPUS];   /* by arrival slot, read by trampoline.S */
static uint64_t ist_base[QB_MAX_CPUS];     /* by dense CPU number */
static uint32_t n_slots, n_found, n_online;
static uint64_t startup_us;
static uint64_t stack_bytes;
static volatile uint32_t stray_aps;        /* CPUs that woke up but were not expected */
static volatile uint32_t late_aps;         /* CPUs that checked in after the BSP gave up on them */
static uint32_t n_parked;                  /* CPUs left out of the run, halted in our code */
/* The parked CPUs' one stack: only interrupt frames are ever written to it,
 * and nothing reads them back (kernel/arch/isr.S isr_park). */
static uint8_t park_stack[PAGE] __attribute__((aligned(16)));
static enum smp_debug debug_mode;
static uint32_t debug_cpu;                 /* the AP that misbehaves on purpose */
static uint64_t debug_until;               /* TSC: ap-late checks in after this */
#define DAWDLE_MAX_MS 10000                /* ap-dawdle: the longest it waits for the first job */
#define LATE_MARGIN_MS 3000                /* ap-late: this long past the bound, beyond any scheduling delay of the BSP under emulation */

/* ---- Private Functions ---------------------------------------------------- */
static void ap_entry(uint64_t slot)
{
	apic_init_ap();
	uint32_t i = 0;
	enum smp_waker w = smp_slot_find(percpu, n_slots, apic_id(), &i);
	if (w != SMP_WAKER_STARTING) { /* late: already reported as not started; a stray: reported below */
		__atomic_add_fetch(w == SMP_WAKER_LATE ? &late_aps : &stray_aps, 1, __ATOMIC_RELAXED);
		idt_park_here();
	}
	if ((debug_mode == SMP_DEBUG_AP_SILENT || debug_mode == SMP_DEBUG_AP_LATE) && i == debug_cpu) {
		/* Misbehave on purpose: never check in, or only after the BSP gave up. */
		while (debug_mode == SMP_DEBUG_AP_SILENT || tsc_read() < debug_until)
			cpu_pause();
	}
	percpu_install(i);
	gdt_load(i, ist_base[i]);
	idt_load();
	if (tsc_have_rdtscp)
		wrmsr(MSR_IA32_TSC_AUX, i);
	cpuid_snap_take(&percpu[i].snap);
	tsc_init_ap(&percpu[i].snap); /* RDTSC ordered here as on the BSP (AMD: DE_CFG) */
	percpu[i].stack_top = stack_tops[slot];
	percpu[i].checkin_tsc = tsc_read();
	/* Read before checking in: once we are online the BSP may post a job at
	 * any moment, and the loop must not take that job's number as seen. */
	uint64_t seen = __atomic_load_n(&percpu[i].job_seq, __ATOMIC_ACQUIRE);
	uint32_t expected = CPU_STARTING;
	if (!__atomic_compare_exchange_n(&percpu[i].state, &expected, CPU_ONLINE, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&late_aps, 1, __ATOMIC_RELAXED);
		idt_park_here(); /* the BSP gave up on us: stay out of the run */
	}
	if (debug_mode == SMP_DEBUG_AP_DAWDLE && i == debug_cpu) {
		/* Stay away from the mailbox until the first job is in it (bounded). */
		uint64_t until = tsc_deadline_ms(DAWDLE_MAX_MS);
		while (__atomic_load_n(&percpu[i].job_seq, __ATOMIC_ACQUIRE) == seen && tsc_read() < until)
			cpu_pause();
	}
	run_ap_loop(seen);
}

/* Linux (smp_quirk_init_udelay) drops the MP spec's 10 ms INIT delay on
 * Intel family 6 and later, on AMD Zen (family 17h) and later, and under a
 * hypervisor; so do we, as it dominates the start-up time. */
static uint64_t init_delay_us(const struct cpuid_snap *s)
{
	uint32_t eax = s->leaf1.eax;
	uint32_t family = CPUID_FIELD(eax, CPUID_1_EAX_FAMILY);
	if (family == FAMILY_EXTENDED)
		family += CPUID_FIELD(eax, CPUID_1_EAX_EXT_FAMILY);
	enum cpu_vendor v = cpuid_snap_vendor(s);
	if (cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR) ||
	    (v == CPU_VENDOR_INTEL && family >= INTEL_MODERN_FAMILY) ||
	    (cpu_vendor_is_amd(v) && family >= AMD_MODERN_FAMILY))
		return INIT_DELAY_MODERN_US;
	return INIT_DELAY_US;
}

/* Copy the trampoline to its low page and fill the handoff block. */
static bool prepare_trampoline(uint64_t tp)
{
	uint64_t size = (uint64_t)(__ap_tramp_end - __ap_tramp_start);
	if (size > PAGE || tp == 0 || tp >= BELOW_1M || (tp & (PAGE - 1))) {
		console_error("smp", "trampoline of %llu bytes cannot go at 0x%llx",
			      (unsigned long long)size, (unsigned long long)tp);
		return false;
	}
	if (paging_cr3() >= BELOW_4G) {
		console_error("smp", "page tables above 4 GiB: APs cannot load CR3 in real mode");
		return false;
	}
	memcpy((void *)(uintptr_t)tp, __ap_tramp_start, size);
	struct trampoline_handoff *h = (void *)(uintptr_t)(tp + TRAMP_HANDOFF);
	h->gdt_limit = (uint16_t)(ap_tramp_gdt_end - ap_tramp_gdt - 1);
	h->gdt_base = (uint32_t)(tp + (uint64_t)(ap_tramp_gdt - __ap_tramp_start));
	h->cr3 = (uint32_t)paging_cr3();
	h->cr4 = (read_cr4() & AP_CR4_KEEP) | CR4_PAE;
	h->efer = (rdmsr(MSR_IA32_EFER) & (EFER_SCE | EFER_NXE)) | EFER_LME;
	h->cr0 = (read_cr0() & AP_CR0_KEEP) | CR0_PE | CR0_PG;
	h->park = 0;
	h->parked = 0;
	h->entry = (uint64_t)(uintptr_t)ap_entry;
	h->stacks = (uint64_t)(uintptr_t)stack_tops;
	h->next_slot = 0;
	h->far64_off = (uint32_t)(tp + (uint64_t)(ap_tramp_long - __ap_tramp_start));
	h->far64_sel = TRAMP_CODE64_SEL;
	h->xcr0 = (read_cr4() & CR4_OSXSAVE) ? read_xcr0() : 0;
	return true;
}

/* INIT-SIPI-SIPI to every slot in the given state, each by its APIC ID. */
static void wake(uint32_t state, uint8_t vector)
{
	for (uint32_t i = 1; i < n_slots; i++)
		if (percpu[i].state == state && !apic_send_init(percpu[i].apic_id))
			console_error("smp", "INIT to APIC ID %u was not accepted", percpu[i].apic_id);
	for (uint32_t i = 1; i < n_slots; i++)
		if (percpu[i].state == state)
			apic_send_init_deassert(percpu[i].apic_id);
	tsc_delay_us(init_delay_us(&percpu[0].snap));
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 1; i < n_slots; i++) {
			if (percpu[i].state != state || apic_send_sipi(percpu[i].apic_id, vector))
				continue;
			if (apic_last_esr())
				console_error("smp", "SIPI to APIC ID %u: ESR 0x%x", percpu[i].apic_id,
					      apic_last_esr());
			else
				console_error("smp", "SIPI to APIC ID %u was not accepted", percpu[i].apic_id);
		}
		tsc_delay_us(SIPI_DELAY_US);
	}
}

static bool alloc_ist(uint32_t i)
{
	uint64_t p = pmm_alloc(IST_AREA / PAGE, percpu[i].node, PAGE, 0, PMM_KERNEL);
	if (!p)
		p = pmm_alloc(IST_AREA / PAGE, PMM_ANY_NODE, PAGE, 0, PMM_KERNEL);
	ist_base[i] = p;
	if (p)
		stack_bytes += IST_AREA;
	return p != 0;
}

static void cpu_slot(uint32_t i, const struct acpi_cpu *c, const struct acpi_info *ai)
{
	percpu[i].self = &percpu[i];
	percpu[i].index = i;
	percpu[i].apic_id = c->apic_id;
	percpu[i].acpi_uid = c->uid;
	int node = acpi_node_of_apic(ai, c->apic_id);
	percpu[i].node = node < 0 ? 0 : node;
	percpu[i].state = CPU_ABSENT;
}

/* ---- Public Functions ----------------------------------------------------- */
void smp_init(const struct boot_info *bi, const struct acpi_info *ai, uint32_t max_cpus,
	      uint64_t timeout_ms)
{
	uint32_t bsp_id = apic_id();
	struct acpi_cpu bsp = { bsp_id, 0, true, false, false };
	bool bsp_listed = false;

	for (uint32_t k = 0; k < ai->madt.n_cpus; k++) {
		if (ai->madt.cpus[k].apic_id == bsp_id) {
			bsp = ai->madt.cpus[k];
			bsp_listed = true;
		}
	}
	n_found = ai->madt.present ? ai->madt.n_enabled : 1;
	if (!bsp_listed) {
		console_error("smp", "the BSP (APIC ID %u) is not in the MADT", bsp_id);
		n_found++;
	}
	cpu_slot(0, &bsp, ai);
	percpu[0].state = CPU_ONLINE;
	n_slots = 1;

	/* Enabled APs first (they get the low dense numbers), then the rest. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < ai->madt.n_cpus; k++) {
			const struct acpi_cpu *c = &ai->madt.cpus[k];
			if (c->apic_id == bsp_id || c->enabled != (pass == 0))
				continue;
			if (n_slots >= QB_MAX_CPUS)
				break;
			cpu_slot(n_slots++, c, ai);
		}
	}

	/* Who runs: the BSP and the first cpus=-1 enabled APs that get their
	 * stacks. Every other enabled CPU is parked (README, "Faults and limits"). */
	uint32_t to_start = 0, to_park = 0;
	for (uint32_t i = 1; i < n_slots; i++) {
		const struct acpi_cpu *c = 0;
		for (uint32_t k = 0; k < ai->madt.n_cpus; k++)
			if (ai->madt.cpus[k].apic_id == percpu[i].apic_id)
				c = &ai->madt.cpus[k];
		if (!c || !c->enabled)
			continue;
		percpu[i].state = CPU_EXCLUDED; /* parked unless it gets to run */
		if (max_cpus && 1 + to_start >= max_cpus) {
			to_park++; /* left out by cpus= */
			continue;
		}
		if (!alloc_ist(i)) {
			console_error("smp", "no memory for cpu %u's exception stacks", i);
			to_park++;
			continue;
		}
		uint64_t st = pmm_alloc(AP_STACK_SIZE / PAGE, PMM_ANY_NODE, PAGE, 0, PMM_KERNEL);
		if (!st) {
			console_error("smp", "no memory for cpu %u's stack", i);
			to_park++;
			continue;
		}
		stack_bytes += AP_STACK_SIZE;
		stack_tops[to_start] = st + AP_STACK_SIZE;
		percpu[i].state = CPU_STARTING;
		to_start++;
	}
	n_online = 1;
	if (to_start + to_park == 0)
		return;
	if (!prepare_trampoline(bi->trampoline_phys)) {
		for (uint32_t i = 1; i < n_slots; i++)
			if (percpu[i].state == CPU_STARTING)
				percpu[i].state = CPU_FAILED;
		return;
	}
	uint8_t vector = (uint8_t)(bi->trampoline_phys >> 12);
	struct trampoline_handoff *h = (void *)(uintptr_t)(bi->trampoline_phys + TRAMP_HANDOFF);

	/* The CPUs that run: started, then each waited for until the bound. */
	uint64_t t0 = tsc_read();
	for (uint32_t i = 1; i < n_slots; i++)
		if (percpu[i].state == CPU_STARTING)
			debug_cpu = i; /* the last one started */
	debug_until = tsc_deadline_ms(timeout_ms + LATE_MARGIN_MS);
	wake(CPU_STARTING, vector);
	uint64_t deadline = t0 + (tsc_deadline_ms(timeout_ms) - tsc_read());
	uint64_t last = t0;
	for (uint32_t i = 1; i < n_slots; i++) {
		if (percpu[i].state != CPU_STARTING && percpu[i].state != CPU_ONLINE)
			continue;
		while (__atomic_load_n(&percpu[i].state, __ATOMIC_ACQUIRE) == CPU_STARTING &&
		       tsc_read() < deadline)
			cpu_pause();
		uint32_t expected = CPU_STARTING;
		if (__atomic_compare_exchange_n(&percpu[i].state, &expected, CPU_FAILED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			struct rec *r = console_rec_open("error");
			rec_str(r, "what", "cpu did not start");
			rec_u64(r, "cpu", i);
			rec_u64(r, "apic_id", percpu[i].apic_id);
			rec_u64(r, "timeout_ms", timeout_ms);
			console_rec_emit(r);
			kprintf("error: cpu %u (APIC ID %u) did not check in within %llu ms; left out\n",
				i, percpu[i].apic_id, (unsigned long long)timeout_ms);
			continue;
		}
		if (percpu[i].state == CPU_ONLINE) {
			n_online++;
			last = MAX(last, percpu[i].checkin_tsc);
		}
	}
	startup_us = tsc_to_us(last - t0);

	/* From here every AP that reaches the trampoline parks: the ones left
	 * out, and any that was given up on above and arrives late. */
	uint16_t lim;
	uint64_t base;
	idt_park_ptr(&lim, &base);
	h->park_idt_limit = lim;
	h->park_idt_base = base;
	h->park_stack = (uint64_t)(uintptr_t)(park_stack + sizeof(park_stack));
	__atomic_store_n(&h->park, 1, __ATOMIC_RELEASE);
	if (to_park) {
		wake(CPU_EXCLUDED, vector);
		uint64_t park_deadline = tsc_deadline_ms(timeout_ms);
		while (__atomic_load_n(&h->parked, __ATOMIC_ACQUIRE) < to_park && tsc_read() < park_deadline)
			cpu_pause();
		n_parked = __atomic_load_n(&h->parked, __ATOMIC_ACQUIRE);
		for (uint32_t i = 1; i < n_slots; i++)
			if (percpu[i].state == CPU_EXCLUDED)
				percpu[i].state = CPU_PARKED;
		if (n_parked < to_park) {
			struct rec *r = console_rec_open("error");
			rec_str(r, "what", "cpus did not park");
			rec_u64(r, "started", to_park);
			rec_u64(r, "parked", n_parked);
			rec_u64(r, "timeout_ms", timeout_ms);
			console_rec_emit(r);
		}
	}
	if (stray_aps)
		console_error("smp", "%u CPUs woke up that were not started", stray_aps);
	if (late_aps)
		kprintf("smp: %u CPU(s) checked in after the start bound: parked, left out of the run\n", late_aps);
}

void smp_set_debug(enum smp_debug d)
{
	debug_mode = d;
}

uint32_t smp_cpus_found(void) { return n_found; }
uint32_t smp_cpus_online(void)
{
	/* Those still online: a CPU lost during the run no longer counts. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < n_slots; i++)
		n += percpu[i].state == CPU_ONLINE || percpu[i].state == CPU_HALTED;
	return n_slots ? n : n_online;
}

uint32_t smp_cpus_parked(void)
{
	return n_parked;
}

void smp_cpu_counts(struct report_cpus *c)
{
	smp_count(percpu, n_slots, n_found, c);
}

uint32_t smp_stop_others(void)
{
	uint32_t me = this_cpu()->index, n = 0;
	for (uint32_t i = 0; i < n_slots; i++) {
		if (i == me || percpu[i].state != CPU_ONLINE)
			continue;
		if (apic_send_nmi(percpu[i].apic_id))
			n++;
	}
	return n;
}

uint32_t smp_cpus_lost(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < n_slots; i++)
		n += percpu[i].state == CPU_LOST;
	return n;
}
uint64_t smp_startup_us(void) { return startup_us; }
uint32_t smp_cpu_slots(void) { return n_slots; }
uint64_t smp_stack_bytes(void) { return stack_bytes; }

void smp_measure_tsc_offsets(void)
{
	for (uint32_t i = 1; i < n_slots; i++) {
		if (percpu[i].state != CPU_ONLINE)
			continue;
		percpu[i].tsc_offset = 0;
		/* Each ping has its own bound; the run gets the default one, so that a
		 * host that descheduled the vCPU for a while does not lose a CPU. */
		int64_t off;
		uint64_t err;
		if (tsc_sync_measure(i, TSC_SYNC_TIMEOUT_MS * TSC_SYNC_ROUNDS, run_default_timeout_ms, &off, &err)) {
			percpu[i].tsc_offset = off;
			percpu[i].tsc_offset_err = err;
		}
	}
}

void smp_park_aps(void)
{
	for (uint32_t i = 1; i < n_slots; i++)
		if (percpu[i].state == CPU_ONLINE) {
			percpu[i].stop = 1;
			idle_kick(i);
		}
	uint64_t deadline = tsc_deadline_ms(PARK_TIMEOUT_MS);
	for (uint32_t i = 1; i < n_slots; i++)
		while (percpu[i].state == CPU_ONLINE && tsc_read() < deadline)
			cpu_pause();
}
