/* machine.c - topology decoding and the boot, cpu, cache and memory records (schema: docs/records.md); see machine.h. */
#include "machine.h"
#include "topo_online.h"
#include "memtype.h"
#include "apic.h"
#include "console.h"
#include "fbcon.h" /* fbcon hook */
#include "lib.h"
#include "report.h"
#include "report_machine.h"
#include "fmt.h"
#include "paging.h"
#include "percpu.h"
#include "pmm.h"
#include "serial.h"
#include "serial_setup.h"
#include "smp.h"
#include "spmem.h"
#include "timer.h"
#include "tsc.h"

#ifndef QB_BUILD_ID
#define QB_BUILD_ID "unknown"
#endif

/* ---- Constants ------------------------------------------------------------ */
#define DUMP_MAX_TABLE 16384   /* bytes of one table dumped (hex doubles it) */
#define HEADER_GIB_FROM (64ull << 30) /* the screen's header gives RAM in GiB from here on */

/* ---- Private Variables ---------------------------------------------------- */

/* ---- Public Functions ----------------------------------------------------- */
static bool src_online(uint32_t c) { return percpu[c].state == CPU_ONLINE; }
static const struct cpuid_snap *src_snap(uint32_t c) { return &percpu[c].snap; }
static int32_t src_node(uint32_t c) { return percpu[c].node; }

void machine_decode_topology(const struct acpi_info *ai)
{
	static const struct topo_online_src src = { src_online, src_snap, src_node };
	(void)ai;
	topo_online_decode(&src, smp_cpu_slots());
}


uint64_t machine_stack_bytes(const struct boot_info *bi)
{
	return bi->stack_size + smp_stack_bytes();
}

uint64_t machine_kernel_bytes(const struct boot_info *bi)
{
	return bi->loader_bytes - bi->stack_size + pmm_used_bytes(PMM_KERNEL) - smp_stack_bytes();
}

/* A time in microseconds, or null when the TSC's frequency is unknown (not 0). */
static void rec_us(struct rec *r, const char *key, uint64_t ticks)
{
	if (tsc_hz())
		rec_u64(r, key, tsc_to_us(ticks));
	else
		rec_null(r, key);
}

/* "L1d 48K x8, L2 1.25M x8, L3 30M x1": each data or unified level's size
 * per instance and how many instances, for the screen's header. */
static void cache_line(char *buf, size_t cap)
{
	const struct topo *t = topo_online();
	size_t len = 0;
	buf[0] = '\0';
	for (uint8_t level = 1; level <= 4; level++) {
		uint64_t size = 0;
		uint32_t n = 0;
		for (uint32_t i = 0; i < t->ncaches; i++) {
			const struct topo_cache *k = &t->cache[i];
			if (k->level != level || k->type == TOPO_CACHE_INSTRUCTION)
				continue;
			size = k->size;
			n++;
		}
		if (!n || len + 1 >= cap)
			continue;
		char sz[16];
		if (size >= (1ull << 20) && !(size & ((1ull << 20) - 1)))
			fmt_snprintf(sz, sizeof(sz), "%lluM", (unsigned long long)(size >> 20));
		else if (size >= (1ull << 20))
			fmt_snprintf(sz, sizeof(sz), "%.2fM", (double)size / (1 << 20));
		else
			fmt_snprintf(sz, sizeof(sz), "%lluK", (unsigned long long)(size >> 10));
		int k = fmt_snprintf(buf + len, cap - len, "%sL%u%s %s x%u", len ? ", " : "", level,
				     level == 1 ? "d" : "", sz, n);
		len += k > 0 ? (size_t)k : 0;
	}
	if (!len)
		fmt_snprintf(buf, cap, "caches unknown");
}

