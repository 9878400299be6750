/* test_usb_handoff.c - host tests for the BIOS handoffs of kernel/usb (uhci.c, ohci.c, ehci.c, xhci_handoff.c, usb_handoff.c) against register models that hold the controller for the BIOS (tests/unit/hc_model.c): a BIOS that lets go after some reads is waited for, one that never does is forced after 1 s of the reference clock (bounded, not a hang), each semaphore is written as its own byte, every SMI enable ends up off, each controller is stopped, Intel's shared ports are switched to the xHCI and put back, and the state record lists every controller. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ehci.h"
#include "ehci_regs.h"
#include "hc_model.h"
#include "ohci.h"
#include "ohci_regs.h"
#include "pci_class.h"
#include "record.h"
#include "uhci.h"
#include "uhci_regs.h"
#include "usb_handoff.h"
#include "xhci_handoff.h"
#include "xhci_regs.h"

#define BIOS_US (1000u * 1000u)         /* HC_BIOS_MS on the fake clock */
#define INTEL 0x8086

/* A handoff record set up as usb_handoff_all sets it up. */
static struct hc_handoff prepare(const struct model_fn *f, uint32_t cls)
{
	struct hc_handoff h;
	memset(&h, 0, sizeof(h));
	h.pci = f->a;
	h.cls = cls;
	h.vendor = (uint16_t)model_cfg32(f, PCI_VENDOR_ID);
	h.device = (uint16_t)(model_cfg32(f, PCI_VENDOR_ID) >> 16);
	return h;
}

/* The config-space writes to off, in order. */
static unsigned writes_at(uint32_t off, uint32_t *size, uint32_t *value)
{
	unsigned n = 0;
	for (unsigned i = 0; i < model_log_n; i++)
		if (model_log[i].off == off) {
			if (size)
				*size = model_log[i].size;
			if (value)
				*value = model_log[i].value;
			n++;
		}
	return n;
}

/* ---- UHCI ------------------------------------------------------------------ */
TEST(uhci_owned_by_the_bios_is_reset_with_its_smis_off)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_UHCI, 0x1d, 0, INTEL, 0x2934, true);
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_UHCI);
	uhci_handoff(&h);
	CHECK_STR(h.how, HC_TAKEN);
	CHECK_STR(h.stop, "reset");
	CHECK_EQ_U(h.legacy_before, 0x2010);
	CHECK_EQ_U(h.legacy_after & UHCI_LEGSUP_ENABLES, 0);    /* no SMI, no trap, no PIRQ */
	uint32_t size = 0, value = 0;
	CHECK_EQ_U(writes_at(UHCI_LEGSUP, &size, &value), 1);
	CHECK_EQ_U(size, 2);
	CHECK_EQ_U(value, UHCI_LEGSUP_RWC);
	CHECK_EQ_U(f->io[UHCI_USBCMD / 2], 0);                     /* stopped */
	CHECK_EQ_U(f->io[UHCI_USBINTR / 2], 0);
}

TEST(uhci_left_suspended_by_an_os_is_not_touched)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_UHCI, 0x1d, 0, INTEL, 0x2934, false);
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_UHCI);
	uhci_handoff(&h);
	CHECK_STR(h.how, HC_NOT_OWNED);
	CHECK_STR(h.stop, "already stopped and suspended");
	CHECK_EQ_U(model_log_n, 0);
	CHECK_EQ_U(f->io[UHCI_USBCMD / 2], UHCI_CMD_CF | UHCI_CMD_EGSM);
}

TEST(uhci_reset_that_never_ends_is_bounded)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_UHCI, 0x1d, 0, INTEL, 0x2934, true);
	f->reset_after = MODEL_NEVER;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_UHCI);
	uhci_handoff(&h);
	CHECK(strstr(h.stop, "did not complete within 10 ms") != NULL);
	CHECK(model_now_us >= 10000 && model_now_us < 11000);
	CHECK_EQ_U(f->io[UHCI_USBCMD / 2], 0);
}

