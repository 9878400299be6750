/* hc_model.c - the register models of hc_model.h, behind arch/pci.h, arch/devio.h, measure/timer.h and the rest of what the handoffs call. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "console.h"
#include "cpuid_snap.h"
#include "devio.h"
#include "ehci_regs.h"
#include "hc_model.h"
#include "msr.h"
#include "noise.h"
#include "ohci_regs.h"
#include "paging.h"
#include "pci_class.h"
#include "timer.h"
#include "tsc.h"
#include "uhci_regs.h"
#include "xhci_regs.h"

struct model_fn model[MODEL_FNS];
struct model_cfg_write model_log[MODEL_LOG];
unsigned model_log_n;
uint64_t model_now_us, model_smi;
bool model_intel;
char model_text[4096];

#define BAR_BASE 0xfe000000ull
#define UHCI_IO_BASE 0xc000u
#define POLL_US 10

/* ---- Little-endian access to a byte array ----------------------------------- */
static uint32_t get(const uint8_t *p, uint32_t off, uint32_t size)
{
	uint32_t v = 0;
	for (uint32_t i = 0; i < size; i++)
		v |= (uint32_t)p[off + i] << (8 * i);
	return v;
}

static void put(uint8_t *p, uint32_t off, uint32_t size, uint32_t v)
{
	for (uint32_t i = 0; i < size; i++)
		p[off + i] = (uint8_t)(v >> (8 * i));
}

uint32_t model_rd32(const struct model_fn *f, uint32_t off)
{
	return get(f->mmio, off, 4);
}

uint32_t model_cfg32(const struct model_fn *f, uint32_t off)
{
	return get(f->cfg, off, 4);
}

void model_reset(void)
{
	memset(model, 0, sizeof(model));
	model_log_n = 0;
	model_now_us = 0;
	model_smi = 100;
	model_intel = true;
	model_text[0] = 0;
}

