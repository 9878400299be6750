/* test_twin_hostcpu_count.c - the Linux twin's CPU counts of the boot and done records (tools/twin/hostcpu_count.c, issue 36): every CPU of the affinity mask in exactly one of online, parked (excluded by cpus=), not started and lost, whatever its slot's state, and found their sum. */
#include "check.h"
#include "hostcpu.h"
#include "report.h"

static struct hostcpu h[QB_MAX_CPUS];

static void set(uint32_t from, uint32_t to, uint32_t state)
{
	for (uint32_t i = from; i < to; i++)
		h[i].state = state;
}

static uint32_t sum(const struct report_cpus *c)
{
	return c->online + c->parked + c->not_started + c->lost;
}

/* The machine on the twin: 288 CPUs in the mask, cpus=16, and one thread that checked in after the
 * start bound (its slot failed, the thread left the run): 15 online, 272 parked, 1 not started. */
TEST(a_late_cpu_is_not_started)
{
	struct report_cpus c;
	set(0, 16, HOSTCPU_ONLINE);
	set(16, 288, HOSTCPU_EXCLUDED);
	h[15].state = HOSTCPU_FAILED;
	hostcpu_count(h, 288, 288, &c);
	CHECK(c.known);
	CHECK_EQ_U(c.found, 288);
	CHECK_EQ_U(c.online, 15);
	CHECK_EQ_U(c.parked, 272);
	CHECK_EQ_U(c.not_started, 1);
	CHECK_EQ_U(c.lost, 0);
	CHECK_EQ_U(sum(&c), c.found);
}

/* Each state by itself: one slot of it beside the online main thread, so that a state counted twice, or in no
 * count, or in the wrong one, shows. */
TEST(every_state_in_its_one_count)
{
	static const struct {
		uint32_t state, online, parked, not_started, lost;
	} want[] = {
		{ HOSTCPU_ABSENT, 1, 0, 1, 0 },   /* in the mask, its thread not yet created */
		{ HOSTCPU_STARTING, 1, 0, 1, 0 }, /* created, not checked in */
		{ HOSTCPU_ONLINE, 2, 0, 0, 0 },
		{ HOSTCPU_FAILED, 1, 0, 1, 0 },   /* no thread, not pinned, or no check-in within the bound */
		{ HOSTCPU_LOST, 1, 0, 0, 1 },     /* missed a run's bound */
		{ HOSTCPU_EXCLUDED, 1, 1, 0, 0 }, /* beyond cpus= */
	};
	for (uint32_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct report_cpus c;
		h[0].state = HOSTCPU_ONLINE;
		h[1].state = want[k].state;
		hostcpu_count(h, 2, 2, &c);
		CHECK_EQ_U(c.online, want[k].online);
		CHECK_EQ_U(c.parked, want[k].parked);
		CHECK_EQ_U(c.not_started, want[k].not_started);
		CHECK_EQ_U(c.lost, want[k].lost);
		CHECK_EQ_U(sum(&c), 2);
	}
}

/* CPUs of the mask beyond QB_MAX_CPUS get no slot: found, and not started. */
TEST(one_without_a_slot_is_not_started)
{
	struct report_cpus c;
	set(0, QB_MAX_CPUS, HOSTCPU_ONLINE);
	hostcpu_count(h, QB_MAX_CPUS, QB_MAX_CPUS + 3, &c);
	CHECK_EQ_U(c.found, QB_MAX_CPUS + 3);
	CHECK_EQ_U(c.online, QB_MAX_CPUS);
	CHECK_EQ_U(c.not_started, 3);
	CHECK_EQ_U(sum(&c), c.found);
}

/* Nothing found (the run stopped before the CPUs were read): unknown, written as nulls. */
TEST(nothing_found_is_unknown)
{
	struct report_cpus c;
	hostcpu_count(h, 0, 0, &c);
	CHECK(!c.known);
	CHECK_EQ_U(sum(&c), 0);
}

int main(void)
{
	RUN(a_late_cpu_is_not_started);
	RUN(every_state_in_its_one_count);
	RUN(one_without_a_slot_is_not_started);
	RUN(nothing_found_is_unknown);
	return check_summary("twin_hostcpu_count");
}
