/* hostmachine.c - topology and the boot, memory, cpu and cache records on Linux, field for field as kernel/start/machine.c (schema: docs/records.md); see hostmachine.h.
 *
 * What a process cannot know (ACPI tables, the APIC mode, the firmware's
 * revisions, the kernel's own memory) is null, never zero. The twin adds
 * platform, os_release, wbinvd, flush_method and flush_bytes to `boot`, and
 * os_cpu (Linux's CPU number) to `cpu`. */
#define _GNU_SOURCE
#include "hostmachine.h"
#include "topo_online.h"
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "console.h"
#include "evict.h"
#include "hostcpu.h"
#include "hostnuma.h"
#include "lib.h"
#include "report.h"
#include "report_machine.h"
#include "pmm.h"
#include "timer.h"
#include "tsc.h"

#ifndef QB_BUILD_ID
#define QB_BUILD_ID "unknown"
#endif

/* ---- Constants ------------------------------------------------------------ */
#define DMI_DIR "/sys/class/dmi/id/"
#define TEXT_LEN 128

/* ---- Private Variables ---------------------------------------------------- */

/* ---- Private Functions ---------------------------------------------------- */
/* The first line of a small sysfs file, or null in the record if there is none. */
static void rec_file(struct rec *r, const char *key, const char *path)
{
	char buf[TEXT_LEN];
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, sizeof(buf), f);
	if (f)
		fclose(f);
	if (!ok) {
		rec_null(r, key);
		return;
	}
	buf[strcspn(buf, "\n")] = 0;
	rec_str(r, key, buf);
}

static void rec_nulls(struct rec *r, const char *const *keys, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rec_null(r, keys[i]);
}

/* ---- Public Functions ----------------------------------------------------- */
static bool src_online(uint32_t c) { return hostcpu[c].state == HOSTCPU_ONLINE; }
static const struct cpuid_snap *src_snap(uint32_t c) { return &hostcpu[c].snap; }
static int32_t src_node(uint32_t c) { return hostcpu[c].node; }

void hostmachine_decode_topology(void)
{
	static const struct topo_online_src src = { src_online, src_snap, src_node };
	topo_online_decode(&src, hostcpu_slots());
}


void hostmachine_report_boot(const char *cmdline)
{
	static const char *const firmware[] = { "firmware_revision", "uefi_revision" };
	static const char *const kernel_only[] = { "kernel_bytes", "stack_bytes", "paging_setup_us", "handoff_paging_us" };
	static const char *const acpi[] = { "apic_mode" };
	static const char *const tables[] = { "acpi_revision", "acpi_oem", "acpi_root" };
	static const char *const console[] = { "serial", "serial_base", "exit_boot_services_tries" };
	const struct cpuid_snap *s = &hostcpu[0].snap;
	char vendor[CPUID_VENDOR_LEN + 1];
	struct utsname u;
	cpuid_snap_vendor_string(s, vendor);
	uint64_t ram = hostmem_meminfo("MemTotal");
	bool have_uname = uname(&u) == 0;

	struct rec *r = console_rec_open("boot");
	rec_str(r, "build", QB_BUILD_ID);
	rec_str(r, "platform", "linux");
	rec_str(r, "loader", "linux");
	rec_str(r, "os_release", have_uname ? u.release : 0);
	rec_file(r, "firmware_vendor", DMI_DIR "bios_vendor");
	rec_file(r, "bios_version", DMI_DIR "bios_version");
	rec_nulls(r, firmware, ARRAY_SIZE(firmware));
	report_boot_cpu(r, cmdline, s, ram);
	rec_nulls(r, kernel_only, ARRAY_SIZE(kernel_only));
	rec_u64(r, "ap_startup_us", hostcpu_startup_us());
	struct report_cpus cpus;
	hostcpu_counts(&cpus);
	report_cpu_counts(r, &cpus);                      /* found = online + parked + not started + lost */
	rec_nulls(r, acpi, ARRAY_SIZE(acpi));
	report_boot_topology(r, topo_online());
	rec_nulls(r, tables, ARRAY_SIZE(tables));
	rec_u64(r, "numa_nodes", hostnuma_nodes());
	rec_nulls(r, console, ARRAY_SIZE(console));
	rec_obj_begin(r, "framebuffer");
	rec_obj_end(r);
	rec_bool(r, "wbinvd", false);
	rec_str(r, "flush_method", "eviction-read");
	rec_u64(r, "flush_bytes", evict_bytes());
	rec_u64(r, "cpus_system_online", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	console_rec_emit(r);
	tsc_report_disagreement();                            /* not fatal, but visible */

	report_machine_text(s, hostcpu_online(), hostcpu_found(), hostcpu_startup_us(), ram, hostnuma_nodes());
	kprintf("linux: WBINVD is privileged; a flush is an eviction read of %llu MiB from every participating CPU\n",
		(unsigned long long)(evict_bytes() >> 20));
	kprintf("linux: a first read of fresh anonymous memory maps the shared zero page (with THP the huge one); "
		"pages are allocated and zeroed on the first write (hugetlbfs: on the first touch)\n");
}

void hostmachine_report_cpus(void)
{
	for (uint32_t c = 0; c < hostcpu_slots(); c++) {
		const struct hostcpu *h = &hostcpu[c];
		struct report_cpu rc = {
			.index = c, .apic_id = h->have_snap ? (int64_t)cpuid_snap_apic_id(&h->snap) : -1, .acpi_uid = -1,
			.os_cpu = h->os_cpu, .topo = topo_online_cpu(c), .node = h->node,
			.online = h->state == HOSTCPU_ONLINE, .state = hostcpu_state_name(h->state),
			.tsc_offset = h->tsc_offset, .tsc_offset_err = h->tsc_offset_err,
		};
		report_cpu(&rc);
	}
}

void hostmachine_report_caches(void)
{
	report_caches(topo_online(), topo_online_cpu_of_topo());
}

void hostmachine_report_memory(void)
{
	static const char *const map_only[] = { "map_entries", "map_fixups", "map_dropped", "page_table_bytes",
						"unmapped_ram_bytes", "phys_bits", "page_1g", "mapped_ram_bytes",
						"identity_pages_1g", "identity_pages_2m", "identity_pages_4k",
						"page_table_budget_bytes" };
	struct rec *r = console_rec_open("memory");
	rec_u64(r, "usable", hostmem_meminfo("MemTotal"));
	rec_nulls(r, map_only, ARRAY_SIZE(map_only));
	rec_u64(r, "free_bytes", pmm_free_bytes(PMM_ANY_NODE));
	rec_str(r, "source", "/proc/meminfo");
	rec_arr_begin(r, "nodes");
	for (uint32_t n = 0; n < hostnuma_nodes(); n++) {
		rec_obj_begin(r, 0);
		rec_u64(r, "node", n);
		rec_null(r, "domain");
		rec_u64(r, "free_bytes", pmm_free_bytes((int)n));
		rec_obj_end(r);
	}
	rec_arr_end(r);
	console_rec_emit(r);
}
