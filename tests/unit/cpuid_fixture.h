/* cpuid_fixture.h - replays the CPUID of every logical CPU of a real machine
 * (tests/fixtures/cpuid/NAME.cpuid, written by import.py) into snapshots, as
 * cpuid_snap_take would have taken them on that machine. */
#ifndef QB_TESTS_CPUID_FIXTURE_H
#define QB_TESTS_CPUID_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"

#define CPUID_FIXTURE_DIR "tests/fixtures/cpuid"   /* QB_CPUID_REAL_DIR overrides it */

/* Loads DIR/name.cpuid (DIR from QB_CPUID_REAL_DIR or the default); false
 * when it is missing or malformed. Replaces the machine loaded before. */
bool cpuid_fixture_load(const char *name);

/* Logical CPUs of the loaded machine. */
uint32_t cpuid_fixture_cpus(void);

/* CPU cpu's snapshot: its leaves through cpuid_snap_fill, then, where
 * cpuid_snap_wants_node_msr, the MSR C001_100C a fixture line gives, as the
 * kernel's cpuid_snap_take reads it. */
void cpuid_fixture_snap(uint32_t cpu, struct cpuid_snap *s);

/* How many times the last cpuid_fixture_snap asked for leaf (any subleaf). */
uint32_t cpuid_fixture_asked(uint32_t leaf);

#endif
