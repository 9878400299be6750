/* apic.h - the local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode, for IDs and IPIs only (Intel SDM vol. 3A ch. 11). */
#ifndef QB_KERNEL_APIC_H
#define QB_KERNEL_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_XAPIC_MAX_ID 254 /* 255 is the xAPIC broadcast ID */

/* Set up the BSP's APIC: keep x2APIC if the firmware enabled it, switch to
 * it if need_x2apic (an APIC ID above 254) and the CPU has it, else use xAPIC
 * MMIO at madt_base. Returns false with an error record if neither works. */
bool apic_init_bsp(uint64_t madt_base, bool need_x2apic);

/* Put an AP's APIC in the BSP's mode. */
void apic_init_ap(void);

/* This CPU's APIC ID (the full x2APIC ID in x2APIC mode). */
uint32_t apic_id(void);

/* True in x2APIC mode; "x2apic" or "xapic" for the records. */
bool apic_is_x2(void);
const char *apic_mode_name(void);

/* The IPIs bring-up and shutdown need, each to one APIC ID (never a
 * shorthand). Each waits a bounded time for the previous IPI to be accepted;
 * false if it was not. In xAPIC mode a SIPI also fails when the ESR reports
 * a send error (apic_last_esr). */
bool apic_send_init(uint32_t dest);
bool apic_send_init_deassert(uint32_t dest);
bool apic_send_sipi(uint32_t dest, uint8_t vector);
bool apic_send_nmi(uint32_t dest);

/* A fixed interrupt with vector to one APIC ID (the idle CPUs' wake-up). */
bool apic_send_fixed(uint32_t dest, uint8_t vector);

/* End of interrupt, for a fixed interrupt being handled on this CPU. */
void apic_eoi(void);

/* The ESR's send-error bits after the last SIPI (xAPIC mode; 0 in x2APIC). */
uint32_t apic_last_esr(void);

/* Whether `vector` waits in this CPU's IRR: raised, not yet taken (§11.8.4). */
bool apic_irr_has(uint8_t vector);

/* The local APIC timer's ticks per second at divide-by-16 (§11.5.4), counted
 * against the TSC for `ms` milliseconds with its interrupt masked; 0 when it
 * does not count or the TSC frequency is unknown. */
uint64_t apic_timer_hz(uint32_t ms);

/* Raise `vector` on this CPU once, after `count` timer ticks (divide by 16). */
void apic_timer_one_shot(uint8_t vector, uint32_t count);

/* Stop the timer and mask its interrupt. */
void apic_timer_stop(void);

#endif
