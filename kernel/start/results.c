/* results.c - where this run's results go, and writing them to the boot stick; see results.h.
 *
 * The stick is reached with the kernel's own drivers (kernel/usb/). Only the
 * two extents the loader found are ever written, and only after their
 * headers were read back from the stick and match what the loader saw. */
#include "results.h"
#include "console.h"
#include "cpuid_snap.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"
#include "pmm.h"
#include "resfile.h"
#include "usb.h"

/* ---- Constants ------------------------------------------------------------ */
#define USB_PATH_LEN 64
#define CHUNK (64u * 1024)                /* bytes moved at a time when copying or clearing */

/* ---- Private Variables ---------------------------------------------------- */
static struct usb_stick stick;
static bool saving;                       /* the stick is reached and its headers matched */
static struct resfile_hdr log_h, prev_h;
static uint64_t saved;                    /* log bytes already on the stick, whole blocks */
static bool said_full;
static uint8_t *chunk;                    /* CHUNK bytes of scratch */
static struct results_usb_state usb_state = { "not attempted: the log goes to serial only", -1, -1 };

/* ---- Private Functions ---------------------------------------------------- */
static const char *status_name(uint32_t s)
{
	switch (s) {
	case BOOT_RESULTS_FOUND: return "found";
	case BOOT_RESULTS_NOT_USB: return "not-usb";
	case BOOT_RESULTS_NONE: return "none";
	}
	return "not-looked";
}

/* "0000:00:04.0 port 1.3" for a stick on port 3 of a hub on root port 1. */
static void usb_path(const struct boot_results *r, char *out, size_t cap)
{
	size_t n = (size_t)fmt_snprintf(out, cap, "%04x:%02x:%02x.%x port", r->pci_segment, r->pci_bus, r->pci_dev,
					r->pci_fn);
	for (uint32_t i = 0; i < r->n_ports && i < BOOT_RESULTS_MAX_PORTS && n < cap; i++)
		n += (size_t)fmt_snprintf(out + n, cap - n, "%s%u", i ? "." : " ", r->ports[i]);
}

/* IA32_SMI_COUNT where it can be read (Intel), else -1. */
static int64_t smi_count(void)
{
	uint64_t v = 0;
	struct cpuid_snap s;
	cpuid_snap_take(&s);
	if (cpuid_snap_vendor(&s) != CPU_VENDOR_INTEL || msr_read_safe(MSR_SMI_COUNT, &v) != MSR_OK)
		return -1;
	return (int64_t)(v & 0xffffffffu);
}

static bool stop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool stop(const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	saving = false;
	console_tee_stop();
	console_error("results file", "%s: the log goes to serial only", detail);
	return false;
}

static bool rw(bool write, uint64_t byte, uint32_t bytes, void *buf)
{
	return usb_stick_rw(&stick, write, byte / stick.block_size, bytes / stick.block_size, buf);
}

/* Read the header at off and check it is the one the loader found. */
static bool read_header(uint64_t off, uint64_t len, const char *file, const char *id, const char *boot,
			struct resfile_hdr *h)
{
	const char *why = 0;
	if (!rw(false, off, RESFILE_HDR_BYTES, chunk))
		return stop("%s's header could not be read: %s", file, stick.why);
	if (!resfile_parse((const char *)chunk, RESFILE_HDR_BYTES, h, &why))
		return stop("%s's header on the stick: %s", file, why);
	if (memcmp(h->id, id, RESFILE_ID_LEN) || memcmp(h->boot, boot, RESFILE_ID_LEN) || h->offset != off ||
	    h->length != len || strcmp(h->file, file))
		return stop("%s's header on the stick is not the one the loader found: not written", file);
	return true;
}

static bool write_header(struct resfile_hdr *h)
{
	if (!resfile_format((char *)chunk, RESFILE_HDR_BYTES, h) || !rw(true, h->offset, RESFILE_HDR_BYTES, chunk))
		return stop("%s's header could not be written: %s", h->file, stick.why);
	return true;
}

/* Newlines over [from, to) of a file's log area (what an older, longer log left). */
static bool clear(const struct resfile_hdr *h, uint64_t from, uint64_t to)
{
	memset(chunk, RESFILE_PAD, CHUNK);
	for (uint64_t at = from; at < to; at += CHUNK) {
		uint32_t n = (uint32_t)(to - at < CHUNK ? to - at : CHUNK);
		if (!rw(true, h->offset + RESFILE_HDR_BYTES + at, n, chunk))
			return stop("%s could not be cleared: %s", h->file, stick.why);
	}
	return true;
}

/* The previous run's log (results.log's used part) into results.prev. */
static bool keep_previous(void)
{
	uint64_t bs = stick.block_size, room = prev_h.length - RESFILE_HDR_BYTES;
	uint64_t n = log_h.used < room ? log_h.used : room;
	uint64_t whole = (n + bs - 1) / bs * bs, old = (prev_h.used + bs - 1) / bs * bs;
	for (uint64_t at = 0; at < whole; at += CHUNK) {
		uint32_t k = (uint32_t)(whole - at < CHUNK ? whole - at : CHUNK);
		if (!rw(false, log_h.offset + RESFILE_HDR_BYTES + at, k, chunk) ||
		    !rw(true, prev_h.offset + RESFILE_HDR_BYTES + at, k, chunk))
			return stop("the previous log could not be kept in results.prev: %s", stick.why);
	}
	if (old > whole && !clear(&prev_h, whole, old))
		return false;
	prev_h.used = n;
	return write_header(&prev_h) && clear(&log_h, 0, (log_h.used + bs - 1) / bs * bs);
}

