/* report_machine.c - the machine's records and text lines for both platforms; see report_machine.h. */
#include "report_machine.h"
#include "console.h"
#include "fmt.h"
#include "lib.h"
#include "timer.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define NOTE_LEN 160
/* What a hypervisor means for every number of the run (issue 23). */
static const char virtual_means[] = "caches, SMT siblings and timers are virtual; these numbers are not bare metal's";

/* ---- Private Functions ---------------------------------------------------- */
static void rec_known(struct rec *r, const char *key, int64_t v)
{
	if (v >= 0)
		rec_u64(r, key, (uint64_t)v);
	else
		rec_null(r, key);
}

static void cpu_topology(struct rec *r, const struct topo_cpu *tc)
{
	if (!tc) {
		rec_null(r, "package");
		rec_null(r, "die");
		rec_null(r, "core");
		rec_null(r, "thread");
		return;
	}
	rec_u64(r, "package", tc->package);
	rec_u64(r, "die", tc->die);
	rec_u64(r, "core", tc->core);
	rec_u64(r, "thread", tc->thread);
	if (tc->core_type)
		rec_str(r, "core_type", tc->core_type == CPUID_CORE_TYPE_ATOM ? "atom" : "core");
}

/* ---- Public Functions ----------------------------------------------------- */
const char *report_hypervisor(const struct cpuid_snap *s, char sig[CPUID_HV_SIG_LEN + 1])
{
	return cpuid_snap_hv_vendor(s, sig) ? cpuid_hv_name(sig) : NULL;
}

void report_boot_cpu(struct rec *r, const char *cmdline, const struct cpuid_snap *s, uint64_t ram)
{
	char vendor[CPUID_VENDOR_LEN + 1], sig[CPUID_HV_SIG_LEN + 1], note[NOTE_LEN];
	const char *hv = report_hypervisor(s, sig);
	cpuid_snap_vendor_string(s, vendor);
	rec_str(r, "cmdline", cmdline);
	rec_str(r, "cpu_vendor", vendor);
	rec_str(r, "cpu_model", cpuid_snap_brand(s));
	rec_bool(r, "hypervisor", hv != NULL);
	if (sig[0])
		rec_str(r, "hypervisor_vendor", sig);
	else
		rec_null(r, "hypervisor_vendor");
	rec_str(r, "hypervisor_name", hv); /* null on bare metal */
	if (hv) {
		fmt_snprintf(note, sizeof(note), "virtual machine (%s): %s", hv, virtual_means);
		rec_str(r, "virtual_note", note);
	}
	tsc_report_fields(r);
	rec_u64(r, "memory_bytes", ram);
}

void report_boot_topology(struct rec *r, const struct topo *t)
{
	rec_str(r, "topology_source", t->source ? t->source : "none");
	if (t->note[0])
		rec_str(r, "topology_note", t->note);
}

/* What report_machine_text said, for the qb-lava: machine lines. */
static struct {
	bool known;
	char model[64];
	char vendor[CPUID_VENDOR_LEN + 1];
	char hypervisor[32];         /* the name as one word, "" on bare metal */
	uint32_t online, found, nodes;
	uint64_t ram;
} seen;

/* A word for a LAVA test case name: runs of spaces become one '_', anything
 * outside printable ASCII '?', no leading or trailing '_'. */
static void lava_word(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	bool gap = false;
	for (; *src && n + 1 < size; src++) {
		unsigned char c = (unsigned char)*src;
		if (c == ' ' || c == '\t') {
			gap = n > 0;
			continue;
		}
		if (gap && n + 2 < size)
			dst[n++] = '_';
		gap = false;
		dst[n++] = (c > ' ' && c < 0x7f) ? (char)c : '?';
	}
	dst[n] = 0;
}

