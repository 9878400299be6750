/* sizes.h - a working set named by what it is on this machine: L1, L2, LLC or DRAM, from the decoded caches (kernel/measure/topo.h), or by its size when it is none of them.
 *
 * A workload picks a size for a role (the gist's 64 Ki ints for the L2, half
 * the LLC, 4x past it); whether the bytes really sit in that level depends
 * on the machine and the profile (the quick profile shrinks them), and
 * whether a pass finds them there on its start (locality.h). A size
 * carries a role's name only when it holds, so that two runs pair on what
 * they measured, never on a label. */
#ifndef QB_WORKLOADS_SIZES_H
#define QB_WORKLOADS_SIZES_H

#include <stddef.h>
#include <stdint.h>
#include "topo.h"

enum size_role { SIZE_ROLE_NONE, SIZE_ROLE_L1, SIZE_ROLE_L2, SIZE_ROLE_LLC, SIZE_ROLE_DRAM };

#define SIZE_DRAM_LLC_MULTIPLE 4   /* DRAM: at least this many times the largest LLC */
#define SIZE_NAME_LEN 16

/* The smallest (or largest) data or unified cache of a level on t; 0 if none. */
uint64_t size_level_bytes(const struct topo *t, uint8_t level, bool largest);

/*
 * What bytes is on topology t, from its smallest data (or unified) cache of
 * each level: L1 if it fits the L1; L2 if it fits the L2 but not the L1; LLC
 * if it fits the smallest last-level cache (level 3 or higher) but no lower
 * level; DRAM at SIZE_DRAM_LLC_MULTIPLE times the largest last-level cache or
 * more; otherwise none. A machine without cache records has no roles.
 */
enum size_role size_role_of(const struct topo *t, uint64_t bytes);

/* "L1", "L2", "LLC", "DRAM", or NULL for SIZE_ROLE_NONE. */
const char *size_role_name(enum size_role r);

/*
 * The name of a size chosen for role `want`: the role in lower case ("l2",
 * "llc", "dram") when bytes is that on t; otherwise the size, "512kib",
 * "2mib", "3gib" (or "5000b" when it is not a whole KiB). Returns the role
 * that holds (SIZE_ROLE_NONE when the name is the size).
 */
enum size_role size_name(const struct topo *t, uint64_t bytes, enum size_role want, char *out, size_t cap);

#endif
