/* test_usb_bot.c - host tests for kernel/usb/usb.c's Bulk-Only Transport and SCSI (and usb_enum.c's bring-up) over a model of a stick behind a stubbed xHCI: the open sequence (descriptors as QEMU's usb-storage gives them, INQUIRY first, the endpoints configured before SET_CONFIGURATION, a unit attention before ready, enumeration tried again), block reads and writes, and each way a device can misbehave (BOT 1.0 §6.7): a stalled data stage, a stalled status stage, a phase error, a wrong tag, a short transfer (with a CSW that owns up to it, or says residue 0), no answer at all (a reset recovery, BOT §5.3.4); SYNCHRONIZE CACHE. */
#include <stdlib.h>

#include "bot.h"
#include "check.h"
#include "console.h"
#include "fmt.h"
#include "pci_class.h"
#include "pmm.h"
#include "tsc.h"
#include "usb.h"

#define BLOCKS 64
#define BS 512

/* ---- The device ------------------------------------------------------------ */
/* QEMU 7.2 hw/usb/dev-storage.c's high-speed descriptors. */
static const uint8_t dev_desc[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x27, 0x06, 0x01, 0x00, 0, 0, 1, 2, 3, 1 };
static const uint8_t cfg_desc[32] = {
	9, 2, 32, 0, 1, 1, 0, 0xc0, 50,                 /* configuration 1, one interface */
	9, 4, 0, 0, 2, 0x08, 0x06, 0x50, 0,             /* mass storage, SCSI, Bulk-Only */
	7, 5, 0x81, 2, 0x00, 0x02, 0,                   /* bulk IN 1, 512 bytes */
	7, 5, 0x02, 2, 0x00, 0x02, 0,                   /* bulk OUT 2, 512 bytes */
};

/* A keyboard's (HID boot interface, interrupt IN): not a stick. */
static const uint8_t kbd_cfg[25] = {
	9, 2, 25, 0, 1, 1, 0, 0xa0, 50,
	9, 4, 0, 0, 1, 0x03, 0x01, 0x01, 0,
	7, 5, 0x81, 3, 8, 0, 10,
};
static bool serve_keyboard;

/* What went to the device and the controller, in order: one letter a step
 * (A address, B bulk endpoints configured, C SET_CONFIGURATION, R class
 * reset, H a halt cleared, T a toggle reset, D a slot disabled), and the
 * SCSI operation codes in cmds. */
static char steps[64];
static unsigned n_steps;
static uint8_t cmds[64];
static unsigned n_cmds;
static int address_failures;      /* xhci_dev_address fails this many more times */

static void step(char c)
{
	if (n_steps + 1 < sizeof(steps))
		steps[n_steps++] = c;
}

enum fault { F_NONE, F_STALL_DATA, F_STALL_CSW, F_PHASE, F_BAD_TAG, F_SHORT, F_SHORT_ZERO, F_NO_ANSWER };

static struct {
	uint8_t disk[BLOCKS * BS];
	enum fault fault;             /* for the next command that moves data */
	int unit_attention;           /* TEST UNIT READY fails this many more times */
	uint8_t sense_key, asc;
	struct bot_cbw cbw;           /* the command in progress */
	int phase;                    /* 0 wants a CBW, 1 data, 2 CSW */
	uint8_t status;
	uint32_t residue;
	uint8_t data[64 * 1024];
	uint32_t data_len;
	int halts_cleared[256];       /* CLEAR_FEATURE(ENDPOINT_HALT) per endpoint address */
	int csw_stalled;
	unsigned commands;
	unsigned resets;              /* Bulk-Only Mass Storage Resets */
} dev;

static void reset_dev(void)
{
	memset(&dev, 0, sizeof(dev));
	dev.unit_attention = 1;
	dev.sense_key = 0x6;
	dev.asc = 0x28;
}

