/* serial.c - 16550 UART driver, polled, interrupts off (TI PC16550D datasheet; Microsoft SPCR for MMIO ports); see serial.h. */
#include "serial.h"
#include "cpu.h"
#include "spinlock.h"

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
#define UART_OVERSAMPLE 16    /* baud = clock / (16 * divisor) */
#define DIVISOR_MAX 0xffff

#define TX_WAIT_MS 10         /* one byte at 300 baud is 33 ms; at 9600 and up, under 1.1 ms */
#define TX_STALLS_TO_GIVE_UP 3 /* bytes in a row that timed out before the port is given up */
#define SCRATCH_PATTERN 0x5a
#define SCRATCH_PATTERN_2 0xa5

/* ---- Private Variables ---------------------------------------------------- */
static struct serial_port port = { false, SERIAL_COM1, 1, 1, SERIAL_DEFAULT_BAUD, SERIAL_PC_CLOCK_HZ };
static enum { PORT_OK, PORT_DISABLED, PORT_NO_ANSWER, PORT_STALLED } status = PORT_OK;
static unsigned stalls;
static uint64_t dropped;

/* ---- Private Functions ---------------------------------------------------- */
static uint8_t reg_read(const struct serial_port *p, unsigned reg)
{
	if (!p->mmio)
		return inb((uint16_t)(p->base + reg));
	volatile void *a = (volatile void *)(uintptr_t)(p->base + (uint64_t)reg * p->stride);
	return p->width == 4 ? (uint8_t)*(volatile uint32_t *)a : *(volatile uint8_t *)a;
}

static void reg_write(const struct serial_port *p, unsigned reg, uint8_t v)
{
	if (!p->mmio) {
		outb((uint16_t)(p->base + reg), v);
		return;
	}
	volatile void *a = (volatile void *)(uintptr_t)(p->base + (uint64_t)reg * p->stride);
	if (p->width == 4)
		*(volatile uint32_t *)a = v;
	else
		*(volatile uint8_t *)a = v;
}

/* ---- Public Functions ----------------------------------------------------- */
bool serial_probe(const struct serial_port *p)
{
	uint8_t old = reg_read(p, UART_SCR);
	reg_write(p, UART_SCR, SCRATCH_PATTERN);
	bool ok = reg_read(p, UART_SCR) == SCRATCH_PATTERN;
	reg_write(p, UART_SCR, SCRATCH_PATTERN_2);
	ok = ok && reg_read(p, UART_SCR) == SCRATCH_PATTERN_2;
	reg_write(p, UART_SCR, old);
	return ok;
}

bool serial_init(const struct serial_port *p)
{
	port = *p;
	stalls = 0;
	if (!serial_probe(&port)) {
		status = PORT_NO_ANSWER;
		return false;
	}
	status = PORT_OK;
	reg_write(&port, UART_IER, 0);
	/* The divisor only where the clock is known: a wrong one garbles
	 * everything, while the firmware's already works (SPCR, console=). */
	uint32_t clock = port.clock_hz ? port.clock_hz : port.mmio ? 0 : SERIAL_PC_CLOCK_HZ;
	if (port.baud && clock) {
		uint32_t div = clock / (UART_OVERSAMPLE * port.baud);
		div = div == 0 ? 1 : div > DIVISOR_MAX ? DIVISOR_MAX : div;
		reg_write(&port, UART_LCR, LCR_DLAB);
		reg_write(&port, UART_DLL, (uint8_t)div);
		reg_write(&port, UART_DLM, (uint8_t)(div >> 8));
	}
	reg_write(&port, UART_LCR, LCR_8N1);
	reg_write(&port, UART_FCR, FCR_ENABLE_CLEAR);
	reg_write(&port, UART_MCR, MCR_DTR_RTS_OUT2);
	return true;
}

void serial_disable(void)
{
	status = PORT_DISABLED;
}

void serial_write(const char *s, unsigned long n)
{
	if (status != PORT_OK) {
		dropped += n;
		return;
	}
	for (unsigned long i = 0; i < n; i++) {
		uint64_t deadline = 0;
		bool ready;
		while (!(ready = reg_read(&port, UART_LSR) & LSR_THR_EMPTY)) {
			if (!deadline)
				deadline = spin_deadline_ms(TX_WAIT_MS); /* the TSC only when waiting */
			else if (__builtin_ia32_rdtsc() >= deadline)
				break;
			cpu_pause();
		}
		if (!ready) {
			dropped++;
			if (++stalls >= TX_STALLS_TO_GIVE_UP) {
				status = PORT_STALLED;
				dropped += n - i - 1;
				return;
			}
			continue;
		}
		stalls = 0;
		reg_write(&port, UART_THR, (uint8_t)s[i]);
	}
}

const struct serial_port *serial_current(void)
{
	return status == PORT_DISABLED ? 0 : &port;
}

uint64_t serial_dropped(void)
{
	return dropped;
}

const char *serial_why(void)
{
	switch (status) {
	case PORT_OK: return 0;
	case PORT_DISABLED: return "disabled";
	case PORT_NO_ANSWER: return "no answer at the scratch register";
	case PORT_STALLED: return "transmitter stalled";
	}
	return "?";
}
