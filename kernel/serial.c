/* serial.c - 16550 UART driver, polled, interrupts off (TI PC16550D datasheet; Microsoft SPCR for MMIO ports). */
#include "serial.h"
#include "cpu.h"

/* ---- Constants: register offsets (in register units) and bits ------------- */
#define UART_THR 0  /* transmit holding (DLAB=0) */
#define UART_DLL 0  /* divisor latch low (DLAB=1) */
#define UART_IER 1  /* interrupt enable (DLAB=0) */
#define UART_DLM 1  /* divisor latch high (DLAB=1) */
#define UART_FCR 2  /* FIFO control */
#define UART_LCR 3  /* line control */
#define UART_MCR 4  /* modem control */
#define UART_LSR 5  /* line status */
#define UART_SCR 7  /* scratch */

#define LCR_8N1 0x03
#define LCR_DLAB 0x80
#define FCR_ENABLE_CLEAR 0x07 /* enable FIFOs, clear RX and TX */
#define MCR_DTR_RTS_OUT2 0x0b
#define LSR_THR_EMPTY 0x20
#define UART_CLOCK_DIV 115200 /* 1.8432 MHz / 16 */

#define TX_SPIN_LIMIT 200000  /* polls before a byte is given up on */
#define SCRATCH_PATTERN 0x5a

/* ---- Private Variables ---------------------------------------------------- */
static struct serial_port port = { false, SERIAL_COM1, 1, 1, SERIAL_DEFAULT_BAUD };
static bool port_ok;
static uint64_t dropped;

/* ---- Private Functions ---------------------------------------------------- */
static uint8_t reg_read(unsigned reg)
{
	if (!port.mmio)
		return inb((uint16_t)(port.base + reg));
	volatile void *a = (volatile void *)(uintptr_t)(port.base + (uint64_t)reg * port.stride);
	return port.width == 4 ? (uint8_t)*(volatile uint32_t *)a : *(volatile uint8_t *)a;
}

static void reg_write(unsigned reg, uint8_t v)
{
	if (!port.mmio) {
		outb((uint16_t)(port.base + reg), v);
		return;
	}
	volatile void *a = (volatile void *)(uintptr_t)(port.base + (uint64_t)reg * port.stride);
	if (port.width == 4)
		*(volatile uint32_t *)a = v;
	else
		*(volatile uint8_t *)a = v;
}

/* ---- Public Functions ----------------------------------------------------- */
bool serial_init(const struct serial_port *p)
{
	port = *p;
	reg_write(UART_SCR, SCRATCH_PATTERN);
	port_ok = reg_read(UART_SCR) == SCRATCH_PATTERN;
	reg_write(UART_IER, 0);
	if (port.baud) {
		uint32_t div = UART_CLOCK_DIV / port.baud;
		if (div == 0)
			div = 1;
		reg_write(UART_LCR, LCR_DLAB);
		reg_write(UART_DLL, (uint8_t)div);
		reg_write(UART_DLM, (uint8_t)(div >> 8));
	}
	reg_write(UART_LCR, LCR_8N1);
	reg_write(UART_FCR, FCR_ENABLE_CLEAR);
	reg_write(UART_MCR, MCR_DTR_RTS_OUT2);
	return port_ok;
}

void serial_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned spins = 0;
		while (!(reg_read(UART_LSR) & LSR_THR_EMPTY)) {
			if (++spins >= TX_SPIN_LIMIT)
				break;
			cpu_pause();
		}
		if (spins >= TX_SPIN_LIMIT) {
			dropped++;
			continue;
		}
		reg_write(UART_THR, (uint8_t)s[i]);
	}
}

const struct serial_port *serial_current(void)
{
	return &port;
}

uint64_t serial_dropped(void)
{
	return dropped;
}
