/* test_usb_xhci.c - host tests of the real xHCI driver and the stick's Bulk-Only path (kernel/usb/xhci*.c, usb.c, usb_enum.c, bot.c) against the model controller of xhci_model.h, for what QEMU's controllers cannot show: port speeds from Supported Protocol PSIs (a 10 Gb/s port, custom speed IDs, the default IDs of SuperSpeedPlus), a warm reset for a link stuck in SS.Inactive, enumeration tried again after a fresh port reset, a transfer that gets no answer and completes late (its event dropped, the endpoint stopped and its ring moved past it before the buffer is used again, then a reset recovery), a short read whose CSW says residue 0, transaction errors, babble and split transaction errors that halt an endpoint, the Chain bit of link TRBs on an xHCI 0.95 and a 1.0, and a stick on a hub port above 15. */
#include "check.h"
#include "lib.h"
#include "usb.h"
#include "xhci_dev.h"
#include "xhci_model.h"
#include "xhci_port.h"

#define DCI_IN 3                          /* the stick's bulk IN 0x81 */
#define DCI_OUT 4                         /* bulk OUT 0x02 */
#define GBPS(g) (3u << 4 | (uint32_t)(g) << 16)   /* a PSI's exponent (Gb/s) and mantissa */
#define LP_SSP (1u << 14)                          /* link protocol SuperSpeedPlus */

static struct usb_stick stick;

/* A USB 2 protocol on ports 1-2 and a USB 3 one on 3-6 with psi (or the default IDs). */
static void controller(uint16_t version, const uint32_t *psi, uint8_t psic)
{
	xm_free_all();
	xm_reset(version);
	xm_protocol(2, 1, 2, 0, 0);
	xm_protocol(3, 3, 4, psi, psic);
}

static bool open_path(const uint8_t *ports, uint8_t n)
{
	struct boot_results r;
	memset(&r, 0, sizeof(r));
	r.n_ports = n;
	memcpy(r.ports, ports, n);
	bool ok = usb_stick_open(&stick, &r);
	if (!ok)
		printf("    open: %s\n", stick.why);
	return ok;
}

static bool open_on(uint8_t port)
{
	return open_path(&port, 1);
}

static void fill(uint32_t lba, uint8_t v)
{
	memset(xm.stick.disk + (size_t)lba * XM_BS, v, XM_BS);
}

/* ---- Speeds --------------------------------------------------------------------------- */
static const uint32_t psi[] = {
	4 | GBPS(5),                  /* SuperSpeed Gen 1 x1 */
	5 | GBPS(10) | LP_SSP,        /* SuperSpeedPlus Gen 2 x1 */
	14 | GBPS(10) | LP_SSP,       /* a custom ID for 10 Gb/s (ASMedia, Intel Type-C) */
	15 | GBPS(20) | LP_SSP,       /* and one for 20 Gb/s */
};

