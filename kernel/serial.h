/* serial.h - the 16550 UART console: COM1 by default, or the port the SPCR table names (I/O or MMIO). */
#ifndef QB_KERNEL_SERIAL_H
#define QB_KERNEL_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#define SERIAL_COM1 0x3f8
#define SERIAL_DEFAULT_BAUD 115200

/* Where the UART's registers are. */
struct serial_port {
	bool mmio;           /* false: I/O ports */
	uint64_t base;       /* port number or physical address */
	uint8_t stride;      /* bytes between registers (1 for I/O; 1 or 4 for MMIO) */
	uint8_t width;       /* access width in bytes for MMIO (1 or 4) */
	uint32_t baud;       /* 0: keep what the firmware programmed */
};

/* Program the UART (8N1, FIFOs on, interrupts off) and make it the console.
 * Returns false if the port does not answer a scratch-register test. */
bool serial_init(const struct serial_port *p);

/* Write n bytes; each byte waits a bounded time for the transmitter. */
void serial_write(const char *s, unsigned long n);

/* The port in use, for the boot record. */
const struct serial_port *serial_current(void);

/* Bytes dropped because the transmitter never became ready. */
uint64_t serial_dropped(void);

#endif
