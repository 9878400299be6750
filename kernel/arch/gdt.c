/* gdt.c - the kernel GDT and per-CPU TSS descriptors (Intel SDM vol. 3A §3.4.5, §8.2.3). */
#include "gdt.h"
#include "lib.h"
#include "percpu.h"

/* ---- Constants: descriptor fields (Intel SDM vol. 3A §3.4.5, Figure 3-8) --- */
#define DESC_ACCESS_PRESENT (1ull << 47)
#define DESC_ACCESS_S (1ull << 44)          /* code/data, not system */
#define DESC_ACCESS_EXEC (1ull << 43)
#define DESC_ACCESS_RW (1ull << 41)         /* readable code / writable data */
#define DESC_FLAG_LONG (1ull << 53)         /* L: 64-bit code segment */
#define DESC_FLAG_GRAN (1ull << 55)
#define DESC_LIMIT_MAX (0xfull << 48 | 0xffffull)
#define DESC_TYPE_TSS_AVAIL (0x9ull << 40)  /* 64-bit TSS (available), §3.5 Table 3-2 */

#define GDT_ENTRIES (GDT_TSS_FIRST + 2 * QB_MAX_CPUS)

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));
_Static_assert(sizeof(struct gdt_ptr) == 10, "LGDT operand is 10 bytes in 64-bit mode");

/* ---- Public Functions ----------------------------------------------------- */
void gdt_init(void)
{
	gdt[0] = 0;
	gdt[GDT_KCODE_SEL / 8] = DESC_ACCESS_PRESENT | DESC_ACCESS_S | DESC_ACCESS_EXEC |
				 DESC_ACCESS_RW | DESC_FLAG_LONG | DESC_FLAG_GRAN | DESC_LIMIT_MAX;
	gdt[GDT_KDATA_SEL / 8] = DESC_ACCESS_PRESENT | DESC_ACCESS_S | DESC_ACCESS_RW |
				 DESC_FLAG_GRAN | DESC_LIMIT_MAX;
}

void gdt_load(uint32_t index, uint64_t ist_base)
{
	struct tss64 *tss = &percpu[index].tss;
	memset(tss, 0, sizeof(*tss));
	tss->ist[IST_DOUBLE_FAULT - 1] = ist_base + 1 * IST_STACK_SIZE;
	tss->ist[IST_NMI - 1] = ist_base + 2 * IST_STACK_SIZE;
	tss->ist[IST_MACHINE_CHECK - 1] = ist_base + 3 * IST_STACK_SIZE;
	tss->iomap_base = sizeof(*tss); /* no I/O permission bitmap */

	/* A 16-byte system descriptor (§8.2.3, Figure 8-4). */
	uint64_t base = (uint64_t)(uintptr_t)tss;
	uint64_t limit = sizeof(*tss) - 1;
	uint32_t slot = GDT_TSS_FIRST + 2 * index;
	gdt[slot] = (limit & 0xffff) | ((base & 0xffffff) << 16) | DESC_TYPE_TSS_AVAIL |
		    DESC_ACCESS_PRESENT | ((base >> 24 & 0xff) << 56);
	gdt[slot + 1] = base >> 32;

	struct gdt_ptr p = { sizeof(gdt) - 1, (uint64_t)(uintptr_t)gdt };
	uint16_t tss_sel = (uint16_t)(slot * 8);
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"mov %2, %%ds\n\t"
		"mov %2, %%es\n\t"
		"mov %2, %%ss\n\t"
		/* FS and GS keep their selectors: loading one would zero the
		 * GS base that points at this CPU's struct percpu. */
		"ltr %3\n\t"
		:
		: "m"(p), "i"((uint64_t)GDT_KCODE_SEL), "r"((uint64_t)GDT_KDATA_SEL), "r"(tss_sel)
		: "rax", "memory");
}
