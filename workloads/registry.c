/* registry.c - the table of workloads, in the default order; see registry.h. */
#include "registry.h"

const struct workload *const wl_all[] = {
	&wl_selftest, &wl_counter, &wl_locality, &wl_first_touch, &wl_flush, &wl_noise,
};
const unsigned wl_count = sizeof(wl_all) / sizeof(wl_all[0]);
