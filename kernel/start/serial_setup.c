/* serial_setup.c - chooses the serial console from console= and the SPCR (Microsoft "Serial Port Console Redirection Table", rev 2-4); see serial_setup.h. */
#include "serial_setup.h"
#include "console.h"
#include "paging.h"
#include "serial.h"

/* ---- Constants ------------------------------------------------------------ */
#define UART_REGS 8              /* a 16550 has eight registers */
#define WIDE_REG_BYTES 4
#define WIDE_REG_BITS 32

/* ---- Private Variables ---------------------------------------------------- */
static const char *source = "default";

/* ---- Private Functions ---------------------------------------------------- */
/* Switch to p if it answers; else stay, with an error record naming `what`. */
static bool switch_to(const struct serial_port *p, const char *what)
{
	if (p->mmio && !paging_map_mmio(p->base, (uint64_t)UART_REGS * p->stride)) {
		console_error("console", "%s: cannot map the UART at 0x%llx", what, (unsigned long long)p->base);
		return false;
	}
	if (!serial_probe(p)) {
		console_error("console", "%s: no UART answers at 0x%llx; the console stays where it was", what,
			      (unsigned long long)p->base);
		return false;
	}
	kprintf("console: moving to the %s UART at 0x%llx (%s)\n", p->mmio ? "MMIO" : "I/O",
		(unsigned long long)p->base, what);
	serial_init(p);
	return true;
}

/* The SPCR's UART clock, when it describes the UART at base. */
static uint32_t spcr_clock_of(const struct acpi_info *ai, uint64_t base)
{
	return ai->spcr.present && ai->spcr.base.address == base ? ai->spcr.uart_clock : 0;
}

static void from_option(const struct options *o, const struct acpi_info *ai)
{
	uint64_t addr = (uint64_t)o->console_addr_hi << 32 | o->console_addr_lo;
	struct serial_port p = { o->console != OPT_CONSOLE_IO, addr, 1, 1, o->console_baud, 0 };
	if (o->console == OPT_CONSOLE_MMIO32)
		p.stride = p.width = WIDE_REG_BYTES;
	if (!p.mmio && !p.baud)
		p.baud = SERIAL_DEFAULT_BAUD;
	p.clock_hz = p.mmio ? spcr_clock_of(ai, addr) : SERIAL_PC_CLOCK_HZ;
	if (p.mmio && p.baud && !p.clock_hz)
		kprintf("console: the MMIO UART's clock is unknown: keeping the firmware's divisor, not %u baud\n",
			p.baud);
	if (switch_to(&p, "console="))
		source = "console=";
}

static void from_spcr(const struct acpi_info *ai)
{
	const struct acpi_spcr_info *s = &ai->spcr;
	if (!s->present || !s->base.address)
		return; /* no table, or base 0: console redirection is off */
	bool uart = s->interface_type == ACPI_SPCR_IF_16550 || s->interface_type == ACPI_SPCR_IF_16450 ||
		    s->interface_type == ACPI_SPCR_IF_16550_GAS;
	if (!uart || (s->base.space != ACPI_GAS_SPACE_IO && s->base.space != ACPI_GAS_SPACE_MEMORY)) {
		kprintf("console: the SPCR names a type %u UART in address space %u, not a 16550; keeping COM1\n",
			s->interface_type, s->base.space);
		return;
	}
	struct serial_port p = { s->base.space == ACPI_GAS_SPACE_MEMORY, s->base.address, 1, 1, s->baud,
				 s->uart_clock };
	if (p.mmio) {
		bool wide = s->base.access_size == ACPI_GAS_ACCESS_DWORD || s->base.bit_width == WIDE_REG_BITS;
		p.stride = p.width = wide ? WIDE_REG_BYTES : 1;
	} else if (!p.clock_hz) {
		p.clock_hz = SERIAL_PC_CLOCK_HZ; /* a legacy I/O-port UART */
	}
	const struct serial_port *cur = serial_current();
	if (cur && p.mmio == cur->mmio && p.base == cur->base) {
		source = "spcr";
		return;
	}
	if (switch_to(&p, "the SPCR's"))
		source = "spcr";
}

/* ---- Public Functions ----------------------------------------------------- */
void serial_setup(const struct options *o, const struct acpi_info *ai)
{
	if (o->console == OPT_CONSOLE_NONE) {
		kprintf("console: no serial output (console=none)\n");
		serial_disable();
		source = "console=none";
	} else if (o->console != OPT_CONSOLE_AUTO) {
		from_option(o, ai);
	} else {
		from_spcr(ai);
	}
}

const char *serial_setup_source(void)
{
	return source;
}
