#!/usr/bin/env python3
"""image_tests - boot build/quietbench.img in QEMU the ways a USB stick is booted, and check the records.

Each case copies the image, edits /quietbench.cfg in the copy's FAT with
mtools (what a user does on the stick), boots it with a timeout and checks:
every record's CRC, done ok, the boot record's loader, cpus_online ==
cpus_found == the configured count, and the command line that arrived.

  uefi-usb      OVMF, the image as a USB mass-storage stick: GRUB (EFI)
                chainloads quietbench.efi; options from quietbench.cfg
  bios-disk     SeaBIOS, the image as a disk: GRUB (i386-pc) loads the
                multiboot2 kernel; the "quick" menu entry chosen in quietbench.cfg
  uefi-direct   OVMF, \\EFI\\BOOT\\BOOTX64.EFI replaced by quietbench.efi: the
                firmware starts it without options, so it reads quietbench.cfg
  bios-reboot   SeaBIOS, finish=reboot: without UEFI the kernel resets through
                the FADT reset register or the keyboard controller
  bios-la57     SeaBIOS, paging=5: the multiboot2 path turns on 5-level paging
                before the kernel starts, as some UEFI firmware leaves it; the
                kernel and its APs must run with it (paging_levels 5)
  uefi-hub      OVMF, the stick behind a USB hub on the xHCI
  uefi-sata     OVMF, the image as a SATA disk (AHCI): not on USB
  uefi-badhdr   OVMF, the stick with results.log's header damaged on the disk
  uefi-twice    OVMF, two runs of the same stick: the first is kept in results.prev
  uefi-two-sticks  OVMF, a second stick with the same image: never written
  uefi-stall    OVMF, a stick whose writes crawl once the kernel writes (QEMU's throttle,
                set through the monitor): one error record, the run ends ok
  uefi-moved    OVMF, results.log replaced by a copy of itself: refused, nothing written
  uefi-nocable  OVMF with -serial none, the quick profile: the stick's
                results.log is checked as the serial log would be

Every case also checks the `results_file` record: on USB, status found with
both files' offsets as mtools finds them in the copy, the controller's PCI
address and the ports; a SATA boot says not-usb; the multiboot2 path says it
cannot tell; a damaged header says none, naming the file and the damage.

A failing case prints its serial log (kept in build/imagetest/). The last
line is "image tests: N passed, N failed".
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
FAT_OFFSET = "@@1M"   # tools/mkimage puts the FAT partition at 1 MiB
QEMU_EXIT_OK = 1      # isa-debug-exit: (0 << 1) | 1
SMP = 2


class Case:
    def __init__(self, name, firmware, cfg, loader, cmdline, exit_status=QEMU_EXIT_OK, direct_efi=False,
                 extra_check=None, disk="usb", results="found", damage=False):
        self.name, self.firmware, self.cfg, self.loader = name, firmware, cfg, loader
        self.cmdline, self.exit_status, self.direct_efi = cmdline, exit_status, direct_efi
        self.extra_check = extra_check
        self.disk = disk          # usb, usb-hub or sata (OVMF); SeaBIOS boots IDE
        self.results = results    # the results_file status expected
        self.damage = damage      # damage results.log's header on the disk
        self.offsets = {}         # file name -> its first byte in the copy, found with mtools
        self.stall = False        # the stick's writes are throttled to a crawl
        self.boots = 1            # boots of the same copy (2: the second keeps the first in results.prev)
        self.second_stick = False # another stick with the same image, not booted: never written
        self.first_log = None
        self.nocable = False      # -serial none: the results come home on the stick only
        self.moved = False        # results.log replaced by a copy of itself (elsewhere on the disk)


RESULTS_HDR = 512
XHCI_ADDR = "0000:00:05.0"   # -device qemu-xhci,addr=5


def results_offsets(copy):
    """Each results file's first byte in the disk image: its header, found by content and
    confirmed by reading the file back through the FAT with mtools."""
    with open(copy, "rb") as f:
        data = f.read()
    out = {}
    for name in ("results.log", "results.prev"):
        back = subprocess.run(["mtype", "-i", copy + FAT_OFFSET, "::/quietbench/" + name],
                              check=True, stdout=subprocess.PIPE).stdout[:RESULTS_HDR]
        at = data.find(back)
        if at < 0 or data.find(back, at + 1) >= 0:
            raise OSError("%s's header is not found once in the image" % name)
        out[name] = at
    return out


def stick_log(disk, name):
    """A results file read back from the stick's FAT with mtools, as a user's Linux would."""
    return subprocess.run(["mtype", "-i", disk + FAT_OFFSET, "::/quietbench/" + name], check=True,
                          stdout=subprocess.PIPE).stdout.decode("latin-1")


def check_stick(case, disk, serial, errors, boot_no=1):
    """After the run: results.log holds what serial had, from the kernel's first line to
    done, every CRC good (qb's reader, off the stick); results.prev the run before."""
    text = qbrecords.results_file_text(stick_log(disk, "results.log"))
    body = text[RESULTS_HDR:]
    if case.results != "found":
        if body.strip("\n"):
            errors.append("results.log was written (%d bytes) though it must not be" % len(body.strip("\n")))
        return
    if case.stall:
        # Whatever reached the stick before it stalled reads cleanly up to `used`.
        _, problems = qbrecords.parse_text(text)
        errors.extend("results.log line %d: %s" % (no, why) for no, why, raw in problems)
        return
    recs, problems = qbrecords.parse_text(text)
    for no, why, raw in problems:
        errors.append("results.log line %d: %s: %s" % (no, why, raw[:100]))
    serial_recs, _ = qbrecords.parse_text(serial)
    if [dict(r) for r in recs] != [dict(r) for r in serial_recs]:
        errors.append("results.log has %d records, serial had %d (or they differ)" % (len(recs), len(serial_recs)))
    if not recs or recs[-1].get("kind") != "done":
        errors.append("results.log does not end with the done record")
    start = serial.find("\r\nQuietBench ")
    if start < 0 or not serial.endswith(body):
        errors.append("results.log is not the kernel's serial output, byte for byte")
    if case.nocable:
        # As a user would: copy the file off the stick, then qb table on it.
        out = os.path.join(os.path.dirname(disk), "results.log")
        subprocess.run(["mcopy", "-o", "-i", disk + FAT_OFFSET, "::/quietbench/results.log", out], check=True)
        t = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "qb"), "table", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if t.returncode != 0 or "selftest:" not in t.stdout or "counter:" not in t.stdout:
            errors.append("qb table on the stick's results.log (exit %d): %s" % (t.returncode, t.stdout[-500:]))
    prev = qbrecords.results_file_text(stick_log(disk, "results.prev"))[RESULTS_HDR:]
    if boot_no == 1 and prev.strip("\n"):
        errors.append("results.prev holds %d bytes after the first run" % len(prev))
    if boot_no == 2 and case.first_log is not None and prev != case.first_log:
        errors.append("results.prev is not the first run's log (%d bytes, expected %d)" % (len(prev), len(case.first_log)))
    case.first_log = body


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
        stalls = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "results file"]
        if len(stalls) != 1 or "no answer within" not in stalls[0].get("detail", ""):
            errors.append("a stalled stick must give one results file error saying it did not answer: %s" % stalls)
    if case.results in ("found", "not-usb"):
        for key, name in (("log_offset", "results.log"), ("prev_offset", "results.prev")):
            if r.get(key) != case.offsets.get(name):
                errors.append("%s %s, but mtools finds %s at %s" % (key, r.get(key), name, case.offsets.get(name)))
        if r.get("log_length") != 4 << 20 or r.get("block_size") != 512:
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
    elif case.damage:
        if r.get("why") != "/quietbench/results.log: not a QuietBench results file (no magic line)":
            errors.append("why %r" % r.get("why"))
    elif case.moved:
        if "the file was moved or copied" not in (r.get("why") or ""):
            errors.append("why %r does not say the file moved" % r.get("why"))


