/* efi_results.c - find the stick's results files before leaving the firmware: their byte extents on the disk, checked on the raw disk, and the USB path of that disk; see efi_results.h.
 *
 * The volume is the one this application was loaded from (its loaded
 * image's DeviceHandle; GRUB's chainloader sets it to GRUB's own partition).
 * Each file's header (kernel/lib/resfile.h) says where tools/mkimage put it
 * on the disk; that is believed only if the partition's own blocks at that
 * place hold the same header. The disk's USB path comes from its device
 * path (UEFI 2.10 §10.3: PCI nodes, then one USB node per tier, each with
 * the 0-based port on its parent hub, then the logical unit and the
 * partition) and the host controller's PCI address from its PCI I/O
 * protocol (§14.4 GetLocation). */
#include <efi.h>
#include <efilib.h>

#include "cpu.h"
#include "efi_pci.h"
#include "efi_results.h"
#include "resfile.h"

/* ---- Constants ------------------------------------------------------------ */
#define RESULTS_LOG_PATH L"\\quietbench\\results.log"
#define RESULTS_PREV_PATH L"\\quietbench\\results.prev"
#define MSG_NVME_NAMESPACE 0x17 /* UEFI 2.10 §10.3.4.21, not in gnu-efi's headers */

static EFI_GUID loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;
static EFI_GUID pci_io_guid = EFI_PCI_IO_PROTOCOL_GUID;
static EFI_GUID device_path_guid = EFI_DEVICE_PATH_PROTOCOL_GUID;

