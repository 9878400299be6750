/* hostcpu.c - the Linux twin's CPUs: affinity mask, pinned threads with a bounded check-in, TSC offsets (sched_setaffinity(2), pthread_setaffinity_np(3)); see hostcpu.h. */
#define _GNU_SOURCE
#include "hostcpu.h"
#include "report.h"
#include "tsc_sync.h"
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "console.h"
#include "hostnuma.h"
#include "lib.h"
#include "run.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define MASK_CPUS 8192            /* OS CPU numbers read from the affinity mask */
#define TSC_SYNC_TIMEOUT_MS 1000

/* ---- Types ---------------------------------------------------------------- */

/* ---- Private Variables ---------------------------------------------------- */
struct hostcpu hostcpu[QB_MAX_CPUS];
static uint32_t n_slots, n_found, n_online;
static uint64_t startup_us;
static __thread uint32_t self;

/* ---- Private Functions ---------------------------------------------------- */
static cpu_set_t *one_cpu(uint32_t os_cpu, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(MASK_CPUS);
	*size = CPU_ALLOC_SIZE(MASK_CPUS);
	if (set) {
		CPU_ZERO_S(*size, set);
		CPU_SET_S(os_cpu, *size, set);
	}
	return set;
}

/* Pin the calling thread to os_cpu and check that it runs there. */
static bool pin_self(uint32_t os_cpu)
{
	size_t size;
	cpu_set_t *set = one_cpu(os_cpu, &size);
	bool ok = set && pthread_setaffinity_np(pthread_self(), size, set) == 0;
	CPU_FREE(set);
	return ok && sched_getcpu() == (int)os_cpu;
}

