/* hostsys.h - the machine settings the Linux twin reads for its `state` record and, as root and when asked, changes for the run and puts back: the cpufreq boost switch (/sys/devices/system/cpu/cpufreq/boost, or intel_pstate/no_turbo: Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst) and NUMA balancing (/proc/sys/kernel/numa_balancing: Documentation/admin-guide/sysctl/kernel.rst). */
#ifndef QB_TWIN_HOSTSYS_H
#define QB_TWIN_HOSTSYS_H

#include <stdbool.h>
#include "instr.h"

/* Read and write these files instead of the system's (a unit test's), and
 * forget what was found and changed. */
void hostsys_files(const char *boost, const char *no_turbo, const char *numa);

/* What the run asks for: boost (turbo=: keep, off or on) and NUMA balancing
 * (numa_balancing=off turns it off). Before hostsys_apply. */
void hostsys_want(enum instr_setting boost, bool numa_off);

/* Read both settings and change what was asked. A change needs root; one
 * that cannot be made says why (hostsys_boost_status, hostsys_numa). */
void hostsys_apply(void);

/* Put back exactly what hostsys_apply changed, once: at the end, and from
 * the paths that end a run early (Ctrl-C, a crash: finish_now). Returns
 * true if something was put back. */
bool hostsys_restore(void);

/* The `state` record's "boost": "on", "off", "off (turned off for the
 * run)", "on (turned on for the run)" or "unknown: <why>", as now. */
const char *hostsys_boost(void);

/* Its control ("/sys/devices/system/cpu/cpufreq/boost"), or why there is none. */
const char *hostsys_boost_control(void);

/* What turbo= did: "kept", "off (turned off for the run)", "restored", or
 * "not changed: <why>". */
const char *hostsys_boost_status(void);

/* The `state` record's "numa_balancing": "off", "off (turned off for the
 * run)", "on: <what it can still touch>", "restored" or "unknown: <why>". */
const char *hostsys_numa(void);

#endif