/* ---- Public Functions ----------------------------------------------------- */
void results_open(const struct boot_info *bi, uint64_t timeout_ms, bool trace)
{
	const struct boot_results *r = &bi->results;
	if (r->status != BOOT_RESULTS_FOUND) {
		console_tee_stop();
		return;
	}
	usb_set_trace(trace);
	usb_state.smi_before = smi_count();
	bool ok = usb_stick_open(&stick, r, timeout_ms);
	usb_state.handoff = stick.x.handoff;
	usb_state.smi_after = smi_count();
	if (!ok) {
		stop("the stick could not be reached: %s", stick.why);
		return;
	}
	if (stick.block_size != r->block_size || RESFILE_HDR_BYTES % stick.block_size) {
		stop("the stick has %u-byte blocks, the firmware said %u", stick.block_size, r->block_size);
		return;
	}
	chunk = (uint8_t *)(uintptr_t)pmm_alloc(CHUNK / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	uint64_t cap = r->log_length - RESFILE_HDR_BYTES;
	char *buf = (char *)(uintptr_t)pmm_alloc((cap + PMM_PAGE - 1) / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	if (!chunk || !buf) {
		stop("no memory for the log's copy");
		return;
	}
	if (!read_header(r->log_offset, r->log_length, "results.log", r->id, r->boot, &log_h) ||
	    !read_header(r->prev_offset, r->prev_length, "results.prev", r->id, r->boot, &prev_h))
		return;
	saving = true;
	if (log_h.used && !keep_previous())
		return;
	log_h.used = 0;
	if (!write_header(&log_h))
		return;
	if (!console_tee_move(buf, cap)) {
		stop("the log so far does not fit in results.log");
		return;
	}
	kprintf("results: writing the log to the boot stick's /quietbench/results.log (%llu KiB) after each workload "
		"and at the end%s\n", (unsigned long long)(cap >> 10), prev_h.used ? "; the last run's is in results.prev" : "");
}

void results_save(void)
{
	size_t n = 0;
	bool full = false;
	const char *log = console_tee(&n, &full);
	if (!saving || !log)
		return;
	uint64_t bs = stick.block_size, end = (n + bs - 1) / bs * bs;
	/* From the last block written in part up to the end, in chunks; the
	 * tail of the last block is newlines. */
	for (uint64_t at = saved; at < end; at += CHUNK) {
		uint32_t k = (uint32_t)(end - at < CHUNK ? end - at : CHUNK);
		uint64_t have = n - at < k ? n - at : k;
		memcpy(chunk, log + at, have);
		memset(chunk + have, RESFILE_PAD, k - have);
		if (!rw(true, log_h.offset + RESFILE_HDR_BYTES + at, k, chunk)) {
			stop("results.log could not be written: %s", stick.why);
			return;
		}
	}
	saved = n / bs * bs;
	log_h.used = n;
	if (!write_header(&log_h))
		return;
	if (full && !said_full) {
		said_full = true;
		console_error("results file", "results.log is full: what follows is on serial only");
	}
}

struct usb_stick *results_stick(void)
{
	return stick.disk ? &stick : 0;
}

const struct results_usb_state *results_usb(void)
{
	return &usb_state;
}

void results_report(const struct boot_info *bi)
{
	const struct boot_results *r = &bi->results;
	char path[USB_PATH_LEN];
	const char *why = r->why[0] ? r->why : "";
	if (bi->loader == BOOT_LOADER_MULTIBOOT2)
		why = "booted through GRUB's multiboot2 path (legacy BIOS), which does not say which disk it came from";
	else if (r->status == BOOT_RESULTS_NOT_LOOKED)
		why = "the loader did not look for a results file";
	struct rec *rec = console_rec_open("results_file");
	rec_str(rec, "status", status_name(r->status));
	if (r->status != BOOT_RESULTS_FOUND)
		rec_str(rec, "why", why);
	if (r->status == BOOT_RESULTS_FOUND || r->status == BOOT_RESULTS_NOT_USB) {
		rec_str(rec, "id", r->id);
		rec_u64(rec, "log_offset", r->log_offset);
		rec_u64(rec, "log_length", r->log_length);
		rec_u64(rec, "prev_offset", r->prev_offset);
		rec_u64(rec, "prev_length", r->prev_length);
		rec_u64(rec, "block_size", r->block_size);
	}
	if (r->status == BOOT_RESULTS_FOUND) {
		usb_path(r, path, sizeof(path));
		rec_str(rec, "usb_path", path);
		rec_u64(rec, "lun", r->lun);
	}
	if (r->device_path[0])
		rec_str(rec, "device_path", r->device_path);
	rec_bool(rec, "writing", saving);
	if (saving)
		rec_u64(rec, "kept_previous_bytes", prev_h.used);
	rec_str(rec, "usb_handoff", usb_state.handoff);
	console_rec_emit(rec);
	if (r->status != BOOT_RESULTS_FOUND) {
		if (r->status == BOOT_RESULTS_NOT_USB)
			kprintf("results: serial only: booted from %s, not a USB stick\n", why);
		else
			kprintf("results: serial only: %s\n", why);
	} else if (!saving) {
		kprintf("results: serial only: the boot stick's results file (USB %s) cannot be written (error above)\n",
			path);
	}
}