void machine_report_boot(const struct boot_info *bi, const struct acpi_info *ai, const char *cmdline)
{
	const struct cpuid_snap *s = &percpu[0].snap;
	char vendor[CPUID_VENDOR_LEN + 1];
	cpuid_snap_vendor_string(s, vendor);
	uint64_t ram = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == BOOT_MEM_USABLE || bi->mmap[i].type == BOOT_MEM_LOADER)
			ram += bi->mmap[i].length;

	char uefi_rev[16];
	fmt_snprintf(uefi_rev, sizeof(uefi_rev), "%u.%u", bi->uefi_revision >> 16,
		     bi->uefi_revision & 0xffff);

	struct rec *r = console_rec_open("boot");
	rec_str(r, "build", QB_BUILD_ID);
	rec_str(r, "loader", bi->loader == BOOT_LOADER_UEFI ? "uefi" : "multiboot2");
	rec_str(r, "firmware_vendor", bi->fw_vendor);
	rec_hex(r, "firmware_revision", bi->fw_revision);
	rec_str(r, "uefi_revision", uefi_rev);
	report_boot_cpu(r, cmdline, s, ram);
	rec_u64(r, "kernel_bytes", machine_kernel_bytes(bi));
	rec_u64(r, "stack_bytes", machine_stack_bytes(bi));
	rec_u64(r, "ap_startup_us", smp_startup_us());
	rec_us(r, "paging_setup_us", paging_setup_ticks());      /* the kernel's own tables */
	rec_us(r, "handoff_paging_us", bi->handoff_pt_ticks);    /* the boot path's */
	rec_hex(r, "ap_trampoline", bi->trampoline_phys); /* where parked CPUs halt */
	struct report_cpus cpus;
	smp_cpu_counts(&cpus);
	report_cpu_counts(r, &cpus);                      /* found = online + parked + not started + lost */
	rec_str(r, "apic_mode", apic_mode_name());
	rec_u64(r, "paging_levels", (uint64_t)paging_levels());
	report_boot_topology(r, topo_online());
	rec_u64(r, "acpi_revision", ai->rsdp.revision);
	rec_str(r, "acpi_oem", ai->rsdp.oem_id);
	rec_str(r, "acpi_root", ai->rsdp.used_xsdt ? "xsdt" : "rsdt");
	rec_u64(r, "numa_nodes", ai->srat.present ? ai->srat.n_nodes : 1);
	const struct serial_port *sp = serial_current();
	if (sp) {
		rec_str(r, "serial", sp->mmio ? "mmio" : "io");
		rec_hex(r, "serial_base", sp->base);
		if (sp->baud)
			rec_u64(r, "serial_baud", sp->baud);
		else
			rec_str(r, "serial_baud", "as the firmware set it");
	} else {
		rec_str(r, "serial", "none");
	}
	rec_str(r, "console_source", serial_setup_source());
	rec_u64(r, "exit_boot_services_tries", bi->exit_tries);
	rec_obj_begin(r, "framebuffer");
	if (bi->fb.base) {
		rec_hex(r, "base", bi->fb.base);
		rec_u64(r, "width", bi->fb.width);
		rec_u64(r, "height", bi->fb.height);
		rec_u64(r, "pitch", bi->fb.pitch);
		rec_u64(r, "format", bi->fb.format);
	}
	rec_obj_end(r);
	console_rec_emit(r);
	tsc_report_disagreement();                            /* not fatal, but visible */

	report_machine_text(s, smp_cpus_online(), smp_cpus_found(), smp_startup_us(), ram,
			    ai->srat.present ? ai->srat.n_nodes : 1);
	if (smp_cpus_parked())
		kprintf("machine: %u CPU(s) left out of the run are parked (halted, interrupts off)\n",
			smp_cpus_parked());

	/* fbcon hook: the machine in the screen's header, what a photo of the
	 * screen must show: CPU, TSC, caches, hypervisor, CPUs, memory, firmware. */
	char h1[FBCON_LINE_LEN], h2[FBCON_LINE_LEN], caches[FBCON_LINE_LEN], virt[FBCON_LINE_LEN];
	char sig[CPUID_HV_SIG_LEN + 1];
	const char *hv = report_hypervisor(s, sig);
	cache_line(caches, sizeof(caches));
	virt[0] = '\0';
	if (hv) /* first on the line: a photo of the screen must say the numbers are a guest's */
		fmt_snprintf(virt, sizeof(virt), "virtual machine (%s)  |  ", hv);
	fmt_snprintf(h1, sizeof(h1), "QuietBench %s  |  %s  |  TSC %.3f GHz (%s)  |  %s", QB_BUILD_ID,
		     cpuid_snap_brand(s)[0] ? cpuid_snap_brand(s) : vendor, (double)tsc_hz() / 1e9, tsc_source(),
		     caches);
	char ram_text[64], size[32];
	if (ram >= HEADER_GIB_FROM) /* terabytes in GiB: the line must keep its firmware field */
		fmt_snprintf(ram_text, sizeof(ram_text), "%llu GiB RAM", (unsigned long long)(ram >> 30));
	else
		fmt_snprintf(ram_text, sizeof(ram_text), "%llu MiB RAM", (unsigned long long)(ram >> 20));
	if (paging_unmapped_ram()) /* a photo of the screen must say that RAM was left out */
		fmt_snprintf(ram_text + strlen(ram_text), sizeof(ram_text) - strlen(ram_text), " (%s NOT MAPPED)",
			     paging_unmapped_text(size, sizeof(size)));
	fmt_snprintf(h2, sizeof(h2), "%s%u of %u CPUs online  |  %s  |  %u NUMA node(s)  |  %s rev 0x%x, UEFI %s",
		     virt, smp_cpus_online(), smp_cpus_found(), ram_text,
		     ai->srat.present ? ai->srat.n_nodes : 1, bi->fw_vendor, bi->fw_revision, uefi_rev);
	fbcon_set_header(h1, h2);
}

