/* locality_loops.c - the locality workload's data and summing loops; see locality_loops.h.
 *
 * The _shared loops are the gist's `*r += num[i]` with its types: the slot
 * and the array both 32-bit (uint32_t for the gist's int, so that a sum past
 * 2^32 wraps instead of being undefined) and free to alias, no `restrict`.
 * Because a store to *slot may change a later a[i], the compiler must store
 * the running sum every element; because nothing else writes *slot between
 * two adds, it keeps the sum in a register and never reloads it: at -O2 and
 * -O3 (gcc 12) the loop is the gist's `add (%rcx,%rax,4),%edx; mov
 * %edx,(%rdi)`. Another slot type lets -O3 sink the store out of the loop
 * (uint64_t, or restrict), or adds a reload every element (volatile, as
 * this loop had before issue 29); tests/asm/check_counter_loops.py checks
 * the kernel's and the twin's objects.
 *
 * Every timed loop is scalar, one element an iteration, as the gist's 2013
 * build was: at the workloads' -O3 (kernel and twin alike) gcc would make
 * loc_blocked_private SSE2, four elements an iteration, and give the
 * `blocked` row a factor of 2 that no other row has. SCALAR pins it per
 * function, so the rest of workloads/ keeps -O3 whole; a vector variant
 * would get its own name. docs/workloads.md lists each function's form and
 * tests/asm/check_counter_loops.py checks it. */
#include "locality_loops.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED 42                               /* the seed's srand(42) */
#define LCG_MUL 6364136223846793005ull        /* Knuth, MMIX */
#define LCG_ADD 1442695040888963407ull
#define LCG_OUT_SHIFT 33                      /* the high bits are the good ones */
#define VALUE_RANGE 100                       /* rand() % 100 */
/* No loop or SLP vectorisation in this function (gcc honours it per function). */
#define SCALAR __attribute__((optimize("no-tree-vectorize")))

/* ---- Public Functions ----------------------------------------------------- */
void loc_fill(uint32_t *a, uint64_t n)
{
	uint64_t x = SEED;
	for (uint64_t i = 0; i < n; i++) {
		x = x * LCG_MUL + LCG_ADD;
		a[i] = (uint32_t)((x >> LCG_OUT_SHIFT) % VALUE_RANGE);
	}
}

uint64_t loc_fill_total(uint64_t n)
{
	uint64_t x = SEED, total = 0;
	for (uint64_t i = 0; i < n; i++) {
		x = x * LCG_MUL + LCG_ADD;
		total += (x >> LCG_OUT_SHIFT) % VALUE_RANGE;
	}
	return total;
}

uint64_t loc_total(const uint32_t *a, uint64_t n)
{
	uint64_t total = 0;
	for (uint64_t i = 0; i < n; i++)
		total += a[i];
	return total;
}

void loc_block(uint64_t n, uint32_t p, uint32_t t, uint64_t *start, uint64_t *end)
{
	/* n * t / p without overflowing n * t: whole multiples of p, then the remainder. */
	*start = n / p * t + n % p * t / p;
	*end = n / p * (t + 1) + n % p * (t + 1) / p;
}

SCALAR uint64_t loc_interleaved_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t)
{
	uint64_t acc = 0;
	for (uint64_t i = t; i < n; i += p)
		acc += a[i];
	return acc;
}

SCALAR void loc_interleaved_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot)
{
	for (uint64_t i = t; i < n; i += p)
		*slot += a[i];
}

SCALAR uint64_t loc_blocked_strided_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t)
{
	uint64_t start, end, acc = 0;
	loc_block(n, p, t, &start, &end);
	for (uint32_t j = 0; j < p; j++)
		for (uint64_t i = start + j; i < end; i += p)
			acc += a[i];
	return acc;
}

SCALAR void loc_blocked_strided_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot)
{
	uint64_t start, end;
	loc_block(n, p, t, &start, &end);
	for (uint32_t j = 0; j < p; j++)
		for (uint64_t i = start + j; i < end; i += p)
			*slot += a[i];
}

SCALAR uint64_t loc_blocked_private(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t)
{
	uint64_t start, end, acc = 0;
	loc_block(n, p, t, &start, &end);
	for (uint64_t i = start; i < end; i++)
		acc += a[i];
	return acc;
}

SCALAR void loc_blocked_shared(const uint32_t *a, uint64_t n, uint32_t p, uint32_t t, uint32_t *slot)
{
	uint64_t start, end;
	loc_block(n, p, t, &start, &end);
	for (uint64_t i = start; i < end; i++)
		*slot += a[i];
}
