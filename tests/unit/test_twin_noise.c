/* test_twin_noise.c - the Linux twin's noise detectors (tools/twin/perfnoise.c, perf.c) over a fake perf (perf_fake.h):
 * perf's msr PMU as Linux describes it in sysfs (arch/x86/events/msr.c:
 * events/tsc "event=0x00", aperf 0x01, mperf 0x02, smi 0x04, format/event
 * "config:0-63"), an SMI that moves flags the repetition as the kernel's
 * noise_delta does, APERF/MPERF give the frequency, and each refusal says why. */
#include "check.h"
#include "noise.h"
#include "perf_fake.h"
#include "perfnoise.h"

#define MSR_DIR "/sys/bus/event_source/devices/msr/"
#define MSR_TYPE 9
#define TSC_HZ 2000000000ull

/* perf's msr PMU with the events Linux lists for it; smi and aperf/mperf as asked. */
static void msr_pmu(bool smi, bool aperf)
{
	fake_reset();
	fake_file(MSR_DIR "type", "9");
	fake_file(MSR_DIR "format/event", "config:0-63");
	fake_file(MSR_DIR "events/tsc", "event=0x00");
	if (smi)
		fake_file(MSR_DIR "events/smi", "event=0x04");
	if (aperf) {
		fake_file(MSR_DIR "events/aperf", "event=0x01");
		fake_file(MSR_DIR "events/mperf", "event=0x02");
	}
	perf_use(&fake_ops);
}

TEST(test_sysfs_event_configs)
{
	uint64_t cfg = 0;
	fake_reset();
	perf_use(&fake_ops);
	fake_file("/sys/bus/event_source/devices/cpu/format/event", "config:0-7");
	fake_file("/sys/bus/event_source/devices/cpu/format/umask", "config:8-15");
	fake_file("/sys/bus/event_source/devices/cpu/format/edge", "config:18");
	fake_file("/sys/bus/event_source/devices/cpu/events/cycles", "event=0x3c");
	fake_file("/sys/bus/event_source/devices/cpu/events/x", "event=0x2e,umask=0x41,edge");
	fake_file("/sys/bus/event_source/devices/cpu/events/wide", "umask=0x141");
	fake_file("/sys/bus/event_source/devices/amd/format/event", "config:0-7,32-35");
	fake_file("/sys/bus/event_source/devices/amd/events/hi", "event=0x1c1");
	fake_file("/sys/bus/event_source/devices/cpu/type", "4");
	CHECK_EQ_U(perf_pmu_event("cpu", "cycles", &cfg), 0);
	CHECK_EQ_U(cfg, 0x3c);
	CHECK_EQ_U(perf_pmu_event("cpu", "x", &cfg), 0);
	CHECK_EQ_U(cfg, 0x412e | 1u << 18);
	CHECK_EQ_U(perf_pmu_event("amd", "hi", &cfg), 0);
	CHECK_EQ_U(cfg, 0xc1 | 1ull << 32);
	CHECK_EQ_U(perf_pmu_event("cpu", "wide", &cfg), (uint64_t)-EINVAL);  /* 0x141 does not fit 8 bits */
	CHECK_EQ_U(perf_pmu_event("cpu", "nope", &cfg), (uint64_t)-ENOENT);
	CHECK_EQ_U(perf_pmu_type("cpu"), 4);
	CHECK_EQ_U(perf_pmu_type("msr"), (uint64_t)-ENOENT);
	CHECK(perf_have_core_pmu());
	perf_use(NULL);
}

