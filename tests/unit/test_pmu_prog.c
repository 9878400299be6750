/* test_pmu_prog.c - host tests of programming the PMU (pmu_start/read/stop,
 * pmu_in_use, pmu_counter_holds, the L3's counting CPU, pmu_delta) on a fake
 * MSR file, with the plans of pmu_fixtures.h's parts (Intel SDM vol. 3B
 * ch. 20; AMD APM vol. 2 §13.2; the 17h/19h PPRs for the L3 PMCs). */
#include "check.h"
#include "pmu_fixtures.h"

/* ---- Fake MSR file --------------------------------------------------------- */

#define FAKE_MSRS 64
static struct { uint32_t msr; uint64_t v; } fake[FAKE_MSRS];
static size_t n_fake;
static unsigned fake_writes;

static uint64_t *fake_slot(uint32_t msr)
{
	for (size_t i = 0; i < n_fake; i++)
		if (fake[i].msr == msr)
			return &fake[i].v;
	if (n_fake == FAKE_MSRS)
		return NULL;
	fake[n_fake].msr = msr;
	fake[n_fake].v = 0;
	return &fake[n_fake++].v;
}

static uint64_t fake_rd(uint32_t msr)
{
	uint64_t *p = fake_slot(msr);

	return p ? *p : 0;
}

static void fake_wr(uint32_t msr, uint64_t v)
{
	uint64_t *p = fake_slot(msr);

	if (p)
		*p = v;
	fake_writes++;
}

static void fake_reset(void)
{
	n_fake = 0;
	fake_writes = 0;
}
/* ---- Programming ------------------------------------------------------------ */

TEST(start_read_stop_intel)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;
	uint64_t v[PMU_MAX_EVENTS];

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB00);	/* someone's fixed counter 2 */
	fake_wr(MSR_IA32_PMC0, 1234);
	pmu_start(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERF_GLOBAL_CTRL), 0x300000003ull);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERFEVTSEL0), 0x434F2Eull);
	CHECK_EQ_U(fake_rd(MSR_IA32_PMC0), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_FIXED_CTR_CTRL), 0xB33);
	fake_wr(MSR_IA32_PMC0, 500);
	fake_wr(MSR_IA32_FIXED_CTR0, 9000);
	pmu_read(&p, true, fake_rd, v);
	CHECK_EQ_U(v[0], 500);
	CHECK_EQ_U(v[3], 9000);
	pmu_stop(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_PERFEVTSEL0), 0);
	CHECK_EQ_U(fake_rd(MSR_IA32_FIXED_CTR_CTRL), 0xB00);
}

TEST(start_l3_only_when_asked)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	pmu_start(&p, false, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0);
	CHECK_EQ_U(fake_rd(MSR_AMD_PERF_CTL0), EVTSEL(0x76, 0));
	CHECK_EQ_U(fake_writes, 6);	/* two core events: select 0, counter 0, select */
	pmu_start(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0xFF04 | L3_19H);
	pmu_stop(&p, true, fake_rd, fake_wr);
	CHECK_EQ_U(fake_rd(MSR_AMD_L3_PMC_CFG0), 0);
	CHECK_EQ_U(fake_rd(MSR_AMD_PERF_CTL0), 0);
}

/* A Zen 3 CCX (one L3) with four threads in a run: the L3 counter is one
 * register shared by them all. Read on every thread and summed, as before,
 * it came out four times; only the run's first CPU on the L3 reads it now. */
TEST(l3_counted_once_per_l3)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;
	uint64_t v[PMU_MAX_EVENTS], sum[PMU_MAX_EVENTS] = { 0 };
	uint32_t l3_of[4] = { 0, 0, 0, 0 };
	bool seen[2], counts[4];
	int l3 = -1;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	for (uint32_t e = 0; e < p.n; e++)
		if (p.ev[e].scope == PMU_SCOPE_L3)
			l3 = (int)e;
	CHECK(l3 >= 0);
	fake_reset();
	pmu_l3_counting(l3_of, 4, seen, 2, counts);
	CHECK(counts[0] && !counts[1] && !counts[2] && !counts[3]);
	fake_wr(p.ev[l3].ctr_msr, 1000);	/* what the L3 counted, for all four */
	for (int t = 0; t < 4; t++) {
		pmu_read(&p, counts[t], fake_rd, v);
		for (uint32_t e = 0; e < p.n; e++)
			sum[e] += v[e];
	}
	CHECK_EQ_U(sum[l3], 1000);
}