TEST(speeds_come_from_the_psis)
{
	struct xhci_dev d;
	struct pci_addr a = { 0, 0, 5, 0 };
	controller(0x0110, psi, 4);
	CHECK(xhci_start(&stick.x, a));
	memset(&d, 0, sizeof(d));
	CHECK(xhci_port_speed(&stick.x, 3, 14, &d));
	CHECK_EQ_U(d.speed, XHCI_SPEED_SUPER);
	CHECK_EQ_U(d.kbps, 10000000);
	CHECK(xhci_port_speed(&stick.x, 4, 15, &d));
	CHECK_EQ_U(d.kbps, 20000000);
	CHECK_EQ_U(d.speed, XHCI_SPEED_SUPER);
	CHECK(xhci_port_speed(&stick.x, 1, XHCI_PSIV_HIGH, &d)); /* USB 2 ports: the default IDs */
	CHECK_EQ_U(d.speed, XHCI_SPEED_HIGH);
	CHECK(xhci_port_speed(&stick.x, 2, XHCI_PSIV_LOW, &d));
	CHECK_EQ_U(d.speed, XHCI_SPEED_LOW);
	CHECK(xhci_port_speed(&stick.x, 3, 9, &d));              /* an ID the table lacks, on a USB 3 port: */
	CHECK_EQ_U(d.speed, XHCI_SPEED_SUPER);                   /* still SuperSpeed, its rate unknown */
	CHECK_EQ_U(d.kbps, 0);
	CHECK(!xhci_port_speed(&stick.x, 1, 9, &d));             /* no such ID on a USB 2 port */
	CHECK(strstr(stick.x.why, "speed ID 9") != NULL);
	/* Without PSIs, SuperSpeedPlus's default IDs 5-7 (Table 7-13): not low speed. */
	controller(0x0110, 0, 0);
	CHECK(xhci_start(&stick.x, a));
	CHECK(xhci_port_speed(&stick.x, 3, XHCI_PSIV_SSP_G2X1, &d));
	CHECK_EQ_U(d.speed, XHCI_SPEED_SUPER);
	CHECK_EQ_U(d.kbps, 10000000);
	CHECK(xhci_port_speed(&stick.x, 3, XHCI_PSIV_SSP_G2X2, &d));
	CHECK_EQ_U(d.kbps, 20000000);
}

/* A stick on a 10 Gb/s port with a custom speed ID opens as SuperSpeed:
 * EP0's 512 bytes, the port's ID in the slot context. */
TEST(a_stick_on_a_custom_10_gbps_port)
{
	controller(0x0110, psi, 4);
	xm_stick(-1, 5, 14, true, false);
	CHECK(open_on(5));
	CHECK_EQ_U(stick.disk->speed, XHCI_SPEED_SUPER);
	CHECK_EQ_U(stick.disk->kbps, 10000000);
	CHECK_EQ_U(xm.addr_speed[stick.disk->slot], 14);
	CHECK_EQ_U(xm.addr_mps0[stick.disk->slot], 512);
	CHECK_EQ_U(xm.stick.ops[0], SCSI_INQUIRY);
	CHECK_STR(stick.ident, "MODEL XHCI STICK 1.0");
	controller(0x0110, 0, 0);                                /* default ID 5: SuperSpeedPlus */
	xm_stick(-1, 3, XHCI_PSIV_SSP_G2X1, true, false);
	CHECK(open_on(3));
	CHECK_EQ_U(xm.addr_mps0[stick.disk->slot], 512);
}

TEST(a_link_stuck_in_ss_inactive_gets_a_warm_reset)
{
	controller(0x0110, psi, 4);
	xm_stick(-1, 4, 4, true, false);
	xm.port[4].stuck = true;
	xm.port[4].portsc = XHCI_PORT_PP | XHCI_PORT_CCS | XHCI_PLS_INACTIVE << 5;
	CHECK(open_on(4));
	CHECK(strchr(xm.log, 'W') != NULL && strchr(xm.log, 'W') < strchr(xm.log, 'A'));
}

/* A device that does not take its address at first: the slot is given back,
 * the port reset again, and the next try works (Linux hub_port_init). */
TEST(enumeration_is_tried_again_with_a_fresh_reset)
{
	controller(0x0110, psi, 4);
	xm_stick(-1, 2, XHCI_PSIV_HIGH, false, false);
	xm.fail_address = 2;
	CHECK(open_on(2));
	CHECK_EQ_U(xm.port_resets, 3);
	CHECK(strncmp(xm.log, "DDA", 3) == 0);
	controller(0x0110, psi, 4);
	xm_stick(-1, 2, XHCI_PSIV_HIGH, false, false);
	xm.fail_address = 4;
	struct boot_results r;
	memset(&r, 0, sizeof(r));
	r.n_ports = 1;
	r.ports[0] = 2;
	CHECK(!usb_stick_open(&stick, &r));
	CHECK(strstr(stick.why, "(tried 4 times)") != NULL);
}