/* A CBW arrives: run the command against the RAM disk. */
static void command(const struct bot_cbw *c)
{
	uint32_t lba = (uint32_t)c->cb[2] << 24 | (uint32_t)c->cb[3] << 16 | (uint32_t)c->cb[4] << 8 | c->cb[5];
	uint32_t n = (uint32_t)c->cb[7] << 8 | c->cb[8];
	dev.cbw = *c;
	dev.status = BOT_PASSED;
	dev.residue = 0;
	dev.data_len = c->data_len;
	dev.commands++;
	if (n_cmds < sizeof(cmds))
		cmds[n_cmds++] = c->cb[0];
	switch (c->cb[0]) {
	case SCSI_TEST_UNIT_READY:
		if (dev.unit_attention > 0) {
			dev.unit_attention--;
			dev.status = BOT_FAILED;
		}
		break;
	case SCSI_REQUEST_SENSE:
		memset(dev.data, 0, SCSI_SENSE_LEN);
		dev.data[0] = 0x70;
		dev.data[2] = dev.sense_key;
		dev.data[7] = 10;
		dev.data[12] = dev.asc;
		break;
	case SCSI_READ_CAPACITY10:
		memset(dev.data, 0, 8);
		dev.data[3] = BLOCKS - 1;
		dev.data[6] = BS >> 8;
		break;
	case SCSI_READ10:
		memcpy(dev.data, dev.disk + (size_t)lba * BS, (size_t)n * BS);
		break;
	case SCSI_INQUIRY:
		memset(dev.data, ' ', SCSI_INQUIRY_LEN);
		dev.data[0] = 0;
		memcpy(dev.data + 8, "QEMU", 4);
		memcpy(dev.data + 16, "QEMU HARDDISK", 13);
		memcpy(dev.data + 32, "2.5+", 4);
		break;
	case SCSI_WRITE10:
	case SCSI_SYNC_CACHE10:
		break;
	}
	dev.phase = c->data_len ? 1 : 2;
}

/* ---- Stubs of what usb.c uses ------------------------------------------------ */
uint64_t tsc_deadline_ms(uint64_t ms) { return tsc_read() + ms * 1000; }
void tsc_delay_us(uint64_t us) { (void)us; }
struct rec *console_rec_open(const char *kind) { (void)kind; return 0; }
void console_rec_emit(struct rec *r) { (void)r; }
void rec_str(struct rec *r, const char *k, const char *v) { (void)r, (void)k, (void)v; }

/* The kernel never frees what it takes; the test frees it all between opens. */
static void *taken[64];
static unsigned n_taken;

static void give_back(void)
{
	while (n_taken)
		free(taken[--n_taken]);
}

uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	(void)node, (void)max_end, (void)owner;
	void *p = n_taken < 64 ? aligned_alloc(align, pages * PMM_PAGE) : NULL;
	if (p) {
		memset(p, 0, pages * PMM_PAGE);
		taken[n_taken++] = p;
	}
	return (uint64_t)(uintptr_t)p;
}

void *xhci_dma(struct xhci *x, uint64_t bytes)
{
	(void)x;
	return (void *)(uintptr_t)pmm_alloc((bytes + PMM_PAGE - 1) / PMM_PAGE, 0, PMM_PAGE, 0, PMM_KERNEL);
}

/* The controller's PCI class: an xHCI unless a test says otherwise. */
static uint32_t hc_class = PCI_CLASS_USB_XHCI;
static unsigned xhci_starts;
bool pci_present(struct pci_addr a) { (void)a; return true; }
uint32_t pci_class(struct pci_addr a) { (void)a; return hc_class; }

bool xhci_start(struct xhci *x, struct pci_addr a)
{
	xhci_starts++;
	memset(x, 0, sizeof(*x));
	x->pci = a;
	x->max_ports = 4;
	x->ac64 = true;
	x->handoff = "no USB Legacy Support capability";
	return true;
}

void xhci_set_trace(bool on) { (void)on; }
bool xhci_stop(struct xhci *x) { x->dead = true; return true; }
uint32_t xhci_route(uint32_t r, uint32_t t, uint32_t p) { return r | (p < 15 ? p : 15) << (4 * (t - 1)); }
bool xhci_root_port_reset(struct xhci *x, uint8_t port, struct xhci_dev *d, bool again)
{
	(void)again;
	(void)x, (void)port;
	d->speed = XHCI_SPEED_HIGH;
	d->psiv = 3;
	d->kbps = 480000;
	return true;
}
bool xhci_dev_address(struct xhci *x, struct xhci_dev *d)
{
	d->slot = 1;
	d->mps0 = 64;
	d->ep0.dci = 1;
	if (address_failures > 0) {
		address_failures--;
		fmt_snprintf(x->why, sizeof(x->why), "address device command failed with completion code 4");
		return false;
	}
	step('A');
	return true;
}
void xhci_dev_disable(struct xhci *x, struct xhci_dev *d) { (void)x; d->slot = 0; step('D'); }
bool xhci_dev_set_mps0(struct xhci *x, struct xhci_dev *d, uint16_t mps) { (void)x; d->mps0 = mps; return true; }
bool xhci_dev_set_hub(struct xhci *x, struct xhci_dev *d, uint8_t n) { (void)x, (void)d, (void)n; return true; }
bool xhci_ep_reset_toggle(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep) { (void)x, (void)d, (void)ep; step('T'); return true; }

