/* test_twin_disturb.c - the Linux twin's counters of what disturbs a thread (tools/twin/disturb.c, perfirq.c) over a fake perf (perf_fake.h): the irq tracepoints' ids read from tracefs, why they are refused, the noise loop (kernel/measure/gaps.c) attributing a gap to an interrupt that a fake tracepoint count shows, and /proc/interrupts of a real machine summed per CPU. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "disturb.h"
#include "gaps.h"
#include "perf_fake.h"
#include "perfirq.h"

/* ---- Stubs: the calling thread's CPU slot, the TSC's fence ----------------- */
bool tsc_mfence, tsc_have_rdtscp;

uint32_t hostcpu_self(void)
{
	return 0;
}

#define TRACEFS "/sys/kernel/tracing/events/"
#define HANDLER_ID 225                  /* irq:irq_handler_entry on this project's VM */
#define TIMER_ID 101
#define STEP 10

/* tracefs with the device interrupts' and the local timer's tracepoints. */
static void tracefs(void)
{
	fake_reset();
	fake_file(TRACEFS "irq/irq_handler_entry/id", "225");
	fake_file(TRACEFS "irq_vectors/local_timer_entry/id", "101");
	perf_use(&fake_ops);
}

/* ---- The fake clock: ordinary iterations, and gaps during which the tracepoints fire ---- */
static struct {
	uint64_t now, calls, gap_at[4];
	unsigned n;
	struct fake_event *irq;             /* the tracepoint a gap's interrupt moves (NULL: none) */
} fc;

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	fc.calls++;
	fc.now += STEP;
	for (unsigned i = 0; i < fc.n; i++)
		if (fc.gap_at[i] == fc.calls) {
			fc.now += 5000;
			if (fc.irq && i % 2 == 0)   /* the even gaps are interrupts, the odd ones not */
				fc.irq->value++;
		}
	return fc.now;
}

/* ---- Tests ------------------------------------------------------------------ */