TEST(uhci_without_io_decoding_is_left_alone)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_UHCI, 0x1d, 0, INTEL, 0x2934, true);
	f->cfg[PCI_COMMAND] = 0;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_UHCI);
	uhci_handoff(&h);
	CHECK_STR(h.how, HC_DECODE_OFF);
	CHECK_EQ_U(model_log_n, 0);
	CHECK(h.stop == NULL);
}

/* ---- OHCI ------------------------------------------------------------------ */
TEST(ohci_smm_driver_lets_go_when_asked)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_OHCI, 0x12, 0, 0x1002, 0x4397, true);
	f->release_after = 5;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_OHCI);
	ohci_handoff(&h);
	CHECK_STR(h.how, HC_TAKEN);
	CHECK_STR(h.stop, "reset");
	CHECK(h.legacy_before & OHCI_CTL_IR);
	CHECK_EQ_U(h.legacy_after & OHCI_CTL_IR, 0);
	CHECK_EQ_U(model_rd32(f, OHCI_HCINTERRUPTDISABLE), OHCI_INT_ALL);
	CHECK_EQ_U(model_rd32(f, OHCI_HCFMINTERVAL), 0x27782edf);   /* kept across the reset */
	CHECK(model_now_us < BIOS_US);
}

TEST(ohci_smm_driver_that_never_answers_is_forced_in_one_second)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_OHCI, 0x12, 0, 0x1002, 0x4397, true);
	f->release_after = MODEL_NEVER;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_OHCI);
	ohci_handoff(&h);
	CHECK_STR(h.how, HC_FORCED);
	CHECK(model_now_us >= BIOS_US && model_now_us < BIOS_US + 2000);
	CHECK_STR(h.stop, "reset");
}

TEST(ohci_uli_m5237_frame_interval_is_never_read)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_OHCI, 0x12, 0, 0x10b9, 0x5237, false);
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_OHCI);
	ohci_handoff(&h);
	CHECK_STR(h.how, HC_NOT_OWNED);
	CHECK_EQ_U(f->fm_reads, 0);
	model_reset();
	f = model_add(MODEL_OHCI, 0x12, 0, 0x1002, 0x4397, false);
	h = prepare(f, PCI_CLASS_USB_OHCI);
	ohci_handoff(&h);
	CHECK_EQ_U(f->fm_reads, 1);
}

/* ---- EHCI ------------------------------------------------------------------ */
TEST(ehci_bios_lets_go_and_each_semaphore_is_a_byte)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_EHCI, 0x1d, 7, INTEL, 0x293a, true);
	f->release_after = 4;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_EHCI);
	ehci_handoff(&h);
	CHECK_STR(h.how, HC_TAKEN);
	uint32_t size = 0, value = 0;
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_OS_BYTE, &size, &value), 1);
	CHECK_EQ_U(size, 1);
	CHECK_EQ_U(value, 1);
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP, 0, 0), 0);              /* never the whole dword */
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_BIOS_BYTE, 0, 0), 0);
	CHECK_EQ_U(model_cfg32(f, MODEL_EHCI_LEGSUP + EHCI_USBLEGCTLSTS), 0); /* SMIs off */
	CHECK_EQ_U(h.legacy_after & (EHCI_USBLEGSUP_BIOS_OWNED | EHCI_USBLEGSUP_OS_OWNED), EHCI_USBLEGSUP_OS_OWNED);
	CHECK_EQ_U(model_rd32(f, MODEL_EHCI_CAPLENGTH + EHCI_CONFIGFLAG), 0);
	CHECK_STR(h.stop, "halted");
	CHECK_EQ_U(model_rd32(f, MODEL_EHCI_CAPLENGTH + EHCI_USBINTR), 0);
}

TEST(ehci_bios_that_never_lets_go_is_forced_in_one_second)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_EHCI, 0x1d, 7, INTEL, 0x293a, true);
	f->release_after = MODEL_NEVER;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_EHCI);
	ehci_handoff(&h);
	CHECK_STR(h.how, HC_FORCED);
	CHECK(model_now_us >= BIOS_US && model_now_us < BIOS_US + 5000);
	uint32_t size = 0, value = 1;
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_BIOS_BYTE, &size, &value), 1);
	CHECK_EQ_U(size, 1);
	CHECK_EQ_U(value, 0);
	CHECK_EQ_U(h.legacy_after & EHCI_USBLEGSUP_BIOS_OWNED, 0);
	CHECK_EQ_U(model_cfg32(f, MODEL_EHCI_LEGSUP + EHCI_USBLEGCTLSTS), 0);
}