def check_selftest_only(recs, errors):
    names = sorted({r.get("workload") for r in qbrecords.of_kind(recs, "result")})
    if names != ["selftest"]:
        errors.append("results from workloads %s, expected only selftest" % names)


def check_la57(recs, errors):
    b = qbrecords.of_kind(recs, "boot")
    if b and b[0].get("paging_levels") != 5:
        errors.append("boot record says paging_levels %s, expected 5" % b[0].get("paging_levels"))
    check_selftest_only(recs, errors)


SELFTEST_CFG = 'set qb_options="finish=qemu workloads=selftest"\nset timeout=0\nset default=quick\n'
SELFTEST_CMD = "finish=qemu workloads=selftest profile=quick"

CASES = [
    Case("uefi-usb", "ovmf",
         'set qb_options="profile=quick finish=qemu"\nset timeout=0\nset default=full\n',
         "uefi", "profile=quick finish=qemu"),
    Case("bios-disk", "seabios",
         'set qb_options="finish=qemu"\nset timeout=0\nset default=quick\n',
         "multiboot2", "finish=qemu profile=quick", results="not-looked"),
    Case("uefi-direct", "ovmf",
         '# written by image_tests\nset qb_options="reps=99"\n# set qb_options="bogus=1"\n'
         '  set qb_options="profile=quick finish=qemu workloads=selftest"  # the last one wins\r\n',
         "uefi", "profile=quick finish=qemu workloads=selftest", direct_efi=True,
         extra_check=check_selftest_only),
    Case("bios-reboot", "seabios",
         'set qb_options="profile=quick finish=reboot"\nset timeout=0\nset default=workload-selftest\n',
         "multiboot2", "profile=quick finish=reboot workloads=selftest", exit_status=0,
         extra_check=check_selftest_only, results="not-looked"),
    Case("bios-la57", "seabios",
         'set qb_options="finish=qemu paging=5 workloads=selftest"\nset timeout=0\nset default=quick\n',
         "multiboot2", "finish=qemu paging=5 workloads=selftest profile=quick", extra_check=check_la57,
         results="not-looked"),
    Case("uefi-hub", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only, disk="usb-hub"),
    Case("uefi-sata", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only, disk="sata",
         results="not-usb"),
    Case("uefi-badhdr", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only,
         results="none", damage=True),
    Case("uefi-twice", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only),
    Case("uefi-two-sticks", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only),
    Case("uefi-stall", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only),
]
CASES.append(Case("uefi-nocable", "ovmf", 'set qb_options="profile=quick finish=qemu"\nset timeout=0\nset default=full\n',
                   "uefi", "profile=quick finish=qemu"))