struct model_fn *model_add(enum model_kind kind, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device, bool bios)
{
	unsigned i = 0;
	while (model[i].kind != MODEL_NONE)
		i++;
	struct model_fn *f = &model[i];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->a = (struct pci_addr){ 0, 0, dev, fn };
	f->release_after = 3;
	f->reset_after = 2;
	put(f->cfg, PCI_VENDOR_ID, 2, vendor);
	put(f->cfg, PCI_DEVICE_ID, 2, device);
	uint32_t cls = kind == MODEL_UHCI ? PCI_CLASS_USB_UHCI : kind == MODEL_OHCI ? PCI_CLASS_USB_OHCI
		     : kind == MODEL_EHCI ? PCI_CLASS_USB_EHCI : kind == MODEL_XHCI ? PCI_CLASS_USB_XHCI : 0x020000;
	put(f->cfg, PCI_CLASS_REVISION, 4, cls << PCI_CLASS_SHIFT);
	if (kind == MODEL_UHCI) {
		f->io_base = UHCI_IO_BASE;
		put(f->cfg, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MASTER);
		put(f->cfg, PCI_BAR0 + 4 * 4, 4, UHCI_IO_BASE | PCI_BAR_IO);
		put(f->cfg, UHCI_LEGSUP, 2, bios ? 0x2010 : 0);       /* USBPIRQDEN | USBSMIEN */
		f->io[UHCI_USBCMD / 2] = bios ? UHCI_CMD_RS | UHCI_CMD_CF : UHCI_CMD_CF | UHCI_CMD_EGSM;
		return f;
	}
	if (kind == MODEL_OTHER)
		return f;
	f->bar = BAR_BASE + i * 0x10000ull;
	put(f->cfg, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	put(f->cfg, PCI_BAR0, 4, (uint32_t)f->bar);
	if (kind == MODEL_OHCI) {
		put(f->mmio, OHCI_HCCONTROL, 4, bios ? OHCI_CTL_IR | 0x80 : 0x80); /* UsbOperational */
		put(f->mmio, OHCI_HCFMINTERVAL, 4, 0x27782edf);
	} else if (kind == MODEL_EHCI) {
		put(f->mmio, EHCI_CAPLENGTH, 4, MODEL_EHCI_CAPLENGTH | 0x01000000);
		put(f->mmio, EHCI_HCCPARAMS, 4, MODEL_EHCI_LEGSUP << 8);
		put(f->mmio, MODEL_EHCI_CAPLENGTH + EHCI_USBCMD, 4, EHCI_CMD_RS);
		put(f->mmio, MODEL_EHCI_CAPLENGTH + EHCI_CONFIGFLAG, 4, 1);
		put(f->cfg, MODEL_EHCI_LEGSUP, 4, EHCI_XCAP_LEGACY | (bios ? EHCI_USBLEGSUP_BIOS_OWNED : 0));
		put(f->cfg, MODEL_EHCI_LEGSUP + EHCI_USBLEGCTLSTS, 4, bios ? 0x3f : 0);
	} else if (kind == MODEL_XHCI) {
		put(f->mmio, XHCI_CAPLENGTH, 4, MODEL_XHCI_CAPLENGTH);
		put(f->mmio, XHCI_HCCPARAMS1, 4, (MODEL_XHCI_LEGACY / 4) << 16);
		put(f->mmio, MODEL_XHCI_LEGACY, 4, XHCI_XCAP_LEGACY | (bios ? XHCI_LEGSUP_BIOS_OWNED : 0));
		put(f->mmio, MODEL_XHCI_LEGACY + XHCI_LEGCTLSTS, 4, bios ? 0xe0000011u : 0);
		put(f->mmio, MODEL_XHCI_CAPLENGTH + XHCI_USBCMD, 4, XHCI_CMD_RS | XHCI_CMD_INTE);
	}
	return f;
}

static struct model_fn *at(struct pci_addr a)
{
	for (unsigned i = 0; i < MODEL_FNS; i++)
		if (model[i].kind != MODEL_NONE && model[i].a.bus == a.bus && model[i].a.dev == a.dev &&
		    model[i].a.fn == a.fn && !a.segment)
			return &model[i];
	return 0;
}

/* The dword read hook: a BIOS that lets go once asked, after a number of reads. */
static void cfg_read(struct model_fn *f, uint32_t off)
{
	if (f->kind == MODEL_EHCI && (off & ~3u) == MODEL_EHCI_LEGSUP && f->asked && f->release_after != MODEL_NEVER &&
	    ++f->reads_since_ask >= f->release_after)
		f->cfg[MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_BIOS_BYTE] = 0;
}

static void cfg_write(struct pci_addr a, uint32_t off, uint32_t size, uint32_t v)
{
	struct model_fn *f = at(a);
	if (model_log_n < MODEL_LOG)
		model_log[model_log_n++] = (struct model_cfg_write){ a, off, size, v };
	if (!f)
		return;
	if (f->kind == MODEL_UHCI && off == UHCI_LEGSUP) {
		uint32_t old = get(f->cfg, off, 2);
		v = (v & UHCI_LEGSUP_ENABLES) | (old & UHCI_LEGSUP_RO) | (old & UHCI_LEGSUP_RWC & ~v);
	}
	put(f->cfg, off, size, v);
	if (f->kind == MODEL_EHCI && off <= MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_OS_BYTE &&
	    off + size > MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_OS_BYTE && f->cfg[MODEL_EHCI_LEGSUP + EHCI_USBLEGSUP_OS_BYTE])
		f->asked = true;
}

/* ---- arch/pci.h --------------------------------------------------------------- */
uint32_t pci_read32(struct pci_addr a, uint32_t off)
{
	struct model_fn *f = at(a);
	if (!f)
		return 0xffffffffu;
	cfg_read(f, off);
	return get(f->cfg, off & 0xfc, 4);
}

uint16_t pci_read16(struct pci_addr a, uint32_t off)
{
	struct model_fn *f = at(a);
	return f ? (uint16_t)get(f->cfg, off & 0xfe, 2) : 0xffff;
}

uint8_t pci_read8(struct pci_addr a, uint32_t off)
{
	struct model_fn *f = at(a);
	return f ? f->cfg[off & 0xff] : 0xff;
}

void pci_write32(struct pci_addr a, uint32_t off, uint32_t v) { cfg_write(a, off & 0xfc, 4, v); }
void pci_write16(struct pci_addr a, uint32_t off, uint16_t v) { cfg_write(a, off & 0xfe, 2, v); }
void pci_write8(struct pci_addr a, uint32_t off, uint8_t v) { cfg_write(a, off & 0xff, 1, v); }
bool pci_present(struct pci_addr a) { return at(a) != 0; }
uint32_t pci_class(struct pci_addr a) { return pci_read32(a, PCI_CLASS_REVISION) >> PCI_CLASS_SHIFT; }

uint64_t pci_bar_mem(struct pci_addr a, uint32_t off)
{
	uint32_t v = pci_read32(a, off);
	return v & PCI_BAR_IO ? 0 : v & PCI_BAR_MEM_MASK;
}

bool pci_next(struct pci_addr *a, bool first)
{
	unsigned i = 0;
	if (!first) {
		while (i < MODEL_FNS && !(model[i].kind && model[i].a.dev == a->dev && model[i].a.fn == a->fn))
			i++;
		i++;
	}
	for (; i < MODEL_FNS; i++)
		if (model[i].kind != MODEL_NONE) {
			*a = model[i].a;
			return true;
		}
	return false;
}

/* ---- arch/devio.h --------------------------------------------------------------- */
static struct model_fn *mmio_fn(volatile void *base, uint32_t off, uint32_t *o)
{
	uint64_t addr = (uint64_t)(uintptr_t)base + off;
	for (unsigned i = 0; i < MODEL_FNS; i++)
		if (model[i].bar && addr >= model[i].bar && addr + 4 <= model[i].bar + MODEL_MMIO) {
			*o = (uint32_t)(addr - model[i].bar);
			return &model[i];
		}
	return 0;
}

/* Count a read of a register the model watches: a release, a reset or a halt completing. */
static bool completes(bool *busy, int *reads, int after)
{
	if (!*busy || after == MODEL_NEVER || ++*reads < after)
		return false;
	*busy = false;
	return true;
}

uint32_t devio_read32(volatile void *base, uint32_t off)
{
	uint32_t o;
	struct model_fn *f = mmio_fn(base, off, &o);
	if (!f)
		return 0xffffffffu;
	if (f->kind == MODEL_OHCI) {
		if (o == OHCI_HCCONTROL && completes(&f->asked, &f->reads_since_ask, f->release_after))
			put(f->mmio, o, 4, get(f->mmio, o, 4) & ~OHCI_CTL_IR);
		if (o == OHCI_HCCOMMANDSTATUS && completes(&f->resetting, &f->reads_since_reset, f->reset_after))
			put(f->mmio, o, 4, get(f->mmio, o, 4) & ~OHCI_CS_HCR);
		if (o == OHCI_HCFMINTERVAL)
			f->fm_reads++;
	} else if (f->kind == MODEL_EHCI) {
		if (o == MODEL_EHCI_CAPLENGTH + EHCI_USBSTS &&
		    completes(&f->resetting, &f->reads_since_reset, f->reset_after))
			put(f->mmio, o, 4, get(f->mmio, o, 4) | EHCI_STS_HALTED);
	} else if (f->kind == MODEL_XHCI) {
		if (o == MODEL_XHCI_LEGACY && completes(&f->asked, &f->reads_since_ask, f->release_after))
			put(f->mmio, o, 4, get(f->mmio, o, 4) & ~XHCI_LEGSUP_BIOS_OWNED);
		if (o == MODEL_XHCI_CAPLENGTH + XHCI_USBSTS &&
		    completes(&f->resetting, &f->reads_since_reset, f->reset_after))
			put(f->mmio, o, 4, get(f->mmio, o, 4) | XHCI_STS_HCH);
	}
	return get(f->mmio, o, 4);
}

void devio_write32(volatile void *base, uint32_t off, uint32_t v)
{
	uint32_t o;
	struct model_fn *f = mmio_fn(base, off, &o);
	if (!f)
		return;
	f->mmio_writes++;
	uint32_t old = get(f->mmio, o, 4);
	if (f->kind == MODEL_OHCI && o == OHCI_HCCOMMANDSTATUS) {
		f->asked |= (v & OHCI_CS_OCR) && (get(f->mmio, OHCI_HCCONTROL, 4) & OHCI_CTL_IR);
		if (v & OHCI_CS_HCR) {
			f->resetting = true;
			f->reads_since_reset = 0;
		}
		v |= old;                                   /* write 1 to set */
	} else if (f->kind == MODEL_EHCI && o == MODEL_EHCI_CAPLENGTH + EHCI_USBCMD) {
		if ((old & EHCI_CMD_RS) && !(v & EHCI_CMD_RS))
			f->resetting = true, f->reads_since_reset = 0;
	} else if (f->kind == MODEL_EHCI && o == MODEL_EHCI_CAPLENGTH + EHCI_USBSTS) {
		v = old & ~(v & EHCI_STS_INTS);             /* write 1 to clear */
	} else if (f->kind == MODEL_XHCI && o == MODEL_XHCI_LEGACY) {
		f->asked |= (v & XHCI_LEGSUP_OS_OWNED) && (old & XHCI_LEGSUP_BIOS_OWNED);
	} else if (f->kind == MODEL_XHCI && o == MODEL_XHCI_CAPLENGTH + XHCI_USBCMD) {
		if ((old & XHCI_CMD_RS) && !(v & XHCI_CMD_RS))
			f->resetting = true, f->reads_since_reset = 0;
	}
	put(f->mmio, o, 4, v);
}

uint64_t devio_read64(volatile void *base, uint32_t off)
{
	return devio_read32(base, off) | (uint64_t)devio_read32(base, off + 4) << 32;
}

void devio_write64(volatile void *base, uint32_t off, uint64_t v)
{
	devio_write32(base, off, (uint32_t)v);
	devio_write32(base, off + 4, (uint32_t)(v >> 32));
}

static struct model_fn *io_fn(uint16_t port, unsigned *reg)
{
	for (unsigned i = 0; i < MODEL_FNS; i++)
		if (model[i].io_base && port >= model[i].io_base && port < model[i].io_base + 32) {
			*reg = (port - model[i].io_base) / 2;
			return &model[i];
		}
	return 0;
}

uint16_t devio_in16(uint16_t port)
{
	unsigned r;
	struct model_fn *f = io_fn(port, &r);
	if (!f)
		return 0xffff;
	if (r == UHCI_USBCMD / 2 && completes(&f->resetting, &f->reads_since_reset, f->reset_after))
		f->io[r] &= (uint16_t)~UHCI_CMD_HCRESET;
	return f->io[r];
}

void devio_out16(uint16_t port, uint16_t v)
{
	unsigned r;
	struct model_fn *f = io_fn(port, &r);
	if (!f)
		return;
	if (r == UHCI_USBCMD / 2 && (v & UHCI_CMD_HCRESET))
		f->resetting = true, f->reads_since_reset = 0;
	f->io[r] = v;
}

/* ---- The rest the handoffs call ---------------------------------------------- */
void *paging_map_mmio(uint64_t phys, uint64_t size)
{
	(void)size;
	return (void *)(uintptr_t)phys;
}

struct timer_deadline timer_deadline_ms(uint64_t ms)
{
	return (struct timer_deadline){ true, model_now_us + ms * 1000 };
}

bool timer_passed(const struct timer_deadline *d)
{
	model_now_us += POLL_US;
	return model_now_us >= d->at;
}

int msr_read_safe(uint32_t msr, uint64_t *v)
{
	if (msr != MSR_SMI_COUNT)
		return MSR_GP;
	*v = model_smi++;
	return MSR_OK;
}

struct noise_caps noise_detect(const struct cpuid_snap *s)
{
	struct noise_caps c;
	(void)s;
	memset(&c, 0, sizeof(c));
	c.smi = model_intel;   /* an Intel model with IA32_SMI_COUNT, or a CPU without one */
	return c;
}

uint64_t tsc_hz(void)
{
	return 0; /* the handoffs run before the TSC is calibrated */
}

void kprintf(const char *fmt, ...)
{
	size_t n = strlen(model_text);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(model_text + n, sizeof(model_text) - n, fmt, ap);
	va_end(ap);
}
