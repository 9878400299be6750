/* serial.h - the 16550 UART console: COM1 by default, the SPCR's UART, or the one console= names (I/O or MMIO). */
#ifndef QB_KERNEL_SERIAL_H
#define QB_KERNEL_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#define SERIAL_COM1 0x3f8
#define SERIAL_DEFAULT_BAUD 115200
#define SERIAL_PC_CLOCK_HZ 1843200   /* the PC/AT UART crystal: 1.8432 MHz */
#define SERIAL_BITS_PER_BYTE 10      /* 8N1: start, 8 data, stop */

/* Where the UART's registers are, and how to program it. */
struct serial_port {
	bool mmio;           /* false: I/O ports */
	uint64_t base;       /* port number or physical address */
	uint8_t stride;      /* bytes between registers (1 for I/O; 1 or 4 for MMIO) */
	uint8_t width;       /* access width in bytes for MMIO (1 or 4) */
	uint32_t baud;       /* 0: keep the divisor the firmware programmed */
	uint32_t clock_hz;   /* the UART's input clock; 0: unknown (then the divisor is
				kept, except on I/O ports, which are PC/AT UARTs at 1.8432 MHz) */
};

/* True if a UART answers at p (its scratch register keeps a pattern). Touches
 * only the scratch register. */
bool serial_probe(const struct serial_port *p);

/* Make p the console: 8N1, FIFOs on, interrupts off, and the divisor for
 * p->baud where the clock is known. Returns false, and writes nothing from
 * then on, if the port does not answer the scratch-register test. */
bool serial_init(const struct serial_port *p);

/* No serial output from now on (console=none). */
void serial_disable(void);

/* Write n bytes; each byte waits a bounded time (in TSC time) for the
 * transmitter. A port whose transmitter stays busy for several bytes in a
 * row is given up: later bytes are dropped without waiting. */
void serial_write(const char *s, unsigned long n);

/* The port in use, for the boot record; NULL when there is none. */
const struct serial_port *serial_current(void);

/* Bytes dropped because the port is off, dead or stalled. */
uint64_t serial_dropped(void);

/* Why output is not going out: NULL when the port works, else "disabled",
 * "no answer at the scratch register" or "transmitter stalled". */
const char *serial_why(void);

#endif
