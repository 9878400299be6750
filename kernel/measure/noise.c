/* noise.c - noise sources from CPUID, per-repetition deltas and clean/flagged
 * statistics (Intel SDM vol. 3B §15.2 APERF/MPERF, §15.8 thermal monitoring,
 * vol. 4 tables 2-2 and the per-model tables for MSR_SMI_COUNT). */
#include "noise.h"
#include "lib.h"
#include "msr.h"

/* ---- Constants ------------------------------------------------------------- */

#define INTEL_FAMILY_6 6
#define THERM_LOG_OF(status) ((status) << 1)	/* each log bit follows its status bit */

/* ---- Private Variables ----------------------------------------------------- */

/*
 * Family 6 models with MSR_SMI_COUNT (34H). The SDM lists it in the tables
 * for Nehalem and every later Core and Xeon, for Silvermont and later Atom
 * cores and for Xeon Phi; there is no CPUID bit, so an unlisted model is
 * reported unavailable rather than risking a #GP on RDMSR.
 */
static const uint8_t intel_smi_models[] = {
	0x1A, 0x1E, 0x1F, 0x2E,			/* Nehalem */
	0x25, 0x2C, 0x2F,			/* Westmere */
	0x2A, 0x2D,				/* Sandy Bridge */
	0x3A, 0x3E,				/* Ivy Bridge */
	0x3C, 0x3F, 0x45, 0x46,			/* Haswell */
	0x3D, 0x47, 0x4F, 0x56,			/* Broadwell */
	0x4E, 0x5E, 0x55,			/* Skylake, Skylake-SP / Cascade Lake */
	0x8E, 0x9E, 0xA5, 0xA6,			/* Kaby / Coffee / Comet Lake */
	0x66,					/* Cannon Lake */
	0x7D, 0x7E, 0x6A, 0x6C, 0x9D,		/* Ice Lake */
	0x8C, 0x8D, 0xA7,			/* Tiger Lake, Rocket Lake */
	0x97, 0x9A, 0xBE, 0xB7, 0xBA, 0xBF,	/* Alder Lake, Raptor Lake */
	0x8F, 0xCF, 0xAD, 0xAE,			/* Sapphire / Emerald / Granite Rapids */
	0xAA, 0xAC, 0xBD, 0xC5, 0xC6,		/* Meteor, Lunar, Arrow Lake */
	0x37, 0x4A, 0x4D, 0x5A, 0x5D, 0x4C,	/* Silvermont, Airmont */
	0x5C, 0x5F, 0x7A,			/* Goldmont, Goldmont Plus */
	0x86, 0x96, 0x9C, 0xAF, 0xB6,		/* Tremont, Sierra Forest, Grand Ridge */
	0x57, 0x85,				/* Xeon Phi Knights Landing / Mill */
};

static const char *const flag_names[NOISE_FLAG_COUNT] = { "smi", "freq", "throttle", "tsc_backwards",
								     "context_switch", "migration", "interrupt", "fault" };

/* ---- Private Functions ----------------------------------------------------- */

static bool bit(uint32_t reg, unsigned n)
{
	return (reg >> n) & 1u;
}

static const char *smi_unavailable(const struct noise_caps *c)
{
	if (c->vendor != CPU_VENDOR_INTEL)
		return "no SMI counter on this vendor";
	if (c->family != INTEL_FAMILY_6)
		return "no SMI counter known for this family";
	for (size_t i = 0; i < ARRAY_SIZE(intel_smi_models); i++)
		if (intel_smi_models[i] == c->model)
			return NULL;
	return "model not in the MSR_SMI_COUNT list";
}

/* Throttle bits seen: log bits set now that were clear before, and status
 * bits set in either sample. */
static uint64_t throttle_bits(uint64_t before, uint64_t after, uint64_t status,
			      uint64_t log)
{
	return (after & log & ~before) | ((before | after) & status);
}

/* ---- Public Functions ------------------------------------------------------ */

struct noise_caps noise_detect(const struct cpuid_snap *s)
{
	struct noise_caps c;
	uint32_t eax6 = s->have_leaf6 ? s->leaf6.eax : 0;
	uint32_t ecx6 = s->have_leaf6 ? s->leaf6.ecx : 0;