bool xhci_dev_bulk(struct xhci *x, struct xhci_dev *d, uint8_t eo, uint16_t mo, uint8_t ei, uint16_t mi)
{
	(void)x, (void)mo, (void)mi;
	CHECK_EQ_U(eo, 0x02);
	CHECK_EQ_U(ei, 0x81);
	d->out.dci = 4;
	d->in.dci = 3;
	d->out.addr = eo;
	d->in.addr = ei;
	step('B');
	return true;
}

bool xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		  void *buf, uint16_t len, uint32_t *got)
{
	(void)x, (void)d;
	uint32_t n = 0;
	if (type == 0x80 && req == 6 && value >> 8 == 1)
		memcpy(buf, dev_desc, n = len < sizeof(dev_desc) ? len : sizeof(dev_desc));
	else if (type == 0x80 && req == 6 && value >> 8 == 2 && serve_keyboard)
		memcpy(buf, kbd_cfg, n = len < sizeof(kbd_cfg) ? len : sizeof(kbd_cfg));
	else if (type == 0x80 && req == 6 && value >> 8 == 2)
		memcpy(buf, cfg_desc, n = len < sizeof(cfg_desc) ? len : sizeof(cfg_desc));
	else if (type == 0x02 && req == 1 && value == 0) {
		dev.halts_cleared[index & 0xff]++;
		step('H');
	} else if (type == 0x00 && req == 9)
		step('C');
	else if (type == 0x21 && req == 0xff) {
		dev.resets++;
		dev.phase = 0;
		step('R');
	}
	if (got)
		*got = n;
	return true;
}

bool xhci_bulk_xfer(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *got,
		    uint32_t *code)
{
	(void)d;
	*got = 0;
	*code = XHCI_CC_SUCCESS;
	if (dev.phase == 0) {                                   /* the CBW */
		CHECK(!in && len == sizeof(struct bot_cbw));
		command(buf);
		*got = len;
		return true;
	}
	bool moves = dev.cbw.cb[0] == SCSI_READ10 || dev.cbw.cb[0] == SCSI_WRITE10;
	if (dev.phase == 1) {                                   /* data */
		CHECK_EQ_U(in, (dev.cbw.flags & BOT_CBW_IN) != 0);
		if (moves && dev.fault == F_NO_ANSWER) {
			fmt_snprintf(x->why, sizeof(x->why), "no answer within 2000 ms");
			*code = 0;
			return false;
		}
		if (moves && dev.fault == F_STALL_DATA) {
			dev.status = BOT_FAILED;
			dev.sense_key = 0x7; /* data protect: write protected */
			dev.asc = 0x27;
			dev.phase = 2;
			*code = XHCI_CC_STALL;
			fmt_snprintf(x->why, sizeof(x->why), "the device stalled a bulk transfer");
			return false;
		}
		uint32_t n = len;
		if (moves && (dev.fault == F_SHORT || dev.fault == F_SHORT_ZERO)) {
			n = len - BS;
			dev.residue = dev.fault == F_SHORT ? BS : 0; /* F_SHORT_ZERO: a CSW that says all of it moved */
		}
		if (in)
			memcpy(buf, dev.data, n);
		else if (dev.cbw.cb[0] == SCSI_WRITE10) {
			uint32_t lba = (uint32_t)dev.cbw.cb[2] << 24 | (uint32_t)dev.cbw.cb[3] << 16 |
				       (uint32_t)dev.cbw.cb[4] << 8 | dev.cbw.cb[5];
			memcpy(dev.disk + (size_t)lba * BS, buf, n);
		}
		*got = n;
		dev.phase = 2;
		if (moves && n < len)
			*code = XHCI_CC_SHORT_PACKET;
		return true;
	}
	CHECK(in && len == sizeof(struct bot_csw));                 /* the CSW */
	if (moves && dev.fault == F_STALL_CSW && !dev.csw_stalled) {
		dev.csw_stalled = 1;
		*code = XHCI_CC_STALL;
		return false;
	}
	struct bot_csw csw = { BOT_CSW_SIGNATURE, dev.cbw.tag, dev.residue, dev.status };
	if (moves && dev.fault == F_PHASE)
		csw.status = BOT_PHASE_ERROR;
	if (moves && dev.fault == F_BAD_TAG)
		csw.tag ^= 0x100;
	memcpy(buf, &csw, sizeof(csw));
	*got = sizeof(csw);
	dev.phase = 0;
	return true;
}