CASES[-1].nocable = True
CASES.append(Case("uefi-moved", "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only,
                  results="none"))
CASES[-1].moved = True
CASES[-5].boots = 2
CASES[-4].second_stick = True
CASES[-3].stall = True


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def prepare(case, image, tmp):
    """A copy of the image with the case's quietbench.cfg (and BOOTX64.EFI for uefi-direct)."""
    copy = os.path.join(tmp, "stick.img")
    shutil.copyfile(image, copy)
    cfg = os.path.join(tmp, "quietbench.cfg")
    with open(cfg, "w") as f:
        f.write(case.cfg)
    run(["mcopy", "-o", "-i", copy + FAT_OFFSET, cfg, "::/quietbench.cfg"])
    if case.direct_efi:
        efi = os.path.join(tmp, "quietbench.efi")
        run(["mcopy", "-o", "-i", copy + FAT_OFFSET, "::/quietbench.efi", efi])
        run(["mcopy", "-o", "-i", copy + FAT_OFFSET, efi, "::/EFI/BOOT/BOOTX64.EFI"])
    case.offsets = results_offsets(copy)
    if case.moved:
        # A copy of results.log put back under its name: the header inside
        # still names the old place, whose freed clusters still hold the
        # same bytes. Only the loader's boot mark tells them apart.
        a = os.path.join(tmp, "results.log")
        run(["mcopy", "-o", "-i", copy + FAT_OFFSET, "::/quietbench/results.log", a])
        run(["mcopy", "-o", "-i", copy + FAT_OFFSET, a, "::/quietbench/copy.log"])
        run(["mdel", "-i", copy + FAT_OFFSET, "::/quietbench/results.log"])
        run(["mren", "-i", copy + FAT_OFFSET, "::/quietbench/copy.log", "::/quietbench/results.log"])
    if case.second_stick:
        other = os.path.join(tmp, "other.img")
        shutil.copyfile(copy, other)
        case.other_header = qbrecords.results_file_text(stick_log(other, "results.log"))[:RESULTS_HDR]
    if case.damage:
        with open(copy, "r+b") as f:
            f.seek(case.offsets["results.log"])
            f.write(b"Quietbench")
    return copy


