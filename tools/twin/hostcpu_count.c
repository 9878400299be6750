/* hostcpu_count.c - the Linux twin's CPUs counted as the boot and done records give them (hostcpu.h's hostcpu_count): a pure function over the slots' states, apart from hostcpu.c's threads so that a unit test can call it. */
#include "hostcpu.h"
#include "report.h"

/* ---- Public Functions ----------------------------------------------------- */
void hostcpu_count(const struct hostcpu *h, uint32_t n_slots, uint32_t n_found, struct report_cpus *out)
{
	*out = (struct report_cpus){ .known = n_found > 0, .found = n_found };
	for (uint32_t i = 0; i < n_slots; i++) {
		switch (h[i].state) {
		case HOSTCPU_ONLINE:
			out->online++;
			break;
		case HOSTCPU_EXCLUDED: /* left out by cpus=: never started (the twin's parked) */
			out->parked++;
			break;
		case HOSTCPU_LOST:
			out->lost++;
			break;
		default: /* failed (no thread, not pinned, no check-in within the bound or after it), starting, or not yet started */
			out->not_started++;
			break;
		}
	}
	if (n_found > n_slots) /* in the affinity mask beyond QB_MAX_CPUS: never given a slot */
		out->not_started += n_found - n_slots;
}