/* ---- Timeouts ------------------------------------------------------------------------- */
/* A read whose data gets no answer, then completes while the endpoint is
 * being stopped: the late event is dropped, the ring's dequeue pointer is
 * moved past it before the call returns (so the bounce buffer is free),
 * the stick gets its reset recovery, and the next read is right. */
TEST(a_transfer_that_times_out_and_completes_late)
{
	static uint8_t buf[XM_BS];
	for (int late = 1; late >= 0; late--) {
		controller(0x0110, psi, 4);
		xm_stick(-1, 1, XHCI_PSIV_HIGH, false, false);
		CHECK(open_on(1));
		fill(5, 0xa5);
		fill(6, 0xb6);
		uint32_t dropped = stick.x.dropped;
		xm.n_log = 0;
		memset(xm.log, 0, sizeof(xm.log));
		xm.hold_dci = DCI_IN;
		xm.late = late;
		CHECK(!usb_stick_rw(&stick, false, 5, 1, buf));
		CHECK(strstr(stick.why, "no answer within 30000 ms") != NULL);
		CHECK(strstr(stick.why, "(the stick was reset)") != NULL);
		CHECK_EQ_U(stick.x.dropped, dropped + 1);              /* the late (or stopped) event */
		CHECK(strncmp(xm.log, late ? "LSQR" : "PSQR", 4) == 0); /* stopped, stepped over, then the class reset */
		if (strncmp(xm.log, late ? "LSQR" : "PSQR", 4))
			printf("    log: %s\n", xm.log);
		CHECK_EQ_U(xm.late_writes, (unsigned)late);
		CHECK_EQ_U(xm.set_deq[DCI_IN] & ~0xfull, xm.held_trb + 16);
		CHECK_EQ_U(xm.stick.resets, 1);
		CHECK_EQ_U(xm.stick.halts_cleared[0x81], 1);
		CHECK_EQ_U(xm.stick.halts_cleared[0x02], 1);
		memset(buf, 0, sizeof(buf));
		CHECK(usb_stick_rw(&stick, false, 6, 1, buf));
		CHECK_EQ_U(buf[0], 0xb6);
		CHECK_EQ_U(buf[XM_BS - 1], 0xb6);
		CHECK_EQ_U(xm.stale_trbs, 0);
		CHECK(!strchr(xm.log, 'X'));                           /* no doorbell on a halted ring */
	}
}

/* ---- Halts ------------------------------------------------------------------------------ */
/* Every completion code that halts an endpoint (xHCI 4.10.2.1) brings it
 * back: Reset Endpoint and Set TR Dequeue Pointer, then the stick's reset
 * recovery; the next transfer goes through. */
TEST(errors_that_halt_the_endpoint_are_recovered)
{
	static const struct {
		uint32_t cc;
		uint8_t dci;
	} cases[] = {
		{ XHCI_CC_TRANSACTION, DCI_OUT },
		{ XHCI_CC_BABBLE, DCI_IN },
		{ XHCI_CC_SPLIT_TRANSACTION, DCI_IN },
	};
	static uint8_t buf[XM_BS];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		controller(0x0110, psi, 4);
		xm_stick(-1, 1, XHCI_PSIV_HIGH, false, false);
		CHECK(open_on(1));
		xm.n_log = 0;
		memset(xm.log, 0, sizeof(xm.log));
		xm.fail_dci = cases[i].dci;
		xm.fail_cc = cases[i].cc;
		memset(buf, 0x11, sizeof(buf));
		CHECK(!usb_stick_rw(&stick, cases[i].dci == DCI_OUT, 7, 1, buf));
		CHECK(strstr(stick.why, "failed with completion code") != NULL);
		CHECK(strncmp(xm.log, "EQR", 3) == 0);
		if (strncmp(xm.log, "EQR", 3))
			printf("    cc %u log: %s\n", cases[i].cc, xm.log);
		CHECK_EQ_U(xhci_ep_state(&stick.x, stick.disk, cases[i].dci == DCI_OUT ? &stick.disk->out : &stick.disk->in),
			   XHCI_EPS_RUNNING);
		CHECK(usb_stick_rw(&stick, true, 7, 1, buf));
		CHECK_EQ_U(xm.stick.disk[7 * XM_BS], 0x11);
		CHECK(!strchr(xm.log, 'X'));
	}
}

