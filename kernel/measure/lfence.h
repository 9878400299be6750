/* lfence.h - making LFENCE dispatch-serialising on AMD through DE_CFG[1] (AMD, "Software Techniques for Managing Speculation on AMD Processors", 2018; Linux arch/x86/kernel/cpu/amd.c). */
#ifndef QB_KERNEL_LFENCE_H
#define QB_KERNEL_LFENCE_H

#include "tsc_choice.h"

/* On the calling CPU: set DE_CFG[1] (MSR C001_1029h) if it is clear, through
 * msr_read_safe/msr_write_safe, and read it back. TSC_DE_CFG_SET if the bit
 * is set afterwards; TSC_DE_CFG_FAILED on #GP or when the write did not stick
 * (a hypervisor may ignore it). The Linux twin answers TSC_DE_CFG_BY_OS. */
enum tsc_de_cfg lfence_make_serialising(void);

#endif
