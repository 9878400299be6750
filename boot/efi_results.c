/* efi_results.c - find the stick's results files before leaving the firmware: their byte extents on the disk, checked on the raw disk, and the USB path of that disk; see efi_results.h.
 *
 * The volume is the one this application was loaded from (its loaded
 * image's DeviceHandle; GRUB's chainloader sets it to the partition GRUB
 * loaded it from, which tools/mkimage makes GRUB's own boot disk). Each
 * file's header (kernel/lib/resfile.h) says where tools/mkimage put it on
 * the disk; that is believed only when the file is proven whole and in
 * place (boot/efi_resfile.h), and nothing is written before. The disk's USB path comes from its device
 * path (UEFI 2.10 §10.3: PCI nodes, then one USB node per tier, each with
 * the 0-based port on its parent hub, then the logical unit and the
 * partition) and the host controller's PCI address from its PCI I/O
 * protocol (§14.4 GetLocation). */
#include <efi.h>
#include <efilib.h>

#include "cpu.h"
#include "efi_pci.h"
#include "efi_resfile.h"
#include "efi_results.h"
#include "efi_series.h"
#include "resfile.h"

/* ---- Constants ------------------------------------------------------------ */
#define MSG_NVME_NAMESPACE 0x17 /* UEFI 2.10 §10.3.4.21, not in gnu-efi's headers */

static EFI_GUID loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;
static EFI_GUID pci_io_guid = EFI_PCI_IO_PROTOCOL_GUID;
static EFI_GUID device_path_guid = EFI_DEVICE_PATH_PROTOCOL_GUID;

/* ---- Private Functions ---------------------------------------------------- */
/* status, with why: "/quietbench/<file>: " when file is not "", then what. */
static void set_why2(struct boot_results *r, uint32_t status, const char *file, const char *what)
{
	const char *parts[4] = { file[0] ? "/quietbench/" : "", file, file[0] ? ": " : "", what };
	UINTN n = 0;
	r->status = status;
	for (int p = 0; p < 4; p++)
		for (UINTN i = 0; parts[p][i] && n + 1 < sizeof(r->why); i++)
			r->why[n++] = parts[p][i];
	r->why[n] = 0;
}

static void set_why(struct boot_results *r, uint32_t status, const char *why)
{
	set_why2(r, status, "", why);
}

static void copy_path_text(struct boot_results *r, EFI_DEVICE_PATH *dp)
{
	CHAR16 *t = DevicePathToStr(dp);
	UINTN i = 0;
	for (; t && t[i] && i + 1 < sizeof(r->device_path); i++)
		r->device_path[i] = t[i] >= 0x20 && t[i] < 0x7f ? (char)t[i] : '?';
	r->device_path[i] = 0;
	if (t)
		FreePool(t);
}

/* Walk the device path: the partition's start (in bytes), the USB ports and the logical unit. */
static void walk_path(EFI_DEVICE_PATH *dp, struct boot_results *r, uint64_t *part_lba, int *usb, const char **kind)
{
	*kind = "a disk of unknown kind";
	for (EFI_DEVICE_PATH *n = dp; !IsDevicePathEnd(n); n = NextDevicePathNode(n)) {
		uint8_t type = DevicePathType(n), sub = DevicePathSubType(n);
		if (type == MESSAGING_DEVICE_PATH && sub == MSG_USB_DP) {
			if (r->n_ports < BOOT_RESULTS_MAX_PORTS)
				r->ports[r->n_ports] = (uint8_t)(((USB_DEVICE_PATH *)n)->Port + 1);
			r->n_ports++;
			*usb = 1;
		} else if (type == MESSAGING_DEVICE_PATH && sub == MSG_DEVICE_LOGICAL_UNIT_DP) {
			r->lun = ((DEVICE_LOGICAL_UNIT_DEVICE_PATH *)n)->Lun;
		} else if (type == MEDIA_DEVICE_PATH && sub == MEDIA_HARDDRIVE_DP) {
			*part_lba = ((HARDDRIVE_DEVICE_PATH *)n)->PartitionStart;
		} else if (type == MEDIA_DEVICE_PATH && sub == MEDIA_CDROM_DP) {
			*kind = "a CD or DVD (El Torito)";
		} else if (type == MESSAGING_DEVICE_PATH && !*usb) {
			*kind = sub == MSG_SATA_DP ? "a SATA disk" : sub == MSG_NVME_NAMESPACE ? "an NVMe disk"
			      : sub == MSG_SCSI_DP ? "a SCSI disk" : sub == MSG_ATAPI_DP ? "an IDE/ATAPI disk"
			      : sub == MSG_MAC_ADDR_DP ? "the network" : *kind;
		} else if (type == HARDWARE_DEVICE_PATH && sub == HW_VENDOR_DP && !*usb) {
			*kind = "a firmware or virtual disk";
		}
	}
}

/* The whole disk's block size, 0 if it cannot be found. The partition's own
 * block I/O may count other blocks (EDK2 gives an MBR partition 512-byte
 * blocks whatever the disk's), but the device path's partition start counts
 * the disk's (UEFI 2.10 §10.3.5.1), as do the results files' headers. */