TEST(ehci_not_owned_keeps_its_semaphores_and_ports)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_EHCI, 0x1d, 7, INTEL, 0x293a, false);
	f->reset_after = MODEL_NEVER;          /* and it will not halt */
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_EHCI);
	ehci_handoff(&h);
	CHECK_STR(h.how, HC_NOT_OWNED);
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_OS_BYTE, 0, 0), 0);
	CHECK_EQ_U(writes_at(MODEL_EHCI_LEGSUP + EHCI_USBLEGCTLSTS, 0, 0), 1);
	CHECK_EQ_U(model_rd32(f, MODEL_EHCI_CAPLENGTH + EHCI_CONFIGFLAG), 1);
	CHECK_STR(h.stop, "did not halt within 2 ms");
	CHECK(model_now_us >= 2000 && model_now_us < 3000);
}

TEST(ehci_without_a_capability_list_is_still_halted)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_EHCI, 0x1d, 7, INTEL, 0x293a, true);
	f->mmio[EHCI_HCCPARAMS + 1] = 0;       /* EECP 0 */
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_EHCI);
	ehci_handoff(&h);
	CHECK_STR(h.how, HC_NO_LEGACY);
	CHECK(!h.have_legacy);
	CHECK_STR(h.stop, "halted");
	CHECK_EQ_U(model_log_n, 0);
}

/* ---- xHCI ------------------------------------------------------------------ */
TEST(xhci_bios_lets_go_smis_off_and_halted)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_XHCI, 0x14, 0, 0x1022, 0x43d5, true);
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_XHCI);
	xhci_handoff(&h, false);
	CHECK_STR(h.how, HC_TAKEN);
	CHECK_EQ_U(h.legacy_after & (XHCI_LEGSUP_BIOS_OWNED | XHCI_LEGSUP_OS_OWNED), XHCI_LEGSUP_OS_OWNED);
	uint32_t ctl = model_rd32(f, MODEL_XHCI_LEGACY + XHCI_LEGCTLSTS);
	CHECK_EQ_U(ctl & ~(XHCI_LEGCTL_DISABLE_SMI | XHCI_LEGCTL_SMI_EVENTS), 0); /* every SMI enable off */
	CHECK_EQ_U(ctl & XHCI_LEGCTL_SMI_EVENTS, XHCI_LEGCTL_SMI_EVENTS);         /* status cleared (RW1C) */
	uint32_t cmd = model_rd32(f, MODEL_XHCI_CAPLENGTH + XHCI_USBCMD);
	CHECK_EQ_U(cmd & (XHCI_CMD_RS | XHCI_CMD_IRQS), 0);
	CHECK_STR(h.stop, "halted");
	CHECK(!h.routed);
}

TEST(xhci_bios_that_never_lets_go_is_forced_in_one_second)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_XHCI, 0x14, 0, 0x1022, 0x43d5, true);
	f->release_after = MODEL_NEVER;
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_XHCI);
	xhci_handoff(&h, false);
	CHECK_STR(h.how, HC_FORCED);
	CHECK(model_now_us >= BIOS_US && model_now_us < BIOS_US + 20000);
	CHECK_EQ_U(h.legacy_after & (XHCI_LEGSUP_BIOS_OWNED | XHCI_LEGSUP_OS_OWNED), XHCI_LEGSUP_OS_OWNED);
}

TEST(xhci_capability_list_without_legacy_support_ends)
{
	model_reset();
	struct model_fn *f = model_add(MODEL_XHCI, 0x14, 0, 0x1022, 0x43d5, true);
	f->mmio[MODEL_XHCI_LEGACY] = 2;        /* supported protocol, not legacy support */
	f->mmio[MODEL_XHCI_LEGACY + 1] = 0xff; /* and the next ones, past the model, read as all ones */
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_XHCI);
	xhci_handoff(&h, false);
	CHECK_STR(h.how, HC_NO_LEGACY);
	CHECK(!h.have_legacy);
	CHECK_STR(h.stop, "halted");
}

