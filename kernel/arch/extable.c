/* extable.c - looks up faulting instructions in the exception table; see extable.h. */
#include "extable.h"

/* ---- Private Variables ---------------------------------------------------- */
/* Bounds of the section qb_extable (linker.ld; the linker in a hosted build).
 * Weak: a program without any entry has an empty table. */
extern const struct extable_entry __start_qb_extable[] __attribute__((weak));
extern const struct extable_entry __stop_qb_extable[] __attribute__((weak));

/* ---- Private Functions ---------------------------------------------------- */
static uintptr_t target(const int32_t *field)
{
	return (uintptr_t)field + (uintptr_t)(intptr_t)*field;
}

/* ---- Public Functions ----------------------------------------------------- */
uintptr_t extable_find(uintptr_t rip)
{
	/* A handful of entries: a linear search is fast enough for a #GP. */
	for (const struct extable_entry *e = __start_qb_extable; e < __stop_qb_extable; e++)
		if (target(&e->insn) == rip)
			return target(&e->fixup);
	return 0;
}

uint32_t extable_entries(void)
{
	return (uint32_t)(__stop_qb_extable - __start_qb_extable);
}