	memset(&c, 0, sizeof(c));
	c.vendor = cpuid_snap_vendor(s);
	c.family = cpuid_snap_family(s);
	c.model = cpuid_snap_model(s);
	c.tsc = cpuid_snap_has(s, CPUID_FEAT_TSC);
	c.aperf = bit(ecx6, CPUID_6_ECX_APERFMPERF);
	c.smi_why = smi_unavailable(&c);
	c.smi = c.smi_why == NULL;
	c.therm = bit(eax6, CPUID_6_EAX_DTS);
	if (c.therm) {
		c.therm_status = THERM_STATUS_THERMAL | THERM_STATUS_PROCHOT |
				 THERM_STATUS_CRITICAL;
		if (bit(eax6, CPUID_6_EAX_PLN))
			c.therm_status |= THERM_STATUS_POWER_LIMIT;
		if (bit(eax6, CPUID_6_EAX_HWP))
			c.therm_status |= THERM_STATUS_CURRENT_LIMIT | THERM_STATUS_CROSS_DOMAIN;
		c.therm_log = THERM_LOG_OF(c.therm_status);
	}
	c.pkg_therm = bit(eax6, CPUID_6_EAX_PTM);
	if (c.pkg_therm) {
		c.pkg_status = THERM_STATUS_THERMAL | THERM_STATUS_PROCHOT |
			       THERM_STATUS_CRITICAL | THERM_STATUS_POWER_LIMIT;
		c.pkg_log = THERM_LOG_OF(c.pkg_status);
	}
	return c;
}

void noise_delta(const struct noise_caps *c, const struct noise_sample *before,
		 const struct noise_sample *after, uint64_t tsc_hz, double ref_mhz,
		 struct noise_rep *out)
{
	memset(out, 0, sizeof(*out));
	if (c->tsc) {
		out->tsc_backwards = after->tsc < before->tsc;
		out->tsc_ticks = out->tsc_backwards ? 0 : after->tsc - before->tsc;
		if (out->tsc_backwards)
			out->flags |= NOISE_FLAG_TSC_BACKWARDS;
	}
	if (c->aperf && tsc_hz) {
		uint64_t da = after->aperf - before->aperf;
		uint64_t dm = after->mperf - before->mperf;

		/* MPERF counts at the TSC rate while the CPU is in C0. */
		if (dm) {
			out->have_freq = true;
			out->freq_mhz = (double)da / (double)dm * (double)tsc_hz / 1e6;
			if (ref_mhz > 0) {
				out->freq_dev = (out->freq_mhz - ref_mhz) / ref_mhz;
				if (out->freq_dev > NOISE_FREQ_TOLERANCE ||
				    out->freq_dev < -NOISE_FREQ_TOLERANCE)
					out->flags |= NOISE_FLAG_FREQ;
			}
		}
	}
	if (c->smi) {
		out->have_smi = true;
		out->smis = (after->smi - before->smi) & SMI_COUNT_MASK;
		if (out->smis)
			out->flags |= NOISE_FLAG_SMI;
	}
	if (c->therm) {
		out->have_therm = true;
		out->therm_bits = throttle_bits(before->therm, after->therm,
						c->therm_status, c->therm_log);
	}
	if (c->pkg_therm) {
		out->have_pkg_therm = true;
		out->pkg_therm_bits = throttle_bits(before->pkg_therm, after->pkg_therm,
						    c->pkg_status, c->pkg_log);
	}
	out->throttled = out->therm_bits || out->pkg_therm_bits;
	if (out->throttled)
		out->flags |= NOISE_FLAG_THROTTLE;
	out->flagged = out->flags != 0;
}

bool noise_log_clear(const struct noise_caps *c, bool pkg, uint64_t v, uint64_t *write)
{
	uint64_t mine = pkg ? c->pkg_log : c->therm_log;
	uint64_t all = pkg ? PKG_THERM_STATUS_LOG_BITS : THERM_STATUS_LOG_BITS;
	if (!(pkg ? c->pkg_therm : c->therm) || !(v & mine))
		return false;
	*write = v & all & ~mine;
	return true;
}

const char *noise_flag_name(uint32_t flag)
{
	for (unsigned i = 0; i < NOISE_FLAG_COUNT; i++)
		if (flag == 1u << i)
			return flag_names[i];
	return "?";
}

void noise_stats(const uint64_t *samples, const bool *flagged, size_t n,
		 uint64_t *scratch, struct noise_summary *out)
{
	uint64_t *clean = scratch + n;	/* the second half holds the clean samples */
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (!flagged[i])
			clean[k++] = samples[i];
	out->n_all = n;
	out->n_clean = k;
	out->n_flagged = n - k;
	stats_compute(samples, n, scratch, &out->all);
	/* scratch[0..k) is free again: the clean values sit at scratch[n..n+k). */
	stats_compute(clean, k, scratch, &out->clean);
}