/* ---- Intel port routing ------------------------------------------------------ */
static struct model_fn *intel_xhci(uint16_t device)
{
	struct model_fn *f = model_add(MODEL_XHCI, 0x14, 0, INTEL, device, false);
	f->cfg[XHCI_INTEL_USB3PRM] = 0x0f;
	f->cfg[XHCI_INTEL_XUSB2PRM] = 0xff;
	f->cfg[XHCI_INTEL_XUSB2PRM + 1] = 0x3f;
	return f;
}

TEST(intel_ports_switched_to_the_xhci_and_put_back)
{
	model_reset();
	struct model_fn *f = intel_xhci(0x1e31);
	struct hc_handoff h = prepare(f, PCI_CLASS_USB_XHCI);
	xhci_handoff(&h, true);
	CHECK(h.routed);
	/* SuperSpeed terminations first, then the USB 2.0 wires, each as its mask allows. */
	CHECK_EQ_U(model_log_n, 2);
	CHECK_EQ_U(model_log[0].off, XHCI_INTEL_USB3_PSSEN);
	CHECK_EQ_U(model_log[0].value, 0x0f);
	CHECK_EQ_U(model_log[1].off, XHCI_INTEL_XUSB2PR);
	CHECK_EQ_U(model_log[1].value, 0x3fff);
	CHECK_EQ_U(h.usb3_pssen_old, 0);
	CHECK_EQ_U(h.xusb2pr_new, 0x3fff);
	xhci_handoff_unroute(&h);
	CHECK_EQ_U(model_log_n, 4);
	CHECK_EQ_U(model_log[2].off, XHCI_INTEL_XUSB2PR);
	CHECK_EQ_U(model_log[2].value, 0);
	CHECK_EQ_U(model_log[3].off, XHCI_INTEL_USB3_PSSEN);
	CHECK_EQ_U(model_cfg32(f, XHCI_INTEL_USB3_PSSEN), 0);
	xhci_handoff_unroute(&h);                 /* once only */
	CHECK_EQ_U(model_log_n, 4);
}

TEST(intel_ports_stay_where_linux_leaves_them)
{
	static const struct {
		uint16_t device;
		bool ehci, sony;
	} no[] = { { 0xa12f, true, false }, { 0x1e31, false, false }, { 0x1e31, true, true } };
	for (unsigned i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		model_reset();
		struct model_fn *f = intel_xhci(no[i].device);
		if (no[i].sony) {
			f->cfg[PCI_SUBSYSTEM] = 0x4d, f->cfg[PCI_SUBSYSTEM + 1] = 0x10;
			f->cfg[PCI_SUBSYSTEM + 2] = 0xa8, f->cfg[PCI_SUBSYSTEM + 3] = 0x90;
		}
		struct hc_handoff h = prepare(f, PCI_CLASS_USB_XHCI);
		xhci_handoff(&h, no[i].ehci);
		CHECK(!h.routed);
		CHECK_EQ_U(model_log_n, 0);
	}
}