/* An SMI during a repetition flags it; a repetition without one is clean. */
TEST(test_smi_moves_flag_the_repetition)
{
	struct perfnoise_caps c;
	struct perfnoise_group g;
	struct noise_sample a = { 0 }, b = { 0 };
	struct noise_rep r;
	msr_pmu(true, false);
	perfnoise_detect(&c);
	CHECK(c.smi);
	CHECK_EQ_U(c.smi_cfg, 4);
	CHECK_EQ_U(c.type, MSR_TYPE);
	CHECK(!c.freq);
	CHECK_STR(c.freq_why, "unavailable: perf's msr PMU has no aperf/mperf events (no APERFMPERF, CPUID.06H:ECX[0])");
	CHECK_EQ_U(fake_open_count(), 0);
	unsigned first = fake.n_ev;
	CHECK_EQ_U(perfnoise_open(&c, &g), 0);
	CHECK_EQ_U(g.n, 1);
	const struct fake_event *e = &fake.ev[first];
	CHECK_EQ_U(e->a.type, MSR_TYPE);
	CHECK_EQ_U(e->a.config, 4);
	CHECK_EQ_U(e->pid, 0);           /* the calling thread, on whichever CPU it runs */
	CHECK_EQ_U(e->cpu, -1);
	CHECK_EQ_U(e->a.exclude_kernel, 0);
	fake.ev[first].value = 7;
	CHECK(perfnoise_sample(&g, &a));
	a.tsc = 1000;
	b = a;
	b.tsc = 5000;
	CHECK(perfnoise_sample(&g, &b));
	perfnoise_delta(&g, &a, &b, TSC_HZ, &r);
	CHECK(r.have_smi);
	CHECK_EQ_U(r.smis, 0);
	CHECK_EQ_U(r.flags, 0);
	CHECK(!r.flagged);
	CHECK_EQ_U(r.tsc_ticks, 4000);
	fake.ev[first].value = 9;        /* two SMIs */
	CHECK(perfnoise_sample(&g, &b));
	perfnoise_delta(&g, &a, &b, TSC_HZ, &r);
	CHECK_EQ_U(r.smis, 2);
	CHECK_EQ_U(r.flags, NOISE_FLAG_SMI);
	CHECK(r.flagged);
	CHECK(!r.have_freq);
	perfnoise_close(&g);
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* APERF/MPERF: tsc_hz * dAPERF / dMPERF; the frequency is judged by reps.c against the first repetition, not here. */
TEST(test_aperf_mperf_give_the_frequency)
{
	struct perfnoise_caps c;
	struct perfnoise_group g;
	struct noise_sample a = { 0 }, b = { 0 };
	struct noise_rep r;
	msr_pmu(true, true);
	perfnoise_detect(&c);
	CHECK(c.freq && c.smi);
	CHECK_EQ_U(c.aperf_cfg, 1);
	CHECK_EQ_U(c.mperf_cfg, 2);
	unsigned first = fake.n_ev;
	CHECK_EQ_U(perfnoise_open(&c, &g), 0);
	CHECK_EQ_U(g.n, 3);
	CHECK_EQ_U(fake.ev[first + 1].a.config, 1);
	CHECK_EQ_U(fake.ev[first + 2].a.config, 2);
	CHECK_EQ_U(fake.ev[first + 2].group_fd, FAKE_FD0 + (int)first);
	fake.ev[first + 1].value = 5000000;   /* aperf */
	fake.ev[first + 2].value = 4000000;   /* mperf */
	CHECK(perfnoise_sample(&g, &a));
	fake.ev[first + 1].value += 1100000;
	fake.ev[first + 2].value += 1000000;
	CHECK(perfnoise_sample(&g, &b));
	perfnoise_delta(&g, &a, &b, TSC_HZ, &r);
	CHECK(r.have_freq);
	CHECK(r.freq_mhz > 2199.999 && r.freq_mhz < 2200.001);   /* 2000 MHz * 1.1 */
	CHECK_EQ_U(r.flags & NOISE_FLAG_FREQ, 0);
	CHECK(r.have_smi);
	perfnoise_close(&g);
	perf_use(NULL);
}

/* A VM without a virtual PMU: Linux has no driver for hardware events (ENOENT). */
static int refuse_hardware(const struct perf_event_attr *a, int pid, int cpu)
{
	(void)pid, (void)cpu;
	return a->type == PERF_TYPE_HARDWARE ? ENOENT : 0;
}

/* Where the OS gives no SMI counter, the record says why. */
TEST(test_unavailable_sources_say_why)
{
	struct perfnoise_caps c;
	struct perfnoise_group g;
	/* This project's VM (AMD EPYC under KVM): the msr PMU lists tsc only, and there is no cpu PMU. */
	msr_pmu(false, false);
	fake.policy = refuse_hardware;
	perfnoise_detect(&c);
	CHECK(!c.smi && !c.freq && !c.cycles);
	CHECK_STR(c.smi_why, "unavailable: perf's msr PMU has no smi event (Linux lists it where MSR_SMI_COUNT exists: Intel)");
	CHECK_STR(c.clock_why, "unavailable: no cycle counters: perf's msr PMU has no aperf/mperf events (no APERFMPERF, "
			       "CPUID.06H:ECX[0]); cycles against ref-cycles: no PMU driver (perf_event_open: ENOENT)");
	CHECK_EQ_U(perfnoise_open(&c, &g), 0);
	CHECK_EQ_U(g.n, 0);
	CHECK(!perfnoise_sample(&g, &(struct noise_sample){ 0 }));
	/* A kernel without the msr PMU. */
	fake_reset();
	perfnoise_detect(&c);
	CHECK_STR(c.smi_why, "unavailable: no msr PMU in perf (/sys/bus/event_source/devices/msr)");
	CHECK_STR(c.freq_why, c.smi_why);
	/* Not root, perf_event_paranoid=2: the msr PMU counts ring 0 too, so it is refused. */
	msr_pmu(true, true);
	fake_file("/proc/sys/kernel/perf_event_paranoid", "2");
	fake.policy = paranoid2;
	perfnoise_detect(&c);
	CHECK(!c.smi && !c.freq);
	CHECK_STR(c.smi_why, "unavailable: perf_event_paranoid=2 (perf_event_open: EACCES)");
	CHECK_STR(c.freq_why, "unavailable: perf_event_paranoid=2 (perf_event_open: EACCES)");
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* Without aperf/mperf the clock is perf's cycles against ref-cycles, in a
 * group of their own: tsc_hz x dcycles / dref, as APERF/MPERF would give it. */
TEST(test_cycles_against_ref_cycles_give_the_clock)
{
	struct perfnoise_caps c;
	struct perfnoise_group g;
	struct noise_sample a = { 0 }, b = { 0 };
	struct noise_rep r;
	msr_pmu(false, false);
	perfnoise_detect(&c);
	CHECK(!c.freq && c.cycles);
	unsigned first = fake.n_ev;
	CHECK_EQ_U(perfnoise_open(&c, &g), 0);
	CHECK_EQ_U(g.n, 0);                                   /* no msr event */
	CHECK_EQ_U(fake.ev[first].a.type, PERF_TYPE_HARDWARE);
	CHECK_EQ_U(fake.ev[first].a.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_EQ_U(fake.ev[first + 1].a.config, PERF_COUNT_HW_REF_CPU_CYCLES);
	CHECK_EQ_U(fake.ev[first + 1].group_fd, FAKE_FD0 + (int)first);
	CHECK(fake.ev[first].a.exclude_kernel);               /* what perf_event_paranoid=2 allows */
	fake.ev[first].value = 7000000;
	fake.ev[first + 1].value = 9000000;
	CHECK(perfnoise_sample(&g, &a));
	fake.ev[first].value += 1800000;                      /* 1.8 M cycles in 2 M reference cycles */
	fake.ev[first + 1].value += 2000000;
	CHECK(perfnoise_sample(&g, &b));
	perfnoise_delta(&g, &a, &b, TSC_HZ, &r);
	CHECK(r.have_freq);
	CHECK(r.freq_mhz > 1799.999 && r.freq_mhz < 1800.001); /* 2000 MHz x 0.9 */
	CHECK(!r.have_smi);
	perfnoise_close(&g);
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

TEST(test_why_texts)
{
	char buf[PERF_WHY_LEN];
	fake_reset();
	perf_use(&fake_ops);
	perf_why(buf, sizeof(buf), EACCES, true);     /* no paranoid file to read */
	CHECK_STR(buf, "unavailable: not permitted (perf_event_open: EACCES)");
	perf_why(buf, sizeof(buf), E2BIG, true);
	CHECK_STR(buf, "unavailable: perf_event_open: E2BIG");
	perf_why(buf, sizeof(buf), 4095, false);
	CHECK_STR(buf, "unavailable: perf_event_open: errno 4095");
	perf_why(buf, sizeof(buf), ENOENT, false);    /* not a core event: no driver is not the reason */
	CHECK_STR(buf, "unavailable: the PMU does not know the event (perf_event_open: ENOENT)");
	perf_use(NULL);
}

int main(void)
{
	RUN(test_sysfs_event_configs);
	RUN(test_smi_moves_flag_the_repetition);
	RUN(test_aperf_mperf_give_the_frequency);
	RUN(test_unavailable_sources_say_why);
	RUN(test_cycles_against_ref_cycles_give_the_clock);
	RUN(test_why_texts);
	return check_summary("twin_noise");
}
