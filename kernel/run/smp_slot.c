/* smp_slot.c - which slot an AP that wakes up holds, so that one the BSP gave up on is counted late and not as a stray; see smp_slot.h. */
#include "smp_slot.h"

/* ---- Public Functions ----------------------------------------------------- */
enum smp_waker smp_slot_find(const struct percpu *pc, uint32_t n_slots, uint32_t apic_id, uint32_t *slot)
{
	enum smp_waker found = SMP_WAKER_STRAY;
	for (uint32_t i = 1; i < n_slots; i++) {
		if (pc[i].apic_id != apic_id)
			continue;
		uint32_t st = __atomic_load_n(&pc[i].state, __ATOMIC_ACQUIRE);
		if (st == CPU_STARTING) {
			*slot = i;
			return SMP_WAKER_STARTING;
		}
		if (st == CPU_FAILED)
			found = SMP_WAKER_LATE;
	}
	return found;
}

void smp_count(const struct percpu *pc, uint32_t n_slots, uint32_t n_found, struct report_cpus *out)
{
	*out = (struct report_cpus){ .known = n_found > 0, .found = n_found };
	uint32_t counted = 0;
	for (uint32_t i = 0; i < n_slots; i++) {
		switch (pc[i].state) {
		case CPU_ONLINE:
		case CPU_HALTED:
			out->online++;
			break;
		case CPU_PARKED:
			out->parked++;
			break;
		case CPU_LOST:
			out->lost++;
			break;
		case CPU_ABSENT:
			continue; /* not enabled: not found */
		default: /* failed, starting, excluded and not parked */
			out->not_started++;
			break;
		}
		counted++;
	}
	if (n_found > counted) /* found, but never given a slot */
		out->not_started += n_found - counted;
}