/* A read that comes one block short while the CSW says residue 0: failed,
 * and not a byte of the bounce buffer copied out. */
TEST(a_short_read_with_residue_zero)
{
	static uint8_t buf[2 * XM_BS];
	controller(0x0110, psi, 4);
	xm_stick(-1, 1, XHCI_PSIV_HIGH, false, false);
	CHECK(open_on(1));
	fill(8, 0x88);
	fill(9, 0x99);
	xm.stick.short_zero = true;
	memset(buf, 0xaa, sizeof(buf));
	CHECK(!usb_stick_rw(&stick, false, 8, 2, buf));
	CHECK(strstr(stick.why, "moved 512 bytes less than asked") != NULL);
	CHECK_EQ_U(buf[0], 0xaa);
	CHECK_EQ_U(buf[2 * XM_BS - 1], 0xaa);
}

/* ---- Rings and routes ----------------------------------------------------------------------- */
/* Enough transfers to wrap every ring: an xHCI 0.95 gets every link TRB
 * chained (Linux XHCI_LINK_TRB_QUIRK); a 1.0 gets the Chain bit of the TRB
 * before it, which for this driver's one-TRB TDs is never set. */
TEST(link_trbs_and_the_chain_bit)
{
	static uint8_t buf[XM_BS];
	static const uint16_t versions[] = { 0x0095, 0x0100 };
	for (size_t v = 0; v < 2; v++) {
		controller(versions[v], psi, 4);
		xm_stick(-1, 1, XHCI_PSIV_HIGH, false, false);
		CHECK(open_on(1));
		for (int i = 0; i < 260; i++)
			CHECK(usb_stick_rw(&stick, true, 10, 1, buf));
		CHECK(xm.links_chained + xm.links_unchained >= 3); /* the bulk OUT ring twice, the IN ring once */
		if (versions[v] == 0x0095)
			CHECK(xm.links_chained > 0 && xm.links_unchained == 0);
		else
			CHECK(xm.links_unchained > 0 && xm.links_chained == 0);
	}
}

/* A stick on port 17 of a 20-port USB 2 hub: the route string says 15. */
TEST(a_hub_port_above_15)
{
	static uint8_t buf[XM_BS];
	static const uint8_t path[2] = { 1, 17 };
	controller(0x0110, psi, 4);
	int hub = xm_hub(-1, 1, XHCI_PSIV_HIGH, 20);
	xm_stick(hub, 17, 0, false, true);
	CHECK(open_path(path, 2));
	CHECK_EQ_U(stick.disk->route, 0xf);
	CHECK_EQ_U(xm.addr_route[stick.disk->slot], 0xf);
	CHECK_EQ_U(xm.route_errors, 0);
	CHECK_EQ_U(stick.disk->speed, XHCI_SPEED_HIGH);
	fill(3, 0x33);
	CHECK(usb_stick_rw(&stick, false, 3, 1, buf));
	CHECK_EQ_U(buf[100], 0x33);
	CHECK_EQ_U(xhci_route(0x21, 3, 200), 0xf21);
}

int main(void)
{
	RUN(speeds_come_from_the_psis);
	RUN(a_stick_on_a_custom_10_gbps_port);
	RUN(a_link_stuck_in_ss_inactive_gets_a_warm_reset);
	RUN(enumeration_is_tried_again_with_a_fresh_reset);
	RUN(a_transfer_that_times_out_and_completes_late);
	RUN(errors_that_halt_the_endpoint_are_recovered);
	RUN(a_short_read_with_residue_zero);
	RUN(link_trbs_and_the_chain_bit);
	RUN(a_hub_port_above_15);
	xm_free_all();
	return check_summary("usb_xhci");
}