static const char *state_name(uint32_t st)
{
	switch (st) {
	case CPU_ABSENT: return "not-present";
	case CPU_STARTING: return "starting";
	case CPU_ONLINE: return "online";
	case CPU_FAILED: return "failed";
	case CPU_LOST: return "lost";
	case CPU_HALTED: return "halted";
	case CPU_EXCLUDED: return "excluded";
	case CPU_PARKED: return "parked";
	}
	return "unknown";
}

void machine_report_cpus(void)
{
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		const struct percpu *p = &percpu[c];
		struct report_cpu rc = {
			.index = c, .apic_id = p->apic_id, .acpi_uid = p->acpi_uid, .os_cpu = -1,
			.topo = topo_online_cpu(c), .node = p->node, .online = p->state == CPU_ONLINE,
			.state = state_name(p->state), .tsc_offset = p->tsc_offset, .tsc_offset_err = p->tsc_offset_err,
		};
		report_cpu(&rc);
	}
}

void machine_report_caches(void)
{
	report_caches(topo_online(), topo_online_cpu_of_topo());
}

void machine_report_memory(const struct boot_info *bi, const struct acpi_info *ai)
{
	struct rec *r = console_rec_open("memory");
	for (uint32_t t = BOOT_MEM_USABLE; t < BOOT_MEM_TYPE_COUNT; t++) {
		uint64_t total = 0;
		for (uint32_t i = 0; i < bi->mmap_count; i++)
			if (bi->mmap[i].type == t)
				total += bi->mmap[i].length;
		if (total)
			rec_u64(r, boot_mem_type_name(t), total);
	}
	memtype_report(r);
	rec_u64(r, "map_entries", bi->mmap_count);
	rec_u64(r, "map_fixups", bi->mmap_fixups);
	rec_u64(r, "map_dropped", bi->mmap_dropped);
	rec_u64(r, "free_bytes", pmm_free_bytes(PMM_ANY_NODE));
	rec_u64(r, "page_table_bytes", paging_table_bytes());
	rec_u64(r, "unmapped_ram_bytes", paging_unmapped_ram());
	paging_report(r);
	rec_arr_begin(r, "nodes");
	uint32_t nn = ai->srat.present ? ai->srat.n_nodes : 1;
	for (uint32_t n = 0; n < nn; n++) {
		rec_obj_begin(r, 0);
		rec_u64(r, "node", n);
		rec_u64(r, "domain", ai->srat.present ? ai->srat.nodes[n].domain : 0);
		rec_u64(r, "free_bytes", pmm_free_bytes((int)n));
		rec_u64(r, "specific_purpose_bytes", spmem_bytes((int)n));
		rec_obj_end(r);
	}
	rec_arr_end(r);
	console_rec_emit(r);
	paging_say(tsc_to_us(paging_setup_ticks()));
	if (bi->mmap_dropped)
		console_error("memory map", "%u ranges did not fit and were dropped", bi->mmap_dropped);
}

static void hex_bytes(struct rec *r, const uint8_t *p, uint32_t n)
{
	static char hex[2 * DUMP_MAX_TABLE + 1];
	static const char digits[] = "0123456789abcdef";
	for (uint32_t i = 0; i < n; i++) {
		hex[2 * i] = digits[p[i] >> 4];
		hex[2 * i + 1] = digits[p[i] & 15];
	}
	hex[2 * n] = 0;
	rec_str(r, "hex", hex);
}

static void dump_one(const char *sig, uint64_t phys, uint32_t len)
{
	const uint8_t *p = acpi_map(phys, len);
	if (!p || len > DUMP_MAX_TABLE) {
		console_error("dump", "table %.4s at 0x%llx (%u bytes) not dumped", sig,
			      (unsigned long long)phys, len);
		return;
	}
	struct rec *r = console_rec_open("acpi_table");
	rec_strn(r, "sig", sig, strlen(sig));
	rec_hex(r, "phys", phys);
	rec_u64(r, "len", len);
	hex_bytes(r, p, len);
	console_rec_emit(r);
}

void machine_dump_acpi(const struct acpi_info *ai)
{
	if (!ai->rsdp.phys)
		return;
	dump_one("RSD PTR ", ai->rsdp.phys, ai->rsdp.revision >= 2 ? 36 : 20);
	if (ai->rsdp.root_phys)
		dump_one(ai->rsdp.used_xsdt ? "XSDT" : "RSDT", ai->rsdp.root_phys, ai->rsdp.root_len);
	for (uint32_t i = 0; i < ai->n_tables; i++) {
		const struct acpi_table_ref *t = &ai->tables[i];
		if (t->length >= ACPI_HEADER_LEN)
			dump_one(t->sig, t->phys, t->length);
	}
}