/* ---- Tests ------------------------------------------------------------------ */
static struct usb_stick stick;

static bool open_stick(void)
{
	struct boot_results r;
	memset(&r, 0, sizeof(r));
	r.n_ports = 1;
	r.ports[0] = 1;
	reset_dev();
	give_back();
	n_steps = n_cmds = 0;
	memset(steps, 0, sizeof(steps));
	return usb_stick_open(&stick, &r);
}

TEST(open_waits_out_a_unit_attention)
{
	CHECK(open_stick());
	CHECK_EQ_U(stick.block_size, BS);
	CHECK_EQ_U(stick.blocks, BLOCKS);
	CHECK_EQ_U(dev.unit_attention, 0); /* TEST UNIT READY was asked again after it failed */
}

TEST(blocks_written_read_back)
{
	static uint8_t out[3 * BS], in[3 * BS];
	CHECK(open_stick());
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 1);
	CHECK(usb_stick_rw(&stick, true, 5, 3, out));
	CHECK(memcmp(dev.disk + 5 * BS, out, sizeof(out)) == 0);
	CHECK(usb_stick_rw(&stick, false, 5, 3, in));
	CHECK(memcmp(in, out, sizeof(in)) == 0);
	unsigned before = dev.commands;
	CHECK(!usb_stick_rw(&stick, true, BLOCKS - 1, 2, out)); /* past the end: refused, nothing sent */
	CHECK_EQ_U(dev.commands, before);
	CHECK(strstr(stick.why, "past the end") != NULL);
}

TEST(stalled_data_clears_the_halt_and_reports_the_sense)
{
	static uint8_t out[BS];
	CHECK(open_stick());
	dev.fault = F_STALL_DATA;
	CHECK(!usb_stick_rw(&stick, true, 0, 1, out));
	CHECK_EQ_U(dev.halts_cleared[0x02], 1);
	CHECK(strstr(stick.why, "the command failed") != NULL);
	CHECK(strstr(stick.why, "sense key 0x7 asc 0x27") != NULL);
}

TEST(stalled_status_is_read_again)
{
	static uint8_t out[BS];
	CHECK(open_stick());
	dev.fault = F_STALL_CSW;
	CHECK(usb_stick_rw(&stick, true, 0, 1, out));
	CHECK_EQ_U(dev.halts_cleared[0x81], 1);
}

TEST(bad_status_wrappers_fail)
{
	static uint8_t buf[2 * BS];
	static const struct {
		enum fault f;
		const char *why;
	} cases[] = {
		{ F_PHASE, "phase error: the device needs a reset recovery" },
		{ F_BAD_TAG, "the status wrapper answers another command (tag)" },
		{ F_SHORT, "moved 512 bytes less than asked" },
		{ F_NO_ANSWER, "no answer within 2000 ms" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(open_stick());
		dev.fault = cases[i].f;
		CHECK(!usb_stick_rw(&stick, false, 0, 2, buf));
		CHECK(strstr(stick.why, cases[i].why) != NULL);
		if (!strstr(stick.why, cases[i].why))
			printf("    got: %s\n", stick.why);
	}
}

TEST(paths_that_lead_nowhere_are_refused)
{
	struct boot_results r;
	memset(&r, 0, sizeof(r));
	CHECK(!usb_stick_open(&stick, &r));
	CHECK_STR(stick.why, "the loader recorded no USB path");
	serve_keyboard = true;
	CHECK(!open_stick());
	serve_keyboard = false;
	CHECK_STR(stick.why, "the device at the boot path is not a Bulk-Only SCSI mass-storage device");
	CHECK_EQ_U(dev.commands, 0); /* nothing was sent to it as to a stick */
}

TEST(a_stick_behind_another_controller_says_which_and_is_not_driven)
{
	static const struct {
		uint32_t cls;
		const char *why;
	} cases[] = {
		{ PCI_CLASS_USB_EHCI, "the stick is on an EHCI (0000:00:1d.7), which QuietBench does not drive (xHCI only)" },
		{ PCI_CLASS_USB_OHCI, "the stick is on an OHCI (0000:00:1d.7), which QuietBench does not drive (xHCI only)" },
		{ PCI_CLASS_USB_UHCI, "the stick is on a UHCI (0000:00:1d.7), which QuietBench does not drive (xHCI only)" },
	};
	struct boot_results r;
	memset(&r, 0, sizeof(r));
	r.n_ports = 1;
	r.ports[0] = 1;
	r.pci_dev = 0x1d;
	r.pci_fn = 7;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hc_class = cases[i].cls;
		xhci_starts = 0;
		reset_dev();
		CHECK(!usb_stick_open(&stick, &r));
		CHECK_STR(stick.why, cases[i].why);
		CHECK_EQ_U(xhci_starts, 0);
		CHECK_EQ_U(dev.commands, 0);
	}
	hc_class = PCI_CLASS_USB_XHCI;
}

