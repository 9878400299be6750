/* numa_fw.c - the bare-metal answers of numa_fw.h, from the SRAT, SLIT and HMAT that kernel/acpi parsed (ACPI 6.5 5.2.16, 5.2.17, 5.2.28). */
#include "numa_fw.h"
#include "acpi.h"
#include "lib.h"

/* ---- Private Variables ---------------------------------------------------- */
static const struct acpi_info *fw;     /* NULL until numa_fw_set: no description */

/* ---- Private Functions ---------------------------------------------------- */
/* The proximity domain of a dense node, or false when the SRAT has none such. */
static bool domain_of(uint32_t node, uint32_t *domain)
{
	if (!fw || !fw->srat.present || node >= fw->srat.n_nodes || node >= QB_MAX_NODES)
		return false;
	*domain = fw->srat.nodes[node].domain;
	return true;
}

/* The first of two HMAT data types that gives a value for the pair. */
static double claim(uint32_t initiator, uint32_t target, enum acpi_hmat_data first, enum acpi_hmat_data second,
		    const char **kind)
{
	uint32_t di, dt;
	double v;

	if (!fw || !domain_of(initiator, &di) || !domain_of(target, &dt))
		return -1;
	for (unsigned k = 0; k < 2; k++) {
		enum acpi_hmat_data type = k ? second : first;
		if (acpi_hmat_value(fw, di, dt, type, &v)) {
			if (kind)
				*kind = acpi_hmat_data_name((uint8_t)type);
			return v;
		}
	}
	return -1;
}

/* ---- Public Functions ----------------------------------------------------- */
void numa_fw_set(const struct acpi_info *ai)
{
	fw = ai;
}

const char *numa_fw_source(void)
{
	return fw && fw->srat.present ? "acpi" : 0;
}

struct numa_fw_node numa_fw_node(uint32_t node)
{
	struct numa_fw_node n = { 0 };
	if (!domain_of(node, &n.domain))
		return n;
	n.known = true;
	n.cpus = fw->srat.nodes[node].n_cpus;
	n.mem_bytes = fw->srat.nodes[node].mem_bytes;
	n.flags_known = true;
	for (uint32_t i = 0; i < fw->srat.n_mem && i < QB_MAX_SRAT_MEM; i++) {
		if (fw->srat.mem[i].node != node)
			continue;
		n.hot_pluggable |= fw->srat.mem[i].hot_pluggable;
		n.non_volatile |= fw->srat.mem[i].non_volatile;
	}
	return n;
}

int numa_fw_distance(uint32_t from, uint32_t to)
{
	uint32_t a, b;
	if (!domain_of(from, &a) || !domain_of(to, &b))
		return -1;
	return acpi_slit_distance(fw, a, b);
}

double numa_fw_latency_ns(uint32_t initiator, uint32_t target, const char **kind)
{
	return claim(initiator, target, ACPI_HMAT_READ_LATENCY, ACPI_HMAT_ACCESS_LATENCY, kind);
}

double numa_fw_bandwidth_mbs(uint32_t initiator, uint32_t target, const char **kind)
{
	return claim(initiator, target, ACPI_HMAT_READ_BANDWIDTH, ACPI_HMAT_ACCESS_BANDWIDTH, kind);
}

const char *numa_fw_claims_note(void)
{
	if (!fw || !fw->hmat.present)
		return "the firmware gives no HMAT";
	if (acpi_hmat_rule(&fw->hmat) == ACPI_HMAT_RULE_NONE)
		return "the HMAT is of neither revision 2 (ACPI 6.3 and later) nor 1 (ACPI 6.2): its units are not known, "
		       "its claims not used";
	if (!fw->srat.present)
		return "no SRAT: the HMAT's proximity domains name no node";
	return 0;
}