/* The ids come from tracefs; the group leads with irq_handler_entry and is counted, never sampled. */
TEST(tracepoints_found_and_opened)
{
	struct perfirq_caps c;
	struct perfirq_group g;
	tracefs();
	perfirq_detect(&c);
	CHECK(c.ok);
	CHECK_EQ_U(c.n, 2);
	CHECK_EQ_U(c.id[0], HANDLER_ID);
	CHECK_EQ_U(c.id[1], TIMER_ID);
	unsigned first = fake.n_ev;
	CHECK_EQ_U(perfirq_open(&c, &g), 0);
	CHECK_EQ_U(g.n, 2);
	CHECK_EQ_U(fake.ev[first].a.type, PERF_TYPE_TRACEPOINT);
	CHECK_EQ_U(fake.ev[first].a.config, HANDLER_ID);
	CHECK_EQ_U(fake.ev[first].a.sample_period, 0);
	CHECK(!fake.ev[first].a.exclude_kernel);     /* interrupts run in the kernel: excluding it counts none */
	CHECK_EQ_U(fake.ev[first + 1].group_fd, FAKE_FD0 + (int)first);
	fake.ev[first].value = 7;
	fake.ev[first + 1].value = 5;
	uint64_t sum = 0;
	CHECK(perfirq_read(&g, &sum));
	CHECK_EQ_U(sum, 12);
	perfirq_close(&g);
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* Each refusal says why: tracefs not mounted, its ids root's only, perf's paranoia. */
TEST(refusals_say_why)
{
	struct perfirq_caps c;
	fake_reset();
	perf_use(&fake_ops);
	perfirq_detect(&c);
	CHECK(!c.ok);
	CHECK_STR(c.why, "unavailable: no irq tracepoints: tracefs is not mounted (/sys/kernel/tracing)");
	tracefs();
	fake_file("/proc/sys/kernel/perf_event_paranoid", "2");
	fake.policy = paranoid2;                  /* not root: a tracepoint counts ring 0, refused */
	perfirq_detect(&c);
	CHECK(!c.ok);
	CHECK_STR(c.why, "unavailable: perf_event_paranoid=2 (perf_event_open: EACCES)");
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* The noise loop on the twin: a gap during which an interrupt's tracepoint
 * fired is attributed to interrupts; context switches, migrations and faults
 * are counted too (getrusage, sched_getcpu: this process's own). */
TEST(gap_attributed_to_an_interrupt)
{
	tracefs();
	uint32_t mask = disturb_open();           /* the first use: this fake tracefs is the system's */
	CHECK(mask & (1u << GAPS_INTERRUPT));
	CHECK(mask & (1u << GAPS_SWITCH));
	CHECK(mask & (1u << GAPS_MIGRATION));
	CHECK(mask & (1u << GAPS_FAULT));
	CHECK(!(mask & (1u << GAPS_SMI)));        /* no msr PMU in the fake */
	CHECK(disturb_why(GAPS_INTERRUPT) == NULL);
	CHECK(strstr(disturb_why(GAPS_SMI), "no msr PMU"));
	/* The thread's group is the last one opened: its leader is the handler's tracepoint. */
	struct fake_event *leader = 0;
	for (unsigned i = 0; i < fake.n_ev; i++)
		if (fake.ev[i].open && fake.ev[i].a.config == HANDLER_ID && fake.ev[i].group_fd == -1)
			leader = &fake.ev[i];
	CHECK(leader != NULL);
	memset(&fc, 0, sizeof(fc));
	fc.irq = leader;
	fc.gap_at[fc.n++] = 100;
	fc.gap_at[fc.n++] = 200;
	fc.gap_at[fc.n++] = 300;
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	gaps_setup(&cfg, STEP, 1000, 1000000000); /* 1 GHz: a tick is a ns */
	cfg.end = 100000;
	struct gaps_ops ops = { fake_clock, disturb_read, mask, 0 };
	gaps_spin(&c, &cfg, &ops);
	disturb_close();
	CHECK_EQ_U(c.count, 3);
	CHECK_EQ_U(c.attributed, 3);
	CHECK_EQ_U(c.unread, 0);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 2);   /* the 100th and the 300th */
	CHECK_EQ_U(c.cause[GAPS_MIGRATION], 0);   /* nothing moved this thread's CPU number */
	/* With irq tracepoints nothing is counted per configuration: each repetition has its own. */
	uint64_t n;
	const char *how;
	CHECK(!disturb_config_interrupts(&n, &how));
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* /proc/interrupts of a real machine: each CPU's total, every per-CPU line summed. */
TEST(proc_interrupts_of_a_real_machine)
{
	FILE *f = fopen("tests/fixtures/proc/interrupts-kvm-epyc-2cpu.txt", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	static char text[65536];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	uint64_t total[4];
	CHECK_EQ_U(perfirq_proc_parse(text, total, 4), 2);
	CHECK_EQ_U(total[0], 1732416);          /* tests/fixtures/proc/README.md */
	CHECK_EQ_U(total[1], 1949212);
	CHECK_EQ_U(total[2], 0);
	/* An offline CPU has no column: the header names the ones there are. */
	static const char holes[] = "           CPU0       CPU2       CPU3\n"
				    "  0:         10         20         30   IO-APIC   2-edge      timer\n"
				    "LOC:        100        200        300   Local timer interrupts\n"
				    "ERR:          7\n"
				    "MIS:          0\n";
	CHECK_EQ_U(perfirq_proc_parse(holes, total, 4), 3);
	CHECK_EQ_U(total[0], 110);
	CHECK_EQ_U(total[1], 0);
	CHECK_EQ_U(total[2], 220);
	CHECK_EQ_U(total[3], 330);
	CHECK_EQ_U(perfirq_proc_parse("no header\n", total, 4), 0);
}

int main(void)
{
	RUN(tracepoints_found_and_opened);
	RUN(refusals_say_why);
	RUN(gap_attributed_to_an_interrupt);
	RUN(proc_interrupts_of_a_real_machine);
	return check_summary("twin_disturb");
}
