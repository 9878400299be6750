/* tsc_sync.c - TSC offsets by ping-pong, for both platforms; see tsc_sync.h. */
#include "tsc_sync.h"
#include "console.h"
#include "lib.h"
#include "run.h"
#include "tsc.h"

/* ---- Types ---------------------------------------------------------------- */
struct tsc_sync {
	volatile uint64_t ping __attribute__((aligned(64)));
	volatile uint64_t pong __attribute__((aligned(64)));
	volatile uint64_t pong_tsc;
	uint64_t deadline;
	int64_t best_offset;
	uint64_t best_rtt;
};

/* ---- Private Functions ---------------------------------------------------- */
static void tsc_sync_fn(const struct run_thread *t)
{
	struct tsc_sync *s = t->arg;
	for (uint64_t k = 1; k <= TSC_SYNC_ROUNDS; k++) {
		if (t->index == 0) {
			uint64_t t0 = tsc_start();
			__atomic_store_n(&s->ping, k, __ATOMIC_RELEASE);
			while (__atomic_load_n(&s->pong, __ATOMIC_ACQUIRE) != k && tsc_read() < s->deadline)
				__builtin_ia32_pause();
			uint64_t t2 = tsc_end();
			if (s->pong != k)
				return;
			uint64_t rtt = t2 - t0;
			if (rtt < s->best_rtt) {
				s->best_rtt = rtt;
				s->best_offset = (int64_t)(s->pong_tsc - (t0 + rtt / 2));
			}
		} else {
			while (__atomic_load_n(&s->ping, __ATOMIC_ACQUIRE) != k && tsc_read() < s->deadline)
				__builtin_ia32_pause();
			if (s->ping != k)
				return;
			s->pong_tsc = tsc_read();
			__atomic_store_n(&s->pong, k, __ATOMIC_RELEASE);
		}
	}
}

/* ---- Public Functions ----------------------------------------------------- */
bool tsc_sync_measure(uint32_t cpu, uint64_t deadline_ms, uint64_t run_timeout_ms, int64_t *offset,
		      uint64_t *err)
{
	static struct tsc_sync s;
	static struct cpuset pair;
	memset(&s, 0, sizeof(s));
	s.best_rtt = ~0ull;
	s.deadline = tsc_deadline_ms(deadline_ms);
	pair.n = 2;
	pair.cpu[0] = 0;
	pair.cpu[1] = cpu;
	if (run_on(&pair, tsc_sync_fn, &s, 0, run_timeout_ms, 0) != RUN_OK || s.best_rtt == ~0ull) {
		console_error("tsc", "could not measure cpu %u's TSC offset", cpu);
		return false;
	}
	*offset = s.best_offset;
	*err = s.best_rtt / 2;
	return true;
}
