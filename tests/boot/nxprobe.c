/* nxprobe.c - the control for the strict-NX boots: a UEFI application, started like quietbench.efi (shim,
 * GRUB), that runs a RET from its own .data section, which a firmware enforcing W^X on loaded images maps
 * non-executable (UEFI 2.10 section 37.7, EFI_MEMORY_ATTRIBUTE_PROTOCOL, as shim applies it), so that
 * tests/boot/secureboot_tests.py can show the firmware really is strict. It powers the machine off after. */
#include <efi.h>
#include <efilib.h>

/* ---- Constants ------------------------------------------------------------ */

#define X86_RET 0xC3 /* near return: the whole of the code put in the data section */

/* ---- Private Variables ---------------------------------------------------- */

/* In .data (writable, so not executable under W^X); 16 bytes so it is not merged away. */
static UINT8 data_code[16] = { X86_RET };

/* ---- Public Functions ----------------------------------------------------- */

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	InitializeLib(image, st);
	Print(L"nxprobe: calling a RET in its own .data section at 0x%lx\r\n", (UINT64)(UINTN)data_code);
	((void (*)(void))(UINTN)data_code)();
	Print(L"nxprobe: ran code from its .data section\r\n");
	st->RuntimeServices->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	return EFI_SUCCESS;
}