/* ---- The walk ---------------------------------------------------------------- */
TEST(every_controller_on_the_bus_is_taken_and_listed)
{
	static char buf[8192];
	struct cpuid_snap snap;
	model_reset();
	model_add(MODEL_OTHER, 0x02, 0, INTEL, 0x10d3, false);
	struct model_fn *x = intel_xhci(0x1e31);
	x->cfg[PCI_COMMAND] &= (uint8_t)~PCI_COMMAND_MEMORY;   /* not decoded: left alone, not routed */
	model_add(MODEL_UHCI, 0x1a, 0, INTEL, 0x1e2d, true);
	model_add(MODEL_EHCI, 0x1d, 0, INTEL, 0x1e26, true);
	model_add(MODEL_OHCI, 0x1e, 0, 0x1002, 0x4397, false);
	usb_handoff_all(&snap);
	struct pci_addr ehci = { 0, 0, 0x1d, 0 }, nic = { 0, 0, 0x02, 0 };
	CHECK(usb_handoff_find(ehci) != NULL && !strcmp(usb_handoff_find(ehci)->how, HC_TAKEN));
	CHECK(usb_handoff_find(nic) == NULL);
	CHECK(strstr(model_text, "usb: 0000:00:14.0 xHCI 8086:1e31: " "left alone: its registers are not decoded") != NULL);
	CHECK(strstr(model_text, "usb: 0000:00:1a.0 UHCI 8086:1e2d: taken from the BIOS; reset\n") != NULL);
	CHECK(strstr(model_text, "usb: 0000:00:1d.0 EHCI 8086:1e26: taken from the BIOS; halted\n") != NULL);
	CHECK(strstr(model_text, "usb: 0000:00:1e.0 OHCI 1002:4397: the BIOS did not own it; reset\n") != NULL);
	struct rec r;
	rec_begin(&r, buf, sizeof(buf), "state");
	usb_handoff_rec(&r);
	const char *line = rec_finish(&r, NULL);
	CHECK(line != NULL);
	if (!line)
		return;
	CHECK(strstr(line, "{\"pci\":\"0000:00:1d.0\",\"class\":\"EHCI\",\"id\":\"8086:1e26\","
			   "\"handoff\":\"taken from the BIOS\",\"controller\":\"halted\",\"legacy_before\":\"0x10001\","
			   "\"legacy_after\":\"0x1000001\",\"smi_count_before\":") != NULL);
	CHECK(strstr(line, "\"class\":\"UHCI\"") && strstr(line, "\"class\":\"OHCI\"") && strstr(line, "\"class\":\"xHCI\""));
	CHECK(!strstr(line, "intel_port_routing"));
	CHECK(strstr(line, "\"before_tsc_calibration\":false") == NULL);
	/* IA32_SMI_COUNT read before and after each, in bus order (the model adds one a read). */
	CHECK(strstr(line, "\"smi_count_before\":104,\"smi_count_after\":105,\"before_tsc_calibration\":true}") != NULL);
}

TEST(smi_count_is_null_where_the_cpu_has_none)
{
	static char buf[4096];
	struct cpuid_snap snap;
	model_reset();
	model_intel = false;
	model_add(MODEL_XHCI, 0x07, 0, 0x1022, 0x15e0, true);
	usb_handoff_all(&snap);
	struct rec r;
	rec_begin(&r, buf, sizeof(buf), "state");
	usb_handoff_rec(&r);
	const char *line = rec_finish(&r, NULL);
	CHECK(line && strstr(line, "\"smi_count_before\":null,\"smi_count_after\":null,\"before_tsc_calibration\":true"));
	CHECK_EQ_U(model_smi, 100);               /* never read */
}

int main(void)
{
	RUN(uhci_owned_by_the_bios_is_reset_with_its_smis_off);
	RUN(uhci_left_suspended_by_an_os_is_not_touched);
	RUN(uhci_reset_that_never_ends_is_bounded);
	RUN(uhci_without_io_decoding_is_left_alone);
	RUN(ohci_smm_driver_lets_go_when_asked);
	RUN(ohci_smm_driver_that_never_answers_is_forced_in_one_second);
	RUN(ohci_uli_m5237_frame_interval_is_never_read);
	RUN(ehci_bios_lets_go_and_each_semaphore_is_a_byte);
	RUN(ehci_bios_that_never_lets_go_is_forced_in_one_second);
	RUN(ehci_not_owned_keeps_its_semaphores_and_ports);
	RUN(ehci_without_a_capability_list_is_still_halted);
	RUN(xhci_bios_lets_go_smis_off_and_halted);
	RUN(xhci_bios_that_never_lets_go_is_forced_in_one_second);
	RUN(xhci_capability_list_without_legacy_support_ends);
	RUN(intel_ports_switched_to_the_xhci_and_put_back);
	RUN(intel_ports_stay_where_linux_leaves_them);
	RUN(every_controller_on_the_bus_is_taken_and_listed);
	RUN(smi_count_is_null_where_the_cpu_has_none);
	return check_summary("usb_handoff");
}
