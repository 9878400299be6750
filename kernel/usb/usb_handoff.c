/* usb_handoff.c - the walk over PCI that takes every USB host controller from the firmware, and its records; see usb_handoff.h. */
#include "usb_handoff.h"
#include "console.h"
#include "ehci.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"
#include "noise.h"
#include "ohci.h"
#include "pci_class.h"
#include "tsc.h"
#include "uhci.h"
#include "xhci_handoff.h"

/* ---- Constants ------------------------------------------------------------ */
#define PCI_VENDOR_INTEL 0x8086
#define PCI_ADDR_LEN 16                   /* "ssss:bb:dd.f" */

/* ---- Private Variables ---------------------------------------------------- */
static struct hc_handoff hcs[USB_HANDOFF_MAX];
static uint32_t n_hcs, n_more;
static bool walked;

/* ---- Private Functions ---------------------------------------------------- */
static bool is_hc(uint32_t cls)
{
	return cls == PCI_CLASS_USB_UHCI || cls == PCI_CLASS_USB_OHCI || cls == PCI_CLASS_USB_EHCI ||
	       cls == PCI_CLASS_USB_XHCI;
}

/* IA32_SMI_COUNT where the CPU has one, else -1. */
static int64_t smi_count(bool has)
{
	uint64_t v = 0;
	if (!has || msr_read_safe(MSR_SMI_COUNT, &v) != MSR_OK)
		return -1;
	return (int64_t)(v & SMI_COUNT_MASK);
}

static void take(struct hc_handoff *h, bool intel_ehci, bool smi)
{
	h->before_tsc = tsc_hz() == 0;
	h->smi_before = smi_count(smi);
	switch (h->cls) {
	case PCI_CLASS_USB_UHCI: uhci_handoff(h); break;
	case PCI_CLASS_USB_OHCI: ohci_handoff(h); break;
	case PCI_CLASS_USB_EHCI: ehci_handoff(h); break;
	default: xhci_handoff(h, intel_ehci); break;
	}
	h->smi_after = smi_count(smi);
}

static void addr_text(struct pci_addr a, char *out, size_t cap)
{
	fmt_snprintf(out, cap, "%04x:%02x:%02x.%x", a.segment, a.bus, a.dev, a.fn);
}

static void say(const struct hc_handoff *h)
{
	char at[PCI_ADDR_LEN];
	addr_text(h->pci, at, sizeof(at));
	kprintf("usb: %s %s %04x:%04x: %s%s%s%s\n", at, pci_usb_hc_name(h->cls), h->vendor, h->device, h->how,
		h->stop ? "; " : "", h->stop ? h->stop : "",
		h->routed ? "; Intel's shared ports switched from the EHCI to it" : "");
}

static void rec_count(struct rec *r, const char *key, int64_t v)
{
	if (v >= 0)
		rec_u64(r, key, (uint64_t)v);
	else
		rec_null(r, key);
}

/* ---- Public Functions ----------------------------------------------------- */
void usb_handoff_all(const struct cpuid_snap *bsp)
{
	bool smi = noise_detect(bsp).smi;        /* a CPU with IA32_SMI_COUNT (noise.c's model list) */
	struct pci_addr a = { 0, 0, 0, 0 };
	static struct hc_handoff extra;          /* a controller past the table: taken, not kept */
	n_hcs = n_more = 0;
	walked = true;
	/* First every controller, so that an xHCI knows whether an Intel EHCI
	 * shares its ports; then each in bus order, as Linux's quirks run. */
	for (bool more = pci_next(&a, true); more; more = pci_next(&a, false)) {
		uint32_t cls = pci_class(a);
		if (!is_hc(cls))
			continue;
		if (n_hcs == USB_HANDOFF_MAX) {
			n_more++;
			continue;
		}
		struct hc_handoff *h = &hcs[n_hcs++];
		memset(h, 0, sizeof(*h));
		uint32_t id = pci_read32(a, PCI_VENDOR_ID);
		h->pci = a;
		h->cls = cls;
		h->vendor = PCI_ID_VENDOR(id);
		h->device = PCI_ID_DEVICE(id);
		h->smi_before = h->smi_after = -1;
	}
	bool intel_ehci = false;
	for (uint32_t i = 0; i < n_hcs; i++)
		intel_ehci |= hcs[i].cls == PCI_CLASS_USB_EHCI && hcs[i].vendor == PCI_VENDOR_INTEL;
	for (uint32_t i = 0; i < n_hcs; i++) {
		take(&hcs[i], intel_ehci, smi);
		say(&hcs[i]);
	}
	if (!n_more)
		return;
	/* Past the table: walk again for them, after the last one kept. */
	a = hcs[n_hcs - 1].pci;
	for (bool more = pci_next(&a, false); more; more = pci_next(&a, false)) {
		if (!is_hc(pci_class(a)))
			continue;
		uint32_t id = pci_read32(a, PCI_VENDOR_ID);
		memset(&extra, 0, sizeof(extra));
		extra.pci = a;
		extra.cls = pci_class(a);
		extra.vendor = PCI_ID_VENDOR(id);
		extra.device = PCI_ID_DEVICE(id);
		take(&extra, false, smi);            /* its ports not switched: that could not be put back */
		say(&extra);
	}
}

const struct hc_handoff *usb_handoff_find(struct pci_addr a)
{
	for (uint32_t i = 0; i < n_hcs; i++)
		if (hcs[i].pci.segment == a.segment && hcs[i].pci.bus == a.bus && hcs[i].pci.dev == a.dev &&
		    hcs[i].pci.fn == a.fn)
			return &hcs[i];
	return 0;
}

void usb_handoff_rec(struct rec *r)
{
	char at[PCI_ADDR_LEN], id[PCI_ADDR_LEN];
	if (!walked) {
		rec_str(r, "usb_controllers", "not looked for");
		return;
	}
	rec_arr_begin(r, "usb_controllers");
	for (uint32_t i = 0; i < n_hcs; i++) {
		const struct hc_handoff *h = &hcs[i];
		addr_text(h->pci, at, sizeof(at));
		fmt_snprintf(id, sizeof(id), "%04x:%04x", h->vendor, h->device);
		rec_obj_begin(r, 0);
		rec_str(r, "pci", at);
		rec_str(r, "class", pci_usb_hc_name(h->cls));
		rec_str(r, "id", id);
		rec_str(r, "handoff", h->how);
		rec_str(r, "controller", h->stop);
		if (h->have_legacy) {
			rec_hex(r, "legacy_before", h->legacy_before);
			rec_hex(r, "legacy_after", h->legacy_after);
		} else {
			rec_null(r, "legacy_before");
			rec_null(r, "legacy_after");
		}
		if (h->routed) {
			rec_obj_begin(r, "intel_port_routing");
			rec_hex(r, "usb3_pssen_before", h->usb3_pssen_old);
			rec_hex(r, "usb3_pssen", h->usb3_pssen_new);
			rec_hex(r, "xusb2pr_before", h->xusb2pr_old);
			rec_hex(r, "xusb2pr", h->xusb2pr_new);
			rec_obj_end(r);
		}
		rec_count(r, "smi_count_before", h->smi_before);
		rec_count(r, "smi_count_after", h->smi_after);
		rec_bool(r, "before_tsc_calibration", h->before_tsc);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	if (n_more)
		rec_u64(r, "usb_controllers_more", n_more);
}

void usb_handoff_restore_routing(void)
{
	for (uint32_t i = 0; i < n_hcs; i++)
		xhci_handoff_unroute(&hcs[i]);
}