/* ---- Private Functions ---------------------------------------------------- */
/* status, with why: prefix (may be "") then what. */
static void set_why2(struct boot_results *r, uint32_t status, const char *prefix, const char *what)
{
	UINTN n = 0;
	r->status = status;
	for (UINTN i = 0; prefix[i] && n + 1 < sizeof(r->why); i++)
		r->why[n++] = prefix[i];
	for (UINTN i = 0; what[i] && n + 1 < sizeof(r->why); i++)
		r->why[n++] = what[i];
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

/* The header of the file at path on the volume, read through the file
 * system, with this boot's mark written into it the same way: where the
 * raw disk shows that mark is where the file really is. */
static const char *read_header(EFI_FILE_HANDLE root, CHAR16 *path, const char *mark, char *buf, struct resfile_hdr *h)
{
	EFI_FILE_HANDLE f = NULL;
	if (EFI_ERROR(root->Open(root, &f, path, EFI_FILE_MODE_READ, 0)) || !f)
		return "not on the boot volume";
	f->Close(f);
	if (EFI_ERROR(root->Open(root, &f, path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)) || !f)
		return "cannot be opened for writing (is the stick write-protected?)";
	UINTN n = RESFILE_HDR_BYTES;
	EFI_STATUS s = f->Read(f, &n, buf);
	const char *why = 0;
	size_t at = 0;
	if (EFI_ERROR(s))
		why = "could not be read";
	else if (!resfile_parse(buf, n, h, &why))
		;
	else if (!(at = resfile_boot_offset(buf, n)))
		why = "has no boot line";
	else {
		UINTN k = RESFILE_ID_LEN;
		if (EFI_ERROR(f->SetPosition(f, at)) || EFI_ERROR(f->Write(f, &k, (void *)mark)) || k != RESFILE_ID_LEN ||
		    EFI_ERROR(f->Flush(f)))
			why = "could not be marked for this boot (is the stick write-protected?)";
		CopyMem(buf + at, (void *)mark, RESFILE_ID_LEN);
		CopyMem(h->boot, (void *)mark, RESFILE_ID_LEN);
	}
	f->Close(f);
	return why;
}


/* True if the partition's blocks at the header's disk offset hold hdr. */
static const char *check_on_disk(EFI_BLOCK_IO *bio, uint64_t part_start, const struct resfile_hdr *h,
				 const char *hdr, void *scratch)
{
	uint32_t bs = bio->Media->BlockSize;
	if (!bs || RESFILE_HDR_BYTES % bs)
		return "the disk's block size does not divide 512";
	if (h->offset < part_start || (h->offset - part_start) % bs)
		return "its header's offset is not inside the boot partition";
	EFI_LBA lba = (h->offset - part_start) / bs;
	if (lba + (h->length / bs) - 1 > bio->Media->LastBlock)
		return "its header's extent runs past the end of the partition";
	if (EFI_ERROR(bio->ReadBlocks(bio, bio->Media->MediaId, lba, RESFILE_HDR_BYTES, scratch)))
		return "the disk could not be read at its header's offset";
	if (CompareMem(scratch, hdr, RESFILE_HDR_BYTES))
		return "its header's offset does not hold it (the file was moved or copied: rebuild the stick)";
	return 0;
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
void efi_results_find(EFI_SYSTEM_TABLE *st, EFI_HANDLE image, struct boot_results *r)
{
	static char log_hdr[RESFILE_HDR_BYTES], prev_hdr[RESFILE_HDR_BYTES];
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
	const char *kind, *why;
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
	struct resfile_hdr log, prev;
	static const char digits[] = "0123456789abcdef";
	char mark[RESFILE_ID_LEN + 1];
	uint64_t t = rdtsc() * 0x9e3779b97f4a7c15ull; /* differs from boot to boot */
	for (int i = 0; i < RESFILE_ID_LEN; i++)
		mark[i] = digits[(t >> (60 - 4 * i)) & 15];
	mark[RESFILE_ID_LEN] = 0;
	why = read_header(root, RESULTS_LOG_PATH, mark, log_hdr, &log);
	const char *why_prev = why ? 0 : read_header(root, RESULTS_PREV_PATH, mark, prev_hdr, &prev);
	root->Close(root);
	if (why || why_prev) {
		set_why2(r, BOOT_RESULTS_NONE, why ? "/quietbench/results.log: " : "/quietbench/results.prev: ",
			 why ? why : why_prev);
		return;
	}
	if (CompareMem(log.id, prev.id, sizeof(log.id))) {
		set_why(r, BOOT_RESULTS_NONE, "results.log and results.prev come from different images");
		return;
	}
	void *scratch = AllocatePool(RESFILE_HDR_BYTES + 4096);
	if (EFI_ERROR(st->BootServices->HandleProtocol(li->DeviceHandle, &block_io_guid, (void **)&bio)) || !bio ||
	    !scratch) {
		set_why(r, BOOT_RESULTS_NONE, "the boot volume cannot be read block by block");
		return;
	}
	/* ReadBlocks wants IoAlign-aligned memory: round up within the pool. */
	uintptr_t align = bio->Media->IoAlign > 1 ? bio->Media->IoAlign : 1;
	void *buf = (void *)(((uintptr_t)scratch + align - 1) & ~(align - 1));
	uint64_t part_start = part_lba * bio->Media->BlockSize;
	const char *file = "/quietbench/results.log: ";
	why = check_on_disk(bio, part_start, &log, log_hdr, buf);
	if (!why) {
		file = "/quietbench/results.prev: ";
		why = check_on_disk(bio, part_start, &prev, prev_hdr, buf);
	}
	FreePool(scratch);
	if (why) {
		set_why2(r, BOOT_RESULTS_NONE, file, why);
		return;
	}
	r->block_size = bio->Media->BlockSize;
	r->log_offset = log.offset;
	r->log_length = log.length;
	r->prev_offset = prev.offset;
	r->prev_length = prev.length;
	CopyMem(r->id, log.id, sizeof(log.id));
	CopyMem(r->boot, mark, sizeof(mark));
	if (!usb) {
		set_why(r, BOOT_RESULTS_NOT_USB, kind);
		return;
	}
	r->status = BOOT_RESULTS_FOUND;
	find_controller(st, dp, r);
}
