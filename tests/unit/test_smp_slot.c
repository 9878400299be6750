/* test_smp_slot.c - host tests of kernel/run/smp_slot.c: an AP that wakes up after the BSP gave up on it is late,
 * not a stray (a 768-vCPU QEMU under TCG starves a few APs past the start bound, and each was reported twice:
 * "did not start", then as a CPU that "woke up" unstarted). */
#include "check.h"
#include "smp_slot.h"

#define SOCKET1 512u  /* QEMU's 2 x 192 x 2: socket 1's first APIC ID (socket << 9) */

static struct percpu pc[QB_MAX_CPUS];

/* 768 slots as smp_init leaves them: the BSP, then APs of APIC IDs socket << 9 | core << 1 | thread. */
static uint32_t machine(uint32_t state)
{
	uint32_t n = 0;
	for (uint32_t s = 0; s < 2; s++)
		for (uint32_t c = 0; c < 192; c++)
			for (uint32_t t = 0; t < 2; t++, n++) {
				pc[n].apic_id = s << 9 | c << 1 | t;
				pc[n].state = n ? state : CPU_ONLINE;
			}
	return n;
}

TEST(a_starting_slot_is_found_with_its_index)
{
	uint32_t n = machine(CPU_STARTING), slot = 0;
	CHECK_EQ_U(n, 768);
	CHECK_EQ_U(smp_slot_find(pc, n, 1, &slot), SMP_WAKER_STARTING);
	CHECK_EQ_U(slot, 1);
	CHECK_EQ_U(smp_slot_find(pc, n, 255, &slot), SMP_WAKER_STARTING); /* x2APIC ID 255 is a CPU, not a broadcast */
	CHECK_EQ_U(slot, 255);
	CHECK_EQ_U(smp_slot_find(pc, n, SOCKET1 | 383, &slot), SMP_WAKER_STARTING);
	CHECK_EQ_U(slot, 767);
}

TEST(one_the_bsp_gave_up_on_is_late)
{
	uint32_t n = machine(CPU_ONLINE), slot = 99;
	pc[2].state = CPU_FAILED;
	pc[13].state = CPU_FAILED;
	CHECK_EQ_U(smp_slot_find(pc, n, 2, &slot), SMP_WAKER_LATE);
	CHECK_EQ_U(smp_slot_find(pc, n, 13, &slot), SMP_WAKER_LATE);
	CHECK_EQ_U(slot, 99); /* untouched: it gets no slot */
}

TEST(one_nobody_started_is_a_stray)
{
	uint32_t n = machine(CPU_ONLINE), slot = 99;
	CHECK_EQ_U(smp_slot_find(pc, n, 3, &slot), SMP_WAKER_STRAY);      /* already online: a second wake-up */
	CHECK_EQ_U(smp_slot_find(pc, n, 384, &slot), SMP_WAKER_STRAY);    /* no CPU has it (the gap below socket 1) */
	CHECK_EQ_U(smp_slot_find(pc, n, 0, &slot), SMP_WAKER_STRAY);      /* the BSP's: slot 0 is never an AP's */
	pc[5].state = CPU_PARKED;
	CHECK_EQ_U(smp_slot_find(pc, n, 5, &slot), SMP_WAKER_STRAY);      /* left out by cpus=, woken twice */
	CHECK_EQ_U(smp_slot_find(pc, 5, 5, &slot), SMP_WAKER_STRAY);      /* beyond the slots in use */
	CHECK_EQ_U(slot, 99);
}

TEST(a_starting_slot_wins_over_a_failed_one_of_the_same_id)
{
	uint32_t n = machine(CPU_ONLINE), slot = 0;
	pc[7].state = CPU_FAILED; /* a firmware table listing APIC ID 7 twice: the one still starting is this AP's */
	pc[n] = pc[7];
	pc[n].state = CPU_STARTING;
	CHECK_EQ_U(smp_slot_find(pc, n + 1, 7, &slot), SMP_WAKER_STARTING);
	CHECK_EQ_U(slot, n);
}

/* The counts of the boot and done records (issue 36): QEMU 10's 288 CPUs with cpus=16 and a start bound of
 * 150 ms: 15 APs online beside the BSP, 272 parked by cpus=, one AP that checked in after the bound (its slot
 * failed, it parked itself) not started; every CPU in exactly one count, and found their sum. A CPU lost in a
 * run, one still starting, one excluded that did not park, and one the firmware lists without a slot are
 * counted too, and an absent slot is not a CPU. */
TEST(every_cpu_found_is_counted_once)
{
	struct report_cpus c;
	uint32_t n = 288;
	for (uint32_t i = 0; i < n; i++)
		pc[i].state = i < 16 ? CPU_ONLINE : CPU_PARKED;
	pc[15].state = CPU_FAILED; /* the late one */
	smp_count(pc, n, n, &c);
	CHECK(c.known);
	CHECK_EQ_U(c.found, 288);
	CHECK_EQ_U(c.online, 15);
	CHECK_EQ_U(c.parked, 272);
	CHECK_EQ_U(c.not_started, 1);
	CHECK_EQ_U(c.lost, 0);
	CHECK_EQ_U(c.online + c.parked + c.not_started + c.lost, c.found);
	pc[1].state = CPU_LOST;
	pc[2].state = CPU_HALTED;      /* online to the end of the run, halted after it */
	pc[3].state = CPU_STARTING;
	pc[16].state = CPU_EXCLUDED;   /* to be parked, and it did not */
	pc[17].state = CPU_ABSENT;     /* no CPU */
	smp_count(pc, n, n, &c);       /* 288 listed, one of the slots absent: one found without a slot */
	CHECK_EQ_U(c.online, 13);
	CHECK_EQ_U(c.lost, 1);
	CHECK_EQ_U(c.parked, 270);
	CHECK_EQ_U(c.not_started, 4);
	CHECK_EQ_U(c.online + c.parked + c.not_started + c.lost, c.found);
	smp_count(pc, 0, 0, &c);
	CHECK(!c.known);
}

int main(void)
{
	RUN(a_starting_slot_is_found_with_its_index);
	RUN(one_the_bsp_gave_up_on_is_late);
	RUN(one_nobody_started_is_a_stray);
	RUN(a_starting_slot_wins_over_a_failed_one_of_the_same_id);
	RUN(every_cpu_found_is_counted_once);
	return check_summary("smp_slot");
}
