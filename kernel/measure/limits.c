/* limits.c - the table of physical bounds results are checked against; see limits.h and docs/limits.md. */
#include "limits.h"
#include "fmt.h"

/* ---- Private Variables ---------------------------------------------------- */
static const struct limit table[LIMIT_COUNT] = {
	[LIMIT_ZERO_GBPS] = { "zero_gbps", "of zeroing on one core", 200.0, "GB/s", 1,
			      "a core stores at most 64 bytes per cycle past its L1 (one L1-L2 line per cycle: Intel "
			      "Golden Cove, AMD Zen 4/5 optimization manuals), 192 GB/s at 3 GHz; single-core fills "
			      "measure 20-60 GB/s" },
	[LIMIT_COPY_GBPS] = { "copy_gbps", "of copying on one core", 200.0, "GB/s", 1,
			      "a copy reads and writes every byte: bounded as zeroing, per byte moved" },
	[LIMIT_READ_GBPS] = { "read_gbps", "of reading per core", 1000.0, "GB/s", 1,
			      "three 64-byte loads per cycle at 5.7 GHz (Zen 5, Golden Cove) is 1.09 TB/s from L1; "
			      "a summed array larger than the L1 comes at 64 bytes per cycle or less" },
	[LIMIT_FAULT_NS] = { "fault_ns", "per page fault that maps and zeroes a page", 50.0, "ns", 0,
			     "exception entry and IRET take over 100 cycles, zeroing 4 KiB at 200 GB/s 20 ns; "
			     "Linux's minor faults measure 0.1-1 us" },
	[LIMIT_TRAP_NS] = { "trap_ns", "per exception round trip", 10.0, "ns", 0,
			    "a #PF's delivery and IRET cost over 60 cycles on any x86 core (Intel SDM vol. 3A "
			    "ch. 6; measured 150-1000 cycles), 10 ns at 6 GHz" },
	[LIMIT_INCREMENT_NS] = { "increment_ns", "per increment of one word in memory", 0.1, "ns", 0,
				 "each load-add-store waits for the last store (store forwarding, at least one "
				 "cycle): 0.16 ns at 6.2 GHz" },
	[LIMIT_LOCKED_NS] = { "locked_ns", "per locked read-modify-write", 0.5, "ns", 0,
			      "LOCK XADD takes at least 8 cycles (Agner Fog's instruction tables: Zen 4 8, Intel "
			      "18 and more): 1.3 ns at 6.2 GHz" },
	[LIMIT_LOAD_NS] = { "load_ns", "per dependent load", 0.5, "ns", 0,
			    "an L1 hit takes at least 4 cycles to use (Intel and AMD optimization manuals): 0.65 ns "
			    "at 6.2 GHz; a load from memory takes over 50 ns" },
	[LIMIT_TSC_READ_NS] = { "tsc_read_ns", "per iteration of the noise loop (a fenced TSC read)", 1.0, "ns", 0,
				"RDTSC alone takes at least 18 cycles and LFENCE waits for every earlier instruction "
				"(Agner Fog's instruction tables: 18-42 cycles on Zen and Intel cores), over 2.9 ns at "
				"6.2 GHz" },
};

/* ---- Private Functions ---------------------------------------------------- */
/* Decimals that show a value's size without noise (fmt has no %g). */
static int decimals(double v)
{
	double a = v < 0 ? -v : v;
	return a >= 100 ? 0 : a >= 1 ? 1 : a >= 0.01 ? 3 : 6;
}

/* ---- Public Functions ----------------------------------------------------- */
const struct limit *limits_get(enum limit_id id)
{
	if (id <= LIMIT_NONE || id >= LIMIT_COUNT)
		return 0;
	return &table[id];
}

const char *limits_check(enum limit_id id, double value, double cores, char *buf, size_t cap)
{
	const struct limit *l = limits_get(id);
	if (!l || !__builtin_isfinite(value) || !cap)
		return 0;
	double bound = l->is_max && cores > 1 ? l->bound * cores : l->bound;
	if (l->is_max ? value <= bound : value >= bound)
		return 0;
	fmt_snprintf(buf, cap, "implausible: %.*f %s %s; no machine does %s than %.*f %s (limit %s)", decimals(value),
		     value, l->unit, l->what, l->is_max ? "more" : "less", decimals(bound), bound, l->unit, l->name);
	return buf;
}
