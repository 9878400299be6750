/* hc_model.h - register models of USB host controllers held by a BIOS, for the handoff tests: PCI configuration space (arch/pci.h), device registers (arch/devio.h), a fake reference clock (measure/timer.h) and the SMI counter, all behind the kernel's own interfaces.
 *
 * Each model function is a UHCI, OHCI, EHCI or xHCI (or another PCI
 * function) with a BIOS that lets go after a number of reads of the
 * semaphore it watches, or never. Every configuration-space write is
 * logged with its size, so a test can tell a byte write from a dword. */
#ifndef QB_TESTS_HC_MODEL_H
#define QB_TESTS_HC_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "pci.h"

#define MODEL_FNS 8
#define MODEL_MMIO 0x1000            /* bytes of registers modelled per function */
#define MODEL_NEVER (-1)             /* a BIOS (or a reset) that never completes */
#define MODEL_LOG 64

enum model_kind { MODEL_NONE, MODEL_OTHER, MODEL_UHCI, MODEL_OHCI, MODEL_EHCI, MODEL_XHCI };

struct model_cfg_write {
	struct pci_addr a;
	uint32_t off, size, value;
};

struct model_fn {
	enum model_kind kind;
	struct pci_addr a;
	uint8_t cfg[256];
	uint64_t bar;                /* memory BAR0 (0: none) */
	uint8_t mmio[MODEL_MMIO];
	uint16_t io_base;            /* UHCI: its I/O BAR */
	uint16_t io[16];
	int release_after;           /* reads of the watched register after the OS asked; MODEL_NEVER */
	int reset_after;             /* reads until a reset or halt completes; MODEL_NEVER */
	bool asked;                  /* the OS asked for ownership */
	int reads_since_ask;
	bool resetting;
	int reads_since_reset;
	unsigned fm_reads;           /* OHCI HcFmInterval reads (the ULi quirk) */
	unsigned mmio_writes;
};

extern struct model_fn model[MODEL_FNS];
extern struct model_cfg_write model_log[MODEL_LOG];
extern unsigned model_log_n;
extern uint64_t model_now_us;        /* the fake reference clock, 10 us a poll */
extern uint64_t model_smi;           /* IA32_SMI_COUNT: each read adds one */
extern bool model_intel;             /* the CPU has IA32_SMI_COUNT (noise_detect says so) */
extern char model_text[4096];        /* what kprintf printed */

/* Forget every function and every log. */
void model_reset(void);

/* Add a function at 00:dev.fn of the given kind (UHCI/OHCI/EHCI/xHCI set
 * up with their registers, decoding on, owned by the BIOS when bios). */
struct model_fn *model_add(enum model_kind kind, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device,
			   bool bios);

/* Offsets the models use. */
#define MODEL_EHCI_LEGSUP 0x68      /* EECP */
#define MODEL_EHCI_CAPLENGTH 0x20
#define MODEL_XHCI_CAPLENGTH 0x80
#define MODEL_XHCI_LEGACY 0x500     /* xECP */

uint32_t model_rd32(const struct model_fn *f, uint32_t off);   /* a modelled MMIO register, no side effects */
uint32_t model_cfg32(const struct model_fn *f, uint32_t off);  /* config space, no side effects */

#endif