static uint32_t disk_block_size(EFI_SYSTEM_TABLE *st, EFI_DEVICE_PATH *dp)
{
	EFI_DEVICE_PATH *copy = DuplicateDevicePath(dp), *rest;
	EFI_HANDLE h = NULL;
	EFI_BLOCK_IO *disk = NULL;
	uint32_t bs = 0;
	if (!copy)
		return 0;
	for (EFI_DEVICE_PATH *n = copy; !IsDevicePathEnd(n); n = NextDevicePathNode(n))
		if (DevicePathType(n) == MEDIA_DEVICE_PATH && DevicePathSubType(n) == MEDIA_HARDDRIVE_DP) {
			SetDevicePathEndNode(n);
			break;
		}
	rest = copy;
	if (!EFI_ERROR(st->BootServices->LocateDevicePath(&block_io_guid, &rest, &h)) && h && IsDevicePathEnd(rest) &&
	    !EFI_ERROR(st->BootServices->HandleProtocol(h, &block_io_guid, (void **)&disk)) && disk)
		bs = disk->Media->BlockSize;
	FreePool(copy);
	return bs;
}

/* The host controller's PCI address: the PCI I/O protocol on the deepest PCI node of dp. */
static void find_controller(EFI_SYSTEM_TABLE *st, EFI_DEVICE_PATH *dp, struct boot_results *r)
{
	EFI_DEVICE_PATH *rest = dp;
	EFI_HANDLE h = NULL;
	EFI_PCI_IO *pci = NULL;
	UINTN seg = 0, bus = 0, dev = 0, fn = 0;
	if (EFI_ERROR(st->BootServices->LocateDevicePath(&pci_io_guid, &rest, &h)) || !h ||
	    EFI_ERROR(st->BootServices->HandleProtocol(h, &pci_io_guid, (void **)&pci)) || !pci ||
	    EFI_ERROR(pci->GetLocation(pci, &seg, &bus, &dev, &fn))) {
		set_why(r, BOOT_RESULTS_NONE, "the USB host controller's PCI address could not be found");
		return;
	}
	r->pci_segment = (uint16_t)seg;
	r->pci_bus = (uint8_t)bus;
	r->pci_dev = (uint8_t)dev;
	r->pci_fn = (uint8_t)fn;
}

/* ---- Public Functions ----------------------------------------------------- */
void efi_results_find(EFI_SYSTEM_TABLE *st, EFI_HANDLE image, struct boot_info *bi)
{
	struct boot_results *r = &bi->results;
	EFI_LOADED_IMAGE *li = NULL;
	EFI_DEVICE_PATH *dp = NULL;
	EFI_BLOCK_IO *bio = NULL;
	SetMem(r, sizeof(*r), 0);
	if (EFI_ERROR(st->BootServices->HandleProtocol(image, &loaded_image_guid, (void **)&li)) || !li ||
	    EFI_ERROR(st->BootServices->HandleProtocol(li->DeviceHandle, &device_path_guid, (void **)&dp)) || !dp) {
		set_why(r, BOOT_RESULTS_NONE, "the firmware does not say which volume this was loaded from");
		return;
	}
	copy_path_text(r, dp);
	uint64_t part_lba = 0;
	int usb = 0;
	const char *kind;
	walk_path(dp, r, &part_lba, &usb, &kind);
	if (!usb && !CompareMem((void *)kind, "the network", 12)) {
		set_why(r, BOOT_RESULTS_NONE, "booted over the network: there is no stick to write results to");
		return;
	}
	if (r->n_ports > BOOT_RESULTS_MAX_PORTS) {
		set_why(r, BOOT_RESULTS_NONE, "the stick is behind more hubs than USB allows");
		return;
	}
	if (usb && !efi_pci_usb_on_xhci(st, dp, r))
		return; /* an EHCI, OHCI or UHCI: why says so; nothing is marked, the log goes to serial */
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle);
	if (!root) {
		set_why(r, BOOT_RESULTS_NONE, "the boot volume has no file system the firmware can read");
		return;
	}
	static struct efi_resfile found;
	static struct efi_resfile_vol vol;
	static const char digits[] = "0123456789abcdef";
	char mark[RESFILE_ID_LEN + 1];
	uint64_t t = rdtsc() * 0x9e3779b97f4a7c15ull; /* differs from boot to boot */
	for (int i = 0; i < RESFILE_ID_LEN; i++)
		mark[i] = digits[(t >> (60 - 4 * i)) & 15];
	mark[RESFILE_ID_LEN] = 0;
	if (EFI_ERROR(st->BootServices->HandleProtocol(li->DeviceHandle, &block_io_guid, (void **)&bio)) || !bio) {
		root->Close(root);
		set_why(r, BOOT_RESULTS_NONE, "the boot volume cannot be read block by block");
		return;
	}
	uint32_t disk_bs = part_lba ? disk_block_size(st, dp) : bio->Media->BlockSize;
	if (!disk_bs) {
		root->Close(root);
		set_why(r, BOOT_RESULTS_NONE, "the boot disk's block size cannot be read");
		return;
	}
	/* Marked only where the kernel will write: a stick on USB. */
	bool ok = efi_resfile_check(root, bio, disk_bs, part_lba * disk_bs, usb ? mark : NULL, &found, &vol);
	if (ok && usb)
		efi_series_find(root, &vol, mark, bi); /* series=N, or a series under way on this stick (issue 37) */
	efi_resfile_vol_close(&vol);
	root->Close(root);
	if (!ok) {
		set_why2(r, BOOT_RESULTS_NONE, found.file, found.why);
		return;
	}
	struct resfile_hdr log = found.log, prev = found.prev;
	r->block_size = disk_bs;
	r->log_offset = log.offset;
	r->log_length = log.length;
	r->prev_offset = prev.offset;
	r->prev_length = prev.length;
	CopyMem(r->id, log.id, sizeof(log.id));
	if (!usb) {
		set_why(r, BOOT_RESULTS_NOT_USB, kind);
		return;
	}
	CopyMem(r->boot, mark, sizeof(mark));
	r->status = BOOT_RESULTS_FOUND;
	find_controller(st, dp, r);
}
