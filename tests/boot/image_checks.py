"""image_checks - what image_tests checks after each boot: the records on serial, the results_file record
against the stick as mtools sees it, the stick's results files against serial, and every byte of the stick
that QuietBench must not have written."""
import os
import re
import subprocess
import sys

import image_stick
from image_stick import RESULTS_HDR, stick_log

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

XHCI_ADDR = "0000:00:05.0"   # -device qemu-xhci,addr=5
RESULTS_BYTES = 4 << 20      # tools/mkimage --results-mib 4
# The directory entries the firmware's FAT driver stamps when the loader writes its marks through it
# (FAT spec, "FAT Directory Structure"): the two files' and /quietbench's own, in the root directory; on a
# boot of a series also the series logs it marks and /quietbench/series's own.
STAMPED_ENTRIES = (b"RESULTS LOG", b"RESULT~1PRE", b"QUIETB~1   ")
SERIES_ENTRY = b"SERIES     "
STAMPED_FIELDS = set(range(11, 12)) | set(range(18, 20)) | set(range(22, 26))  # DIR_Attr, LstAccDate, WrtTime/Date


def unpad(body, bs, errors):
    """The log text without the newlines each save pads its last block with (kernel/lib/reswrite.h).
    The kernel's text ends its lines with CR LF, so a newline after anything but CR is padding; each run of
    padding must end on a block boundary (counted from the file's first byte, the header's)."""
    out, i = [], 0
    for m in re.finditer(r"(?:(?<=[^\r])|^)\n+", body):
        out.append(body[i:m.start()])
        i = m.end()
        if (RESULTS_HDR + m.end()) % bs:
            errors.append("results.log has %d newlines of padding ending at byte %d, not on a %d-byte block"
                          % (m.end() - m.start(), RESULTS_HDR + m.end(), bs))
            break
    out.append(body[i:])
    return "".join(out)


