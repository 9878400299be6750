/* mb2_boot.h - the contract between the multiboot2 entry (mb2_entry.S), its C half (mb2_main.c) and boot/mb2.ld.
 *
 * GRUB loads build/quietbench-mb2.elf at MB2_LOAD_BASE: the multiboot2
 * header, this boot path's code, and the flat kernel image followed by room
 * for its bss, so the kernel runs where GRUB put it and is never copied.
 * The 32-bit entry identity-maps the first 4 GiB, enters long mode and
 * calls mb2_main(), which builds the real handoff tables (boot/handoff_pt.c,
 * as on UEFI) and jumps to the kernel. */
#ifndef QB_BOOT_MB2_BOOT_H
#define QB_BOOT_MB2_BOOT_H

#define MB2_LOAD_BASE 0x200000      /* physical load address, also the link address */
#define MB2_STACK_SIZE 0x10000      /* the BSP's boot stack, handed to the kernel */
#define MB2_EARLY_MAP_PDS 4         /* page directories of 2 MiB pages: 4 GiB identity */
#define MB2_EARLY_PDES (MB2_EARLY_MAP_PDS * 512)
#define MB2_PAGE_2M 0x200000

/* Page-table entry bits (Intel SDM vol. 3A §4.5), as in boot/handoff_pt.h, which is C only. */
#define MB2_PTE_PRESENT 0x1
#define MB2_PTE_WRITE 0x2
#define MB2_PTE_LARGE 0x80

/* Control-register bits (Intel SDM vol. 3A §2.5), as in kernel/arch/cpu.h, which is C only. */
#define MB2_CR0_PE (1 << 0)
#define MB2_CR0_MP (1 << 1)
#define MB2_CR0_EM (1 << 2)
#define MB2_CR0_PG (1 << 31)
#define MB2_CR4_PAE (1 << 5)
#define MB2_CR4_LA57 (1 << 12)
#define MB2_CR4_OSFXSR (1 << 9)
#define MB2_CR4_OSXMMEXCPT (1 << 10)

/* CPUID.80000001H:EDX[29] long mode (Intel SDM vol. 2A, CPUID). */
#define MB2_CPUID_EXT_MAX 0x80000000
#define MB2_CPUID_EXT_FEATURES 0x80000001
#define MB2_CPUID_LM (1 << 29)

/* The entry's GDT: null, then the same flat descriptors as the AP trampoline (kernel/arch/trampoline.h). */
#define MB2_CODE64_SEL 0x08
#define MB2_DATA_SEL 0x10
#define MB2_CODE32_SEL 0x18         /* compatibility-mode code, for the switch to 5-level paging */

/* Where a message goes when this path cannot go on: COM1 and the VGA text screen. */
#define MB2_COM1 0x3f8
#define MB2_UART_THR 0              /* transmit holding register */
#define MB2_UART_LSR 5              /* line status register */
#define MB2_LSR_THR_EMPTY 0x20
#define MB2_TX_WAIT_TICKS 10000000  /* TSC ticks before a byte is given up: 1 ms at 10 GHz, 10 ms at 1 GHz */
#define MB2_VGA_TEXT 0xb8000
#define MB2_VGA_ATTR 0x4f           /* white on red */
#define MB2_VGA_CELLS 2000          /* 80 x 25 */

#ifndef __ASSEMBLY__
#include <stdint.h>
#include "boot_info.h"

/* Linker symbols (boot/mb2.ld): the whole image, and the kernel inside it. */
extern uint8_t mb2_image_start[], mb2_image_end[];
extern uint8_t mb2_kernel_start[], mb2_kernel_file_end[], mb2_kernel_end[];
/* The boot stack (mb2_entry.S). */
extern uint8_t mb2_stack[];

/* Called in 64-bit mode on the boot stack, identity-mapped 4 GiB, SSE on:
 * magic is EAX and info_phys EBX as the loader left them, entry_tsc the TSC
 * at entry. Does not return. */
void mb2_main(uint32_t magic, uint32_t info_phys, uint64_t entry_tsc) __attribute__((noreturn));

/* Switch to cr3 and the stack, and jump to entry with rdi = bi (mb2_entry.S). */
void mb2_handoff(uint64_t cr3, uint64_t stack_top, uint64_t entry, struct boot_info *bi)
	__attribute__((noreturn));

/* The same, turning on 5-level paging on the way (paging=5): cr3 is a PML5
 * below 4 GiB. Leaves 64-bit mode for compatibility mode, turns paging off,
 * sets CR4.LA57, loads cr3 and turns paging back on (Intel SDM vol. 3A
 * §9.8.5, §10.8.5.4), so the kernel starts as LA57 firmware would leave it. */
void mb2_handoff_la57(uint64_t cr3, uint64_t stack_top, uint64_t entry, struct boot_info *bi)
	__attribute__((noreturn));
#endif

#endif
