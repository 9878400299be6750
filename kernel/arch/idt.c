/* idt.c - interrupt descriptor table with interrupt gates for vectors 0-31 (Intel SDM vol. 3A §6.14.1). */
#include "idt.h"
#include "gdt.h"

/* Intel SDM vol. 3A §6.14.1, Figure 6-8: a 64-bit IDT gate descriptor. */
struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;          /* bits 2:0 */
	uint8_t type_attr;    /* P, DPL, type */
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "Intel SDM §6.14.1 gate is 16 bytes");

#define GATE_PRESENT 0x80
#define GATE_TYPE_INTERRUPT 0x0e  /* IF cleared on entry */

#define VEC_NMI 2
#define VEC_DOUBLE_FAULT 8
#define VEC_MACHINE_CHECK 18

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const uint64_t isr_stubs[IDT_EXCEPTIONS]; /* isr.S */
extern const char isr_park[];                      /* isr.S */
extern const char isr_irq_first[], isr_irq_end[];  /* isr.S */

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));
static struct idt_gate park_idt[IDT_EXCEPTIONS] __attribute__((aligned(16)));

static void set_gate(struct idt_gate *g, uint64_t a, uint8_t ist)
{
	g->offset_lo = (uint16_t)a;
	g->selector = GDT_KCODE_SEL;
	g->ist = ist;
	g->type_attr = GATE_PRESENT | GATE_TYPE_INTERRUPT;
	g->offset_mid = (uint16_t)(a >> 16);
	g->offset_hi = (uint32_t)(a >> 32);
	g->reserved = 0;
}

void idt_init(void)
{
	for (unsigned v = 0; v < IDT_EXCEPTIONS; v++) {
		set_gate(&idt[v], isr_stubs[v], v == VEC_DOUBLE_FAULT ? IST_DOUBLE_FAULT
					     : v == VEC_NMI ? IST_NMI
					     : v == VEC_MACHINE_CHECK ? IST_MACHINE_CHECK : 0);
		set_gate(&park_idt[v], (uint64_t)(uintptr_t)isr_park, 0);
	}
	for (unsigned v = IDT_EXCEPTIONS; v < IDT_VECTORS; v++)
		set_gate(&idt[v], (uint64_t)(uintptr_t)isr_irq_first + (v - IDT_EXCEPTIONS) * IDT_IRQ_STUB_SIZE, 0);
}

void idt_park_ptr(uint16_t *limit, uint64_t *base)
{
	*limit = sizeof(park_idt) - 1;
	*base = (uint64_t)(uintptr_t)park_idt;
}

void idt_park_here(void)
{
	struct idt_ptr p = { sizeof(park_idt) - 1, (uint64_t)(uintptr_t)park_idt };
	__asm__ volatile("lidt %0" : : "m"(p));
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

void idt_load(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };
	__asm__ volatile("lidt %0" : : "m"(p));
}
