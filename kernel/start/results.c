/* results.c - where this run's results go, and writing them to the boot stick; see results.h.
 *
 * The stick is reached with the kernel's own drivers (kernel/usb/), in its
 * own block size (READ CAPACITY's). Only the two extents the loader found
 * are ever written, and only after both files' first and last blocks were
 * read back from the stick and hold the headers and end sectors the loader
 * checked and marked. The writes themselves, whole blocks in an order that
 * survives a pulled plug, are kernel/lib/reswrite.h's (the order is written
 * down there): results.prev is emptied before the last log is copied into
 * it, each save goes into blocks no header's `used` covers yet, and a
 * header's `used` is written last. */
#include "results.h"
#include "console.h"
#include "cpuid_snap.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"
#include "pmm.h"
#include "resfile.h"
#include "resseries.h"
#include "reswrite.h"
#include "series.h"
#include "usb.h"
#include "usb_handoff.h"

/* ---- Constants ------------------------------------------------------------ */
#define USB_PATH_LEN 64
#define CHUNK (64u * 1024)                /* bytes moved at a time when copying or clearing */

/* ---- Private Variables ---------------------------------------------------- */
static struct usb_stick stick;
static bool saving;                       /* the stick is reached and its files matched */
static struct reswrite files;             /* results.log and results.prev on the stick */
static bool said_full;
static uint8_t *chunk;                    /* CHUNK bytes of scratch */
static struct results_usb_state usb_state = { "not attempted: the log goes to serial only", -1, -1 };
static uint64_t deadline;                 /* results_set_deadline */
static const struct boot_series *series;  /* this boot's series, whose log is written instead of results.log */
static struct resfile_hdr stale[BOOT_SERIES_MAX]; /* the series logs this boot empties */
static uint32_t n_stale;

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

/* reswrite's view of the stick: whole blocks at block-aligned bytes. */
static bool disk_rw(void *ctx, bool write, uint64_t at, uint32_t bytes, void *buf)
{
	struct usb_stick *s = ctx;
	return usb_stick_rw(s, write, at / s->block_size, bytes / s->block_size, buf);
}

/* Read the file's first and last blocks back and check they hold the header
 * and the end sector the loader found and marked for this boot. */
static bool read_ends(uint64_t off, uint64_t len, const char *file, const struct boot_results *r,
		      struct resfile_hdr *h)
{
	uint32_t bs = stick.block_size;
	struct resfile_end e;
	const char *why = 0;
	if (off % bs || len % bs || len < 2 * (uint64_t)bs)
		return stop("the stick has %u-byte blocks and %s does not start and end on one: rebuild the stick with "
			    "tools/mkimage --sector-size %u", bs, file, bs);
	if (!disk_rw(&stick, false, off, bs, chunk))
		return stop("%s's header could not be read: %s", file, stick.why);
	if (!resfile_parse((const char *)chunk, RESFILE_HDR_BYTES, h, &why))
		return stop("%s's header on the stick: %s", file, why);
	if (memcmp(h->id, r->id, RESFILE_ID_LEN) || memcmp(h->boot, r->boot, RESFILE_ID_LEN) || h->offset != off ||
	    h->length != len || strcmp(h->file, file))
		return stop("%s's header on the stick is not the one the loader found: not written", file);
	if (!disk_rw(&stick, false, off + len - bs, bs, chunk))
		return stop("%s's end could not be read: %s", file, stick.why);
	if (!resfile_end_parse((const char *)chunk + bs - RESFILE_HDR_BYTES, RESFILE_HDR_BYTES, &e, &why))
		return stop("%s on the stick: %s", file, why);
	if (memcmp(e.id, r->id, RESFILE_ID_LEN) || memcmp(e.boot, r->boot, RESFILE_ID_LEN) || strcmp(e.file, file))
		return stop("%s's end sector on the stick is not the one the loader marked: not written", file);
	return true;
}

/* A boot of a series: its log's and the emptied logs' headers and ends read
 * back and checked, the writer set up on its log with its series line. */
