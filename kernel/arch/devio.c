/* devio.c - device registers, for real; see devio.h. */
#include "devio.h"
#include "cpu.h"

/* ---- Public Functions ----------------------------------------------------- */
uint32_t devio_read32(volatile void *base, uint32_t off)
{
	return *(volatile uint32_t *)((volatile uint8_t *)base + off);
}

void devio_write32(volatile void *base, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)((volatile uint8_t *)base + off) = v;
}

uint64_t devio_read64(volatile void *base, uint32_t off)
{
	return *(volatile uint64_t *)((volatile uint8_t *)base + off);
}

void devio_write64(volatile void *base, uint32_t off, uint64_t v)
{
	*(volatile uint64_t *)((volatile uint8_t *)base + off) = v;
}

uint16_t devio_in16(uint16_t port)
{
	return inw(port);
}

void devio_out16(uint16_t port, uint16_t v)
{
	outw(port, v);
}