/* A worker: snapshot CPUID on its own CPU, check in (unless it is too late), serve the mailbox. */
static void *cpu_main(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;
	struct hostcpu *h = &hostcpu[i];
	uint32_t want = HOSTCPU_STARTING;
	self = i;
	if (sched_getcpu() != (int)h->os_cpu) {
		h->why_failed = "not running on its CPU after pinning";
		__atomic_compare_exchange_n(&h->state, &want, HOSTCPU_FAILED, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		return 0;
	}
	cpuid_snap_take(&h->snap);
	h->have_snap = true;
	h->checkin_tsc = tsc_read();
	/* Read before checking in: a job posted once we are online is not seen yet. */
	uint32_t seen = __atomic_load_n(&h->job_seq, __ATOMIC_ACQUIRE);
	if (!__atomic_compare_exchange_n(&h->state, &want, HOSTCPU_ONLINE, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return 0; /* the bound passed: it was reported and left out */
	run_ap_loop(seen);
}

static void report_not_started(uint32_t i, const char *why, uint64_t timeout_ms)
{
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "cpu did not start");
	rec_u64(r, "cpu", i);
	rec_u64(r, "os_cpu", hostcpu[i].os_cpu);
	rec_str(r, "detail", why);
	rec_u64(r, "timeout_ms", timeout_ms);
	console_rec_emit(r);
}

/* ---- Public Functions ----------------------------------------------------- */
bool hostcpu_discover(uint32_t max_cpus)
{
	size_t size = CPU_ALLOC_SIZE(MASK_CPUS);
	cpu_set_t *set = CPU_ALLOC(MASK_CPUS);
	uint32_t beyond = 0;
	if (!set || sched_getaffinity(0, size, set) != 0) {
		console_error("cpus", "cannot read the affinity mask: %s", strerror(errno));
		CPU_FREE(set);
		return false;
	}
	for (uint32_t c = 0; c < MASK_CPUS; c++) {
		if (!CPU_ISSET_S(c, size, set))
			continue;
		if (n_slots >= QB_MAX_CPUS) {
			beyond++;
			continue;
		}
		struct hostcpu *h = &hostcpu[n_slots];
		h->os_cpu = c;
		h->node = hostnuma_node_of_cpu(c);
		h->state = max_cpus && n_slots >= max_cpus ? HOSTCPU_EXCLUDED : HOSTCPU_ABSENT;
		n_slots++;
	}
	CPU_FREE(set);
	n_found = n_slots + beyond;
	if (beyond)
		console_error("cpus", "%u CPUs of the affinity mask are beyond the limit of %u and not used", beyond,
			      QB_MAX_CPUS);
	return n_slots > 0;
}

bool hostcpu_init_bsp(void)
{
	/* Excluded CPUs are not started, but their CPUID still names them in the cpu records. */
	for (uint32_t i = 1; i < n_slots; i++) {
		if (hostcpu[i].state == HOSTCPU_EXCLUDED && pin_self(hostcpu[i].os_cpu)) {
			cpuid_snap_take(&hostcpu[i].snap);
			hostcpu[i].have_snap = true;
		}
	}
	if (!pin_self(hostcpu[0].os_cpu)) {
		console_error("cpus", "cannot pin the main thread to OS CPU %u", hostcpu[0].os_cpu);
		return false;
	}
	self = 0;
	cpuid_snap_take(&hostcpu[0].snap);
	hostcpu[0].have_snap = true;
	hostcpu[0].state = HOSTCPU_ONLINE;
	n_online = 1;
	return true;
}

void hostcpu_start(uint64_t timeout_ms)
{
	uint64_t t0 = tsc_read(), last = t0;
	for (uint32_t i = 1; i < n_slots; i++) {
		struct hostcpu *h = &hostcpu[i];
		if (h->state != HOSTCPU_ABSENT)
			continue;
		size_t size;
		cpu_set_t *set = one_cpu(h->os_cpu, &size);
		pthread_attr_t attr;
		int rc = set ? pthread_attr_init(&attr) : ENOMEM;
		if (set && rc == 0) {
			h->state = HOSTCPU_STARTING;
			rc = pthread_attr_setaffinity_np(&attr, size, set);
			if (rc == 0)
				rc = pthread_create(&h->thread, &attr, cpu_main, (void *)(uintptr_t)i);
			pthread_attr_destroy(&attr);
		}
		CPU_FREE(set);
		if (rc != 0) {
			h->state = HOSTCPU_FAILED;
			report_not_started(i, strerror(rc), timeout_ms);
		}
	}
	uint64_t deadline = tsc_deadline_ms(timeout_ms);
	for (uint32_t i = 1; i < n_slots; i++) {
		struct hostcpu *h = &hostcpu[i];
		while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == HOSTCPU_STARTING && tsc_read() < deadline)
			sched_yield();
		uint32_t want = HOSTCPU_STARTING;
		if (__atomic_compare_exchange_n(&h->state, &want, HOSTCPU_FAILED, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			report_not_started(i, "did not check in within the bound", timeout_ms);
		else if (want == HOSTCPU_FAILED && h->why_failed)
			report_not_started(i, h->why_failed, timeout_ms);
		if (h->state == HOSTCPU_ONLINE) {
			n_online++;
			last = MAX(last, h->checkin_tsc);
		}
	}
	startup_us = tsc_to_us(last - t0);
}

void hostcpu_measure_tsc_offsets(void)
{
	for (uint32_t i = 1; i < n_slots; i++) {
		if (hostcpu[i].state != HOSTCPU_ONLINE)
			continue;
		hostcpu[i].tsc_offset = 0;
		int64_t off;
		uint64_t err;
		if (tsc_sync_measure(i, TSC_SYNC_TIMEOUT_MS, TSC_SYNC_TIMEOUT_MS * 2, &off, &err)) {
			hostcpu[i].tsc_offset = off;
			hostcpu[i].tsc_offset_err = err;
		}
	}
}

uint32_t hostcpu_found(void) { return n_found; }
uint32_t hostcpu_online(void) { return n_online; }

void hostcpu_counts(struct report_cpus *c)
{
	hostcpu_count(hostcpu, n_slots, n_found, c);
}
uint32_t hostcpu_slots(void) { return n_slots; }
uint64_t hostcpu_startup_us(void) { return startup_us; }
uint32_t hostcpu_self(void) { return self; }

const char *hostcpu_state_name(uint32_t state)
{
	switch (state) {
	case HOSTCPU_ABSENT: return "not-present";
	case HOSTCPU_STARTING: return "starting";
	case HOSTCPU_ONLINE: return "online";
	case HOSTCPU_FAILED: return "failed";
	case HOSTCPU_LOST: return "lost";
	case HOSTCPU_EXCLUDED: return "excluded";
	}
	return "unknown";
}