def qemu_cmd(case, disk, tmp):
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
           "-smp", str(SMP), "-m", "1024", "-display", "none", "-serial", "none" if case.nocable else "stdio",
           "-monitor", "none",
           "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if case.firmware == "ovmf":
        vars_copy = os.path.join(tmp, "vars.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        cmd += ["-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
                "-drive", "if=pflash,format=raw,file=" + vars_copy,
                "-drive", "if=none,id=stick,format=raw,file=" + disk,
                "-device", "qemu-xhci,id=xhci,addr=5"]
        if case.stall:
            # The stick behind a throttle, opened wide; once the kernel writes
            # to it, its writes crawl at 512 bytes a second (stall_stick):
            # every write outlasts the kernel's bound.
            cmd[cmd.index("if=none,id=stick,format=raw,file=" + disk)] = (
                "if=none,id=stick,driver=throttle,throttle-group=slow,file.driver=raw,file.file.filename=" + disk)
            cmd += ["-object", "throttle-group,id=slow,x-bps-write=1000000000"]
            cmd[cmd.index("-monitor") + 1] = "unix:%s,server,nowait" % os.path.join(tmp, "monitor.sock")
        if case.second_stick:
            cmd += ["-drive", "if=none,id=other,format=raw,file=" + os.path.join(tmp, "other.img"),
                    "-device", "usb-storage,bus=xhci.0,port=2,drive=other,bootindex=1"]
        if case.disk == "usb":
            cmd += ["-device", "usb-storage,bus=xhci.0,port=1,drive=stick" + (",bootindex=0" if case.second_stick else "")]
        elif case.disk == "usb-hub":
            cmd += ["-device", "usb-hub,bus=xhci.0,port=1", "-device", "usb-storage,bus=xhci.0,port=1.2,drive=stick"]
        else:
            cmd += ["-device", "ahci,id=ahci", "-device", "ide-hd,bus=ahci.0,drive=stick,bootindex=0"]
    else:  # SeaBIOS is QEMU's default firmware
        cmd += ["-drive", "if=ide,format=raw,file=" + disk]
    return cmd


def hmp(sock, command):
    """One command to QEMU's human monitor on a unix socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock)
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.sendall(command.encode() + b"\n")
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.close()


def boot(cmd, timeout, watch=None):
    """Run QEMU, collecting stdout; returns (exit status or None on timeout, log text, seconds).
    watch: (bytes, fn): fn() once, when those bytes first appear in the log."""
    start = time.time()
    log = bytearray()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def pump():
        pending = watch
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            log.extend(chunk)
            if pending and pending[0] in log:
                pending[1]()
                pending = None

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        status = None
    t.join(5)
    return status, log.decode("latin-1"), time.time() - start


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
    if not (d.get("cpus_found") == d.get("cpus_online") == SMP):
        errors.append("cpus_found %s, cpus_online %s, expected %d" % (d.get("cpus_found"), d.get("cpus_online"), SMP))
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
    if case.extra_check:
        case.extra_check(recs, errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "imagetest"))
    ap.add_argument("--timeout", type=float, default=300, help="seconds per boot")
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    a = ap.parse_args()

    for f in (a.image, OVMF_CODE, OVMF_VARS):
        if not os.path.exists(f):
            print("image tests: %s is missing (run tools/deps and make image)" % f)
            print("image tests: 0 passed, 1 failed")
            return 1
    chosen = [c for c in CASES if not a.cases or c.name in a.cases]
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for case in chosen:
        errors = []
        tmp = tempfile.mkdtemp(prefix="qb-image-")
        log = os.path.join(a.logdir, case.name + ".log")
        text, elapsed = "", 0.0
        try:
            disk = prepare(case, a.image, tmp)
            for boot_no in range(1, case.boots + 1):
                watch = None
                if case.stall:
                    sock = os.path.join(tmp, "monitor.sock")
                    watch = (b"results: writing the log",
                             lambda: hmp(sock, "qom-set -j /objects/slow limits {\"bps-write\":512}"))
                status, text, t = boot(qemu_cmd(case, disk, tmp), a.timeout, watch)
                elapsed += t
                if case.nocable:
                    # No serial port at all: the stick is all the user gets.
                    if text.strip():
                        errors.append("QEMU printed %d bytes with -serial none" % len(text.strip()))
                    text = qbrecords.results_file_text(stick_log(disk, "results.log"))[RESULTS_HDR:]
                with open(log, "w", encoding="latin-1") as f:
                    f.write(text)
                check(case, status, text, errors)
                if case.firmware == "ovmf":
                    check_stick(case, disk, text, errors, boot_no)
                if case.second_stick:
                    other = qbrecords.results_file_text(stick_log(os.path.join(tmp, "other.img"), "results.log"))
                    if other[RESULTS_HDR:].strip("\n") or other[:RESULTS_HDR] != case.other_header:
                        errors.append("the stick that was not booted was written")
        except (OSError, subprocess.CalledProcessError) as e:
            out = getattr(e, "stdout", b"") or b""
            errors.append("set-up failed: %s %s" % (e, out.decode(errors="replace")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (case.name, elapsed))
            for e in errors:
                print("  - " + e)
            print("  ---- serial log %s ----" % log)
            print(text)
            print("  ---- end of log ----")
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (case.name, elapsed))
        sys.stdout.flush()
    print("image tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
