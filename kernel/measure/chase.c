/* chase.c - a random cycle through a working set, and the timed dependent pass over it; see chase.h. */
#include "chase.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define LINE_WORDS (CHASE_LINE / sizeof(uint64_t))
#define CHASE_SEED 0x9e3779b97f4a7c15ull  /* the cycle's shuffle: a fixed seed, the same cycle every run */
#define LCG_MUL 6364136223846793005ull   /* Knuth, MMIX */
#define LCG_ADD 1442695040888963407ull
#define LCG_OUT_SHIFT 16

/* ---- Public Functions ----------------------------------------------------- */
void chase_make(volatile uint64_t *set, uint64_t lines)
{
	uint64_t x = CHASE_SEED;
	for (uint64_t i = 0; i < lines; i++)
		for (uint64_t w = 0; w < LINE_WORDS; w++)
			set[i * LINE_WORDS + w] = i; /* word 0 is overwritten by the shuffle */
	for (uint64_t i = lines - 1; lines && i > 0; i--) {
		x = x * LCG_MUL + LCG_ADD;
		uint64_t j = (x >> LCG_OUT_SHIFT) % i;
		uint64_t t = set[i * LINE_WORDS];
		set[i * LINE_WORDS] = set[j * LINE_WORDS];
		set[j * LINE_WORDS] = t;
	}
}

uint64_t chase_want(uint64_t lines)
{
	return lines ? lines * (lines - 1) / 2 : 0;
}

uint64_t chase_pass(const volatile uint64_t *set, uint64_t lines, uint64_t *sum)
{
	uint64_t s = 0, at = 0, t0 = tsc_start();
	for (uint64_t i = 0; i < lines; i++) {
		at = set[at * LINE_WORDS];
		s += at;
	}
	uint64_t t1 = tsc_end();
	*sum = at == 0 ? s : ~0ull;
	return t1 - t0;
}

uint64_t chase_pass_pieces(const volatile uint64_t *set, uint64_t lines, uint64_t piece, uint64_t *sum,
			   uint64_t *longest)
{
	uint64_t s = 0, at = 0, most = 0;
	piece = piece ? piece : lines;
	uint64_t t0 = tsc_start(), prev = t0;
	for (uint64_t i = 0; i < lines;) {
		uint64_t stop = lines - i < piece ? lines : i + piece;
		for (; i < stop; i++) {
			at = set[at * LINE_WORDS];
			s += at;
		}
		uint64_t now = tsc_read();
		most = now - prev > most ? now - prev : most;
		prev = now;
	}
	uint64_t t1 = tsc_end();
	*sum = at == 0 ? s : ~0ull;
	*longest = most;
	return t1 - t0;
}