static bool open_series(const struct boot_info *bi, struct resfile_hdr *log_h)
{
	const struct boot_results *r = &bi->results;
	char name[RESFILE_NAME_MAX + 1];
	for (uint32_t i = 0; i < BOOT_SERIES_MAX; i++) {
		const struct boot_series_log *l = &series->logs[i];
		bool mine = i + 1 == series->boot;
		if (!mine && !(series->empty >> i & 1))
			continue;
		fmt_snprintf(name, sizeof(name), "%02u.log", i + 1);
		if (!l->length)
			return stop("the loader gave no extent for /quietbench/series/%s", name);
		if (!read_ends(l->offset, l->length, name, r, mine ? log_h : &stale[n_stale]))
			return false;
		n_stale += !mine;
	}
	if (!reswrite_init(&files, disk_rw, &stick, stick.block_size, chunk, CHUNK, log_h, log_h))
		return stop("%s", files.why);
	/* Its series line: the series, this boot, its start, the series' options (running until its done). */
	memcpy(files.log.series, series->id, RESFILE_ID_LEN + 1);
	files.log.series_boot = series->boot;
	files.log.series_of = series->of;
	files.log.series_try = MIN(series->tries, (uint32_t)RESFILE_SERIES_MAX);
	files.log.series_done = false;
	if (!resseries_options(bi->cmdline, files.log.options, sizeof(files.log.options)))
		return stop("the series' options do not fit its log's header");
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
void results_set_deadline(uint64_t tsc)
{
	deadline = tsc;
	usb_stick_set_deadline(&stick, tsc);
}

void results_open(const struct boot_info *bi, bool trace)
{
	const struct boot_results *r = &bi->results;
	struct resfile_hdr log_h, prev_h;
	if (r->status != BOOT_RESULTS_FOUND) {
		console_tee_stop();
		return;
	}
	usb_set_trace(trace);
	usb_state.smi_before = smi_count();
	bool ok = usb_stick_open(&stick, r);
	usb_stick_set_deadline(&stick, deadline);
	usb_state.handoff = stick.x.handoff;
	usb_state.smi_after = smi_count();
	if (!ok) {
		stop("the stick could not be reached: %s", stick.why);
		return;
	}
	if (stick.block_size != r->block_size) {
		stop("the stick has %u-byte blocks, the firmware said %u", stick.block_size, r->block_size);
		return;
	}
	chunk = (uint8_t *)(uintptr_t)pmm_alloc(CHUNK / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	if (!chunk) {
		stop("no memory for the stick's writes");
		return;
	}
	if (stick.block_size > CHUNK) {
		stop("the stick has %u-byte blocks, more than the %u bytes this writer moves at a time",
		     stick.block_size, CHUNK);
		return;
	}
	series = series_current();
	if (series) {
		if (!open_series(bi, &log_h))
			return;
	} else if (!read_ends(r->log_offset, r->log_length, "results.log", r, &log_h) ||
		   !read_ends(r->prev_offset, r->prev_length, "results.prev", r, &prev_h)) {
		return;
	} else if (!reswrite_init(&files, disk_rw, &stick, stick.block_size, chunk, CHUNK, &log_h, &prev_h)) {
		stop("%s", files.why);
		return;
	}
	uint64_t cap = reswrite_room(&files);
	char *buf = (char *)(uintptr_t)pmm_alloc((cap + PMM_PAGE - 1) / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_KERNEL);
	if (!buf) {
		stop("no memory for the log's copy");
		return;
	}
	saving = true;
	if (series ? !reswrite_series_begin(&files, stale, n_stale) : !reswrite_keep_previous(&files)) {
		stop("%s: %s", files.why, stick.why);
		return;
	}
	if (!console_tee_move(buf, cap)) {
		stop("the log so far does not fit in %s", series ? "its series log" : "results.log");
		return;
	}
	if (series)
		kprintf("results: writing the log to the boot stick's %s%s (%llu KiB) after each workload and at the end: "
			"boot %u of %u of a series; results.log and results.prev are left as they are\n", RESSERIES_DIR,
			files.log.file, (unsigned long long)(cap >> 10), series->boot, series->of);
	else
		kprintf("results: writing the log to the boot stick's /quietbench/results.log (%llu KiB) after each "
			"workload and at the end%s\n", (unsigned long long)(cap >> 10),
			files.prev.used ? "; the last run's is in results.prev" : "");
}

void results_save(void)
{
	size_t n = 0;
	bool full = false;
	const char *log = console_tee(&n, &full);
	if (!saving || !log)
		return;
	if (!reswrite_save(&files, log, n)) {
		stop("%s: %s", files.why, stick.why);
		return;
	}
	if ((full || files.full) && !said_full) {
		said_full = true;
		console_error("results file", "results.log is full: what follows is on serial only");
	}
}

void results_save_end(void)
{
	size_t n = 0;
	bool full = false;
	series_end_note();                   /* what follows, in the log too */
	if (!series) {
		results_save();
		return;
	}
	const char *log = console_tee(&n, &full);
	if (saving && log && !reswrite_series_end(&files, log, n))
		stop("%s: %s", files.why, stick.why);
}

bool results_writing(void)
{
	return saving;
}

struct usb_stick *results_stick(void)
{
	return stick.disk ? &stick : 0;
}

void results_release(void)
{
	if (saving) {
		if (usb_stick_sync(&stick))
			kprintf("finish: the stick's cache written out (SYNCHRONIZE CACHE)\n");
		else
			kprintf("finish: SYNCHRONIZE CACHE failed: %s\n", stick.why);
	}
	/* Linux's xhci_shutdown: the ports back to the EHCI before the xHCI is
	 * halted (Intel 7/8 series: a power-off that would come back as a boot). */
	usb_handoff_restore_routing();
	if (stick.x.op) {
		if (usb_stick_close(&stick))
			kprintf("finish: the stick's xHCI halted and reset\n");
		else
			kprintf("finish: %s\n", stick.why);
	}
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
		if (stick.disk) {
			rec_str(rec, "usb_device", stick.ident);
			if (stick.disk->kbps)
				rec_f64(rec, "usb_speed_mbps", stick.disk->kbps / 1000.0, 1);
			else
				rec_null(rec, "usb_speed_mbps");
		}
	}
	if (r->device_path[0])
		rec_str(rec, "device_path", r->device_path);
	rec_bool(rec, "writing", saving);
	if (saving && !series)
		rec_u64(rec, "kept_previous_bytes", files.prev.used);
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
	series_report();                     /* this boot's place in a series, after where its log goes */
}