/* Which CPU of a run counts each L3: the run's first one on it, even when the
 * L3's first CPU of the machine is not in the run; none without an L3. */
TEST(l3_counting_cpu_per_run)
{
	uint32_t l3_of[7] = { 1, 1, 0, 2, 0, 1, 9 };
	bool seen[3], counts[7];

	pmu_l3_counting(l3_of, 7, seen, 3, counts);
	CHECK(counts[0] && !counts[1] && counts[2] && counts[3] && !counts[4] && !counts[5]);
	CHECK(!counts[6]);
	pmu_l3_counting(l3_of + 4, 2, seen, 3, counts);	/* a run of the machine's later CPUs */
	CHECK(counts[0] && counts[1]);
}

/* Linux's check_hw_exists: a select that is already counting belongs to the
 * firmware; a counter that drops what is written is not a counter. */
TEST(firmware_owned_counters)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), 0);
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB00);	/* fixed counter 2, not ours */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), 0);
	fake_wr(MSR_IA32_FIXED_CTR_CTRL, 0xB03);	/* fixed counter 0 counts at CPL 0 and 3 */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_IA32_FIXED_CTR_CTRL);
	fake_reset();
	fake_wr(MSR_IA32_PERFEVTSEL0 + 1, 0x4300C0);	/* EN set on PERFEVTSEL1 */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_IA32_PERFEVTSEL0 + 1);
	fake_reset();
	fake_wr(MSR_IA32_PMC0, 77);
	CHECK(pmu_counter_holds(&p, fake_rd, fake_wr));
	CHECK_EQ_U(fake_rd(MSR_IA32_PMC0), 77);		/* put back */

	struct pmu_caps z = CAPS0(&m_zen3);
	pmu_plan(&z, PMU_GOAL_LLC, &p);
	fake_reset();
	fake_wr(MSR_AMD_L3_PMC_CFG0, PERFEVTSEL_EN);
	CHECK_EQ_U(pmu_in_use(&p, false, fake_rd), 0);	/* not this CPU's to check */
	CHECK_EQ_U(pmu_in_use(&p, true, fake_rd), MSR_AMD_L3_PMC_CFG0);
}

static uint64_t deaf_rd(uint32_t msr)
{
	(void)msr;
	return 0;
}

TEST(counter_that_ignores_writes)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	pmu_plan(&c, PMU_GOAL_LLC, &p);
	fake_reset();
	CHECK(!pmu_counter_holds(&p, deaf_rd, fake_wr));
}

TEST(delta_wraps_at_width)
{
	struct pmu_event e48 = { .width = 48 }, e40 = { .width = 40 };

	CHECK_EQ_U(pmu_delta(&e48, 100, 350), 250);
	CHECK_EQ_U(pmu_delta(&e48, 0xFFFFFFFFFFF0ull, 0x10), 0x20);
	CHECK_EQ_U(pmu_delta(&e40, 0xFFFFFFFFFFull, 0), 1);
	CHECK_STR(pmu_goal_name(PMU_GOAL_COHERENCE), "coherence");
	CHECK_STR(pmu_goal_name(PMU_GOAL_COUNT), "?");
}
int main(void)
{
	RUN(start_read_stop_intel);
	RUN(start_l3_only_when_asked);
	RUN(l3_counted_once_per_l3);
	RUN(l3_counting_cpu_per_run);
	RUN(firmware_owned_counters);
	RUN(counter_that_ignores_writes);
	RUN(delta_wraps_at_width);
	return check_summary("pmu_prog");
}