TEST(inquiry_first_and_endpoints_before_set_configuration)
{
	CHECK(open_stick());
	CHECK(n_cmds >= 3);
	CHECK_EQ_U(cmds[0], SCSI_INQUIRY);        /* before TEST UNIT READY (EDK2, Linux, Windows) */
	CHECK_EQ_U(cmds[1], SCSI_TEST_UNIT_READY);
	CHECK(strncmp(steps, "ABC", 3) == 0);     /* addressed, endpoints configured, then SET_CONFIGURATION (xHCI 4.3.5) */
	if (strncmp(steps, "ABC", 3))
		printf("    steps: %s\n", steps);
	CHECK_STR(stick.ident, "QEMU QEMU HARDDISK 2.5+");
}

/* A short IN transfer whose CSW says residue 0: what did not arrive counts,
 * and nothing of the bounce buffer is copied out. */
TEST(a_short_read_with_residue_zero_is_not_copied)
{
	static uint8_t buf[2 * BS];
	CHECK(open_stick());
	memset(dev.disk, 0x5a, 2 * BS);
	memset(stick.bounce, 0xee, 2 * BS);      /* what an earlier command left there */
	memset(buf, 0xaa, sizeof(buf));
	dev.fault = F_SHORT_ZERO;
	CHECK(!usb_stick_rw(&stick, false, 0, 2, buf));
	CHECK(strstr(stick.why, "moved 512 bytes less than asked") != NULL);
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0xaa) {
			CHECK(buf[i] == 0xaa);
			break;
		}
	CHECK_EQ_U(dev.resets, 0);                /* the command completed: no transport failure */
}

/* No answer: the stick gets a reset recovery (BOT 5.3.4: class reset, then
 * both halts cleared with the controller's toggles) before anything else,
 * and works again afterwards. */
TEST(no_answer_resets_the_stick)
{
	static uint8_t out[BS];
	CHECK(open_stick());
	dev.fault = F_NO_ANSWER;
	n_steps = 0;
	memset(steps, 0, sizeof(steps));
	CHECK(!usb_stick_rw(&stick, true, 0, 1, out));
	CHECK(strstr(stick.why, "(the stick was reset)") != NULL);
	CHECK_EQ_U(dev.resets, 1);
	CHECK_STR(steps, "RHTHT");
	CHECK_EQ_U(dev.halts_cleared[0x81], 1);
	CHECK_EQ_U(dev.halts_cleared[0x02], 1);
	dev.fault = F_NONE;
	CHECK(usb_stick_rw(&stick, true, 0, 1, out));
	dev.fault = F_PHASE;
	CHECK(!usb_stick_rw(&stick, true, 0, 1, out));
	CHECK_EQ_U(dev.resets, 2);                /* a phase error too (BOT 6.7) */
}

TEST(enumeration_is_tried_again)
{
	address_failures = 2;
	CHECK(open_stick());
	CHECK(strncmp(steps, "DDA", 3) == 0);     /* each failed try gives its slot back */
	address_failures = 4;
	CHECK(!open_stick());
	CHECK(strstr(stick.why, "(tried 4 times)") != NULL);
	address_failures = 0;
}

TEST(sync_cache_goes_out)
{
	CHECK(open_stick());
	CHECK(usb_stick_sync(&stick));
	CHECK_EQ_U(cmds[n_cmds - 1], SCSI_SYNC_CACHE10);
}

int main(void)
{
	RUN(open_waits_out_a_unit_attention);
	RUN(blocks_written_read_back);
	RUN(stalled_data_clears_the_halt_and_reports_the_sense);
	RUN(stalled_status_is_read_again);
	RUN(bad_status_wrappers_fail);
	RUN(paths_that_lead_nowhere_are_refused);
	RUN(a_stick_behind_another_controller_says_which_and_is_not_driven);
	RUN(inquiry_first_and_endpoints_before_set_configuration);
	RUN(a_short_read_with_residue_zero_is_not_copied);
	RUN(no_answer_resets_the_stick);
	RUN(enumeration_is_tried_again);
	RUN(sync_cache_goes_out);
	give_back();
	return check_summary("usb_bot");
}