def check_stick(case, disk, serial, errors, boot_no=1):
    """After the run: results.log holds what serial had, from the kernel's first line to
    done, every CRC good (qb's reader, off the stick); results.prev the run before."""
    if case.results != "found":
        return  # check_untouched: not one byte of the stick changed
    text = qbrecords.results_file_text(stick_log(disk, "results.log"))
    body = text[RESULTS_HDR:]
    if case.stall:
        # Whatever reached the stick before it stalled reads cleanly up to `used`.
        _, problems = qbrecords.parse_text(text)
        errors.extend("results.log line %d: %s" % (no, why) for no, why, raw in problems)
        return
    if case.traced:
        # The usb_trace records of the last save (and of what follows done) are on serial only:
        # the log reads cleanly and ends with done.
        recs, problems = qbrecords.parse_text(text)
        errors.extend("results.log line %d: %s" % (no, why) for no, why, raw in problems)
        if not recs or recs[-1].get("kind") != "done":
            errors.append("results.log does not end with the done record")
        return
    recs, problems = qbrecords.parse_text(text)
    for no, why, raw in problems:
        errors.append("results.log line %d: %s: %s" % (no, why, raw[:100]))
    serial_recs, _ = qbrecords.parse_text(serial)
    if [dict(r) for r in recs] != [dict(r) for r in serial_recs]:
        errors.append("results.log has %d records, serial had %d (or they differ)" % (len(recs), len(serial_recs)))
    if not recs or recs[-1].get("kind") != "done":
        errors.append("results.log does not end with the done record")
    if (RESULTS_HDR + len(body)) % case.sector:
        errors.append("results.log's used (%d) does not end on a %d-byte block" % (len(body), case.sector))
    # From the kernel's first line on; serial may go on past the last save (QEMU 10's
    # isa-debug-exit ends QEMU a moment after the write that asks it to).
    log, start = unpad(body, case.sector, errors), serial.find("\r\nQuietBench ")
    if start < 0 or not log or serial[start:start + len(log)] != log:
        errors.append("results.log, its padding taken out, is not the kernel's serial output, byte for byte")
    if case.nocable:
        # As a user would: copy the file off the stick, then qb table on it.
        out = os.path.join(os.path.dirname(disk), "results.log")
        subprocess.run(["mcopy", "-o", "-i", disk + image_stick.FAT_OFFSET, "::/quietbench/results.log", out],
                       check=True)
        t = subprocess.run([os.path.join(ROOT, "tools", "qb"), "table", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if t.returncode != 0 or "selftest:" not in t.stdout or "counter:" not in t.stdout:
            errors.append("qb table on the stick's results.log (exit %d): %s" % (t.returncode, t.stdout[-500:]))
    prev = qbrecords.results_file_text(stick_log(disk, "results.prev"))[RESULTS_HDR:]
    if boot_no == 1 and prev.strip("\n"):
        errors.append("results.prev holds %d bytes after the first run" % len(prev))
    if boot_no == 2 and case.first_log is not None and prev != case.first_log:
        errors.append("results.prev is not the first run's log (%d bytes, expected %d)" % (len(prev), len(case.first_log)))
    case.first_log = body


def changed_bytes(before, after, step=1 << 16):
    """Offsets where two equal-length images differ (compared a chunk at a time)."""
    out = []
    for at in range(0, len(before), step):
        if before[at:at + step] != after[at:at + step]:
            out.extend(i for i in range(at, min(at + step, len(before))) if before[i] != after[i])
    return out


def check_untouched(case, disk, tmp, errors, before="before.img"):
    """Every byte of the stick QuietBench must not write is as it was before the boot: all of them
    when the results files were refused; otherwise all but the two files' extents and the firmware's
    stamps on their directory entries (its FAT driver's, when the loader marks them through it), and,
    on a boot of a series, the extents and entries of the series logs case.series_written names
    (case.offsets has them: image_stick.series_offsets). Every other series log stays as it was."""
    with open(os.path.join(tmp, before), "rb") as f:
        before = f.read()
    with open(disk, "rb") as f:
        after = f.read()
    if len(before) != len(after):
        errors.append("the stick's image changed size")
        return
    if case.results != "found":
        if before != after:
            errors.append("the stick changed (first at byte %d) though its results files were refused"
                          % changed_bytes(before, after)[0])
        return
    allowed = bytearray(len(before))
    written = ["series/" + n for n in getattr(case, "series_written", ())]
    for name in ["results.log", "results.prev"] + written:
        at = case.offsets[name]
        allowed[at:at + RESULTS_BYTES] = b"\x01" * RESULTS_BYTES
    stamped = STAMPED_ENTRIES + ((SERIES_ENTRY,) if written else ()) + tuple(
        ("%-8s%-3s" % tuple(n[len("series/"):].upper().split("."))).encode() for n in written)
    for name in stamped:
        for m in re.finditer(re.escape(name), before):
            if m.start() % 32 == 0:
                for k in STAMPED_FIELDS:
                    allowed[m.start() + k] = 1
    changed = changed_bytes(before, after)
    outside = [i for i in changed if not allowed[i]]
    if outside:
        errors.append("%d bytes changed outside the results files, the first at byte %d" % (len(outside), outside[0]))
    if not changed:
        errors.append("the stick did not change at all: nothing was written")


def check_results(case, recs, errors):
    rf = qbrecords.of_kind(recs, "results_file")
    if len(rf) != 1:
        errors.append("expected one results_file record, got %d" % len(rf))
        return
    r = rf[0]
    if r.get("status") != case.results:
        errors.append("results_file status %s (%s), expected %s" % (r.get("status"), r.get("why"), case.results))
        return
    if r.get("writing") is not (case.results == "found"):
        errors.append("results_file says writing %s" % r.get("writing"))
    if case.stall:
        # The budget (10 s) ends before the write: the bound is what was left of it (5 s at the least).
        stalls = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "results file"]
        if len(stalls) != 1 or not re.search(r"no answer within \d+ ms \(what was left of the run's time budget\)",
                                                stalls[0].get("detail", "")):
            errors.append("a stalled stick must give one results file error saying it did not answer "
                          "within what was left of the budget: %s" % stalls)
    if case.results in ("found", "not-usb"):
        for key, name in (("log_offset", "results.log"), ("prev_offset", "results.prev")):
            if r.get(key) != case.offsets.get(name):
                errors.append("%s %s, but mtools finds %s at %s" % (key, r.get(key), name, case.offsets.get(name)))
        if r.get("log_length") != RESULTS_BYTES or r.get("block_size") != case.sector:
            errors.append("log_length %s, block_size %s" % (r.get("log_length"), r.get("block_size")))
    if case.results == "found":
        # The root port is the xHCI's number for it (QEMU puts USB 2 and USB 3
        # ports in separate ranges); behind the hub the stick is on the hub's port 2.
        want = re.escape(XHCI_ADDR) + (r" port \d+\.2" if case.disk == "usb-hub" else r" port \d+")
        if not re.fullmatch(want, r.get("usb_path") or ""):
            errors.append("usb_path %r, expected %s" % (r.get("usb_path"), want))
    elif case.results == "not-usb":
        if "SATA" not in (r.get("why") or ""):
            errors.append("why %r does not say SATA" % r.get("why"))
    elif case.loader == "multiboot2":
        if "multiboot2" not in (r.get("why") or ""):
            errors.append("why %r does not say multiboot2" % r.get("why"))
    elif case.why is not None and r.get("why") != case.why:
        errors.append("why %r, expected %r" % (r.get("why"), case.why))


def check_released(recs, errors, text):
    """finish=reboot|poweroff: after done, SYNCHRONIZE CACHE (10) went to the stick (a usb_trace record of its
    CBW: opcode 0x35 at byte 15) and the xHCI was halted and reset, before the machine was handed back."""
    done_at = next((i for i, r in enumerate(recs) if r.get("kind") == "done"), len(recs))
    cbws = [r.get("hex", "") for r in recs[done_at:] if r.get("kind") == "usb_trace" and r.get("dir") == "cbw"]
    if not any(len(h) >= 32 and h[30:32] == "35" for h in cbws):
        errors.append("no SYNCHRONIZE CACHE CBW after done (CBWs after done: %s)" % cbws)
    for line in ("finish: the stick's cache written out (SYNCHRONIZE CACHE)", "finish: the stick's xHCI halted and reset"):
        if line not in text:
            errors.append("serial does not say %r" % line)
    if text.find("finish: the stick's cache written out") > text.find("finish: the stick's xHCI halted"):
        errors.append("the xHCI was halted before the cache was written out")


def check(case, status, text, errors):
    if status is None:
        errors.append("timed out")
    elif status != case.exit_status:
        errors.append("QEMU exit status %d, expected %d" % (status, case.exit_status))
    recs, problems = qbrecords.parse_text(text)
    for no, why, raw in problems:
        errors.append("line %d: damaged record (%s): %s" % (no, why, raw[:120]))
    d = qbrecords.done(recs)
    if d is None:
        errors.append("no done record")
        return
    if d.get("status") != "ok":
        errors.append("done status %s (%s)" % (d.get("status"), d.get("reason")))
    if not (d.get("cpus_found") == d.get("cpus_online") == case.smp):
        errors.append("cpus_found %s, cpus_online %s, expected %d" % (d.get("cpus_found"), d.get("cpus_online"), case.smp))
    boot_recs = qbrecords.of_kind(recs, "boot")
    if len(boot_recs) != 1:
        errors.append("expected one boot record, got %d" % len(boot_recs))
        return
    b = boot_recs[0]
    if b.get("loader") != case.loader:
        errors.append("boot record says loader %s, expected %s" % (b.get("loader"), case.loader))
    if b.get("cmdline") != case.cmdline:
        errors.append("cmdline %r, expected %r" % (b.get("cmdline"), case.cmdline))
    for e in qbrecords.of_kind(recs, "error"):
        if not (case.stall and e.get("what") == "results file"):
            errors.append("error record: %s" % e)
    check_results(case, recs, errors)
    if case.extra_check == check_released:
        check_released(recs, errors, text)
    elif case.extra_check:
        case.extra_check(recs, errors)