void report_machine_text(const struct cpuid_snap *s, uint32_t online, uint32_t found, uint64_t startup_us,
			 uint64_t ram, uint32_t nodes)
{
	char vendor[CPUID_VENDOR_LEN + 1], sig[CPUID_HV_SIG_LEN + 1];
	const char *hv = report_hypervisor(s, sig);
	cpuid_snap_vendor_string(s, vendor);
	lava_word(seen.hypervisor, sizeof(seen.hypervisor), hv ? hv : "");
	lava_word(seen.model, sizeof(seen.model), cpuid_snap_brand(s)[0] ? cpuid_snap_brand(s) : "unknown CPU");
	lava_word(seen.vendor, sizeof(seen.vendor), vendor[0] ? vendor : "unknown");
	seen.online = online;
	seen.found = found;
	seen.nodes = nodes;
	seen.ram = ram;
	seen.known = true;
	kprintf("machine: %s (%s), %u of %u CPUs online in %llu us, %llu MiB RAM, %u NUMA node(s)\n",
		cpuid_snap_brand(s)[0] ? cpuid_snap_brand(s) : "unknown CPU", vendor, online, found,
		(unsigned long long)startup_us, (unsigned long long)(ram >> 20), nodes);
	if (hv)
		kprintf("virtual: %s (CPUID 0x40000000 \"%s\"): %s\n", hv, sig, virtual_means);
	kprintf("tsc: %llu Hz from %s (measured %llu Hz against %s), invariant %s, %s, empty interval %llu ticks\n",
		(unsigned long long)tsc_hz(), tsc_source(), (unsigned long long)tsc_measured_hz(), timer_name(),
		tsc_invariant() ? "yes" : "no", tsc_fence_name(), (unsigned long long)tsc_overhead());
}

void report_cpu(const struct report_cpu *c)
{
	struct rec *r = console_rec_open("cpu");
	rec_u64(r, "index", c->index);
	rec_known(r, "apic_id", c->apic_id);
	rec_known(r, "acpi_uid", c->acpi_uid);
	if (c->os_cpu >= 0)
		rec_u64(r, "os_cpu", (uint64_t)c->os_cpu);
	cpu_topology(r, c->topo);
	rec_known(r, "node", c->node);
	rec_bool(r, "online", c->online);
	rec_str(r, "state", c->state);
	if (c->online) {
		rec_i64(r, "tsc_offset", c->tsc_offset);
		rec_u64(r, "tsc_offset_err", c->tsc_offset_err);
	}
	console_rec_emit(r);
}

void report_caches(const struct topo *t, const uint32_t *cpu_of_topo)
{
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *k = &t->cache[i];
		struct rec *r = console_rec_open("cache");
		rec_u64(r, "level", k->level);
		rec_str(r, "type", topo_cache_type_name(k->type));
		rec_u64(r, "size", k->size);
		rec_u64(r, "line", k->line_size);
		rec_u64(r, "ways", k->ways);
		rec_u64(r, "sets", k->sets);
		rec_bool(r, "fully_associative", k->fully_associative);
		rec_bool(r, "inclusive", k->inclusive);
		rec_bool(r, "wbinvd_lower_all_sharers", k->wbinvd_lower_all_sharers);
		rec_str(r, "source", k->source);
		rec_bool(r, "sharing_assumed", k->sharing_assumed);
		rec_arr_begin(r, "shared_by");
		for (uint32_t n = 0; n < t->ncpu; n++)
			if (topo_cpuset_has(&k->shared_by, n))
				rec_u64(r, 0, cpu_of_topo[n]);
		rec_arr_end(r);
		console_rec_emit(r);
	}
	for (uint32_t lvl = 1; lvl <= 3; lvl++) {
		const struct topo_cache *k = t->ncpu ? topo_cpu_cache(t, 0, (uint8_t)lvl) : 0;
		if (k)
			kprintf("cache: L%u %s %llu KiB, %u-way, %u-byte lines, shared by %u CPU(s)\n", lvl,
				topo_cache_type_name(k->type), (unsigned long long)(k->size >> 10), k->ways,
				k->line_size, k->nshared);
	}
}

void report_lava_machine(void)
{
	if (!seen.known)
		return;
	uint64_t khz = (tsc_hz() + 500) / 1000;
	kprintf("qb-lava: machine.cpu.%s.%s pass %u cpus\n", seen.vendor, seen.model, seen.found);
	kprintf("qb-lava: machine.cpus-online pass %u cpus\n", seen.online);
	kprintf("qb-lava: machine.numa-nodes pass %u nodes\n", seen.nodes);
	kprintf("qb-lava: machine.memory pass %llu MiB\n", (unsigned long long)(seen.ram >> 20));
	if (khz) /* unknown: no case rather than a number that is not a frequency */
		kprintf("qb-lava: machine.tsc pass %llu.%03llu MHz\n", (unsigned long long)(khz / 1000),
			(unsigned long long)(khz % 1000));
	if (seen.hypervisor[0])
		kprintf("qb-lava: machine.hypervisor pass 1 %s\n", seen.hypervisor);
	else
		kprintf("qb-lava: machine.hypervisor pass 0 none\n");
}
