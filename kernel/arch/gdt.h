/* gdt.h - the kernel's GDT with one 64-bit TSS per CPU, for the IST stacks of #DF, NMI and #MC (Intel SDM vol. 3A §3.4.5, §8.7). */
#ifndef QB_KERNEL_GDT_H
#define QB_KERNEL_GDT_H

#include <stdint.h>

#define GDT_KCODE_SEL 0x08
#define GDT_KDATA_SEL 0x10
#define GDT_TSS_FIRST 3      /* descriptor index of CPU 0's TSS; each takes two slots */

/* IST slots (1-based in the IDT gate, 0 = none). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI 2
#define IST_MACHINE_CHECK 3
#define IST_STACK_SIZE 8192

/* Intel SDM vol. 3A §8.7, Figure 8-11: the 64-bit task-state segment. */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "Intel SDM §8.7 64-bit TSS is 104 bytes");

#ifndef QB_HOST_TEST
/* Build the GDT (once, on the BSP). */
void gdt_init(void);

/* Load the GDT, reload the segment registers and load CPU index's TSS,
 * whose IST stacks start at ist_base (3 x IST_STACK_SIZE bytes). */
void gdt_load(uint32_t index, uint64_t ist_base);
#endif

#endif
