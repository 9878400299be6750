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
  bios-smbios   SeaBIOS with -smbios type=1 and type=17: the multiboot2 path scans 0xF0000-0xFFFFF for the
                entry point (GRUB passes no SMBIOS tag) and the records name the product and the DIMM
  bios-la57     SeaBIOS, paging=5: the multiboot2 path turns on 5-level paging
                before the kernel starts, as some UEFI firmware leaves it; the
                kernel and its APs must run with it (paging_levels 5)
  uefi-hub      OVMF, the stick behind a USB hub on the xHCI
  uefi-sata     OVMF, the image as a SATA disk (AHCI): not on USB
  uefi-twice    OVMF, two runs of the same stick: the first is kept in results.prev
  uefi-two-sticks  OVMF, two sticks from the same image, the booted one (bootindex) on the
                higher port: it gets the log, the other stays byte-identical
  uefi-stall    OVMF, budget=10s, a stick whose writes crawl at 512 B/s once the kernel
                writes (QEMU's throttle, set through the monitor): a write outlasts what
                is left of the budget: one error record saying so, the run ends ok
  uefi-slow     OVMF, a stick throttled to 2 KiB/s once the kernel writes: some writes
                take seconds (more than the old 2 s bound), and the whole log is written
  uefi-reboot   OVMF, finish=reboot dump=usb: SYNCHRONIZE CACHE goes out (its CBW in a
                usb_trace record), the xHCI is halted and reset, then the machine resets
  uefi-poweroff OVMF, finish=poweroff dump=usb: the same, then the power goes
  uefi-nec      OVMF, the stick on QEMU's nec-usb-xhci instead of qemu-xhci
  uefi-nocable  OVMF with -serial none, the quick profile: the stick's
                results.log is checked as the serial log would be
  uefi-4kn      OVMF on QEMU 10 (build/qemu10: tools/qemu10), a stick with 4096-byte
                logical blocks made by tools/mkimage --sector-size 4096: written whole
Refused, with the reason named, and not one byte of the stick written (image_stick.CRAFTS):
  uefi-badhdr   results.log's header damaged on the disk
  uefi-moved    results.log replaced by a copy of itself (its old clusters still hold it)
  uefi-prev-over-log  results.prev copied over results.log (both headers name one extent)
  uefi-truncated      results.log saved again at half its size, its first cluster in place
  uefi-fragmented     results.log saved again whole, first cluster in place, in two pieces

Every case also checks the `results_file` record: on USB, status found with
both files' offsets as mtools finds them in the copy, the controller's PCI
address and the ports; a SATA boot says not-usb; the multiboot2 path says it
cannot tell; a refused stick says none with the reason. On OVMF, every byte
of the stick outside the two results files is compared with the copy before
the boot (image_checks.check_untouched).

A failing case prints its serial log (kept in build/imagetest/). The last
line is "image tests: N passed, N failed".
"""
import argparse
import os
import shutil
import sys
import tempfile

import image_checks
import image_stick
import smbios_checks
from image_stick import OVMF_CODE, OVMF_VARS, RESULTS_HDR, stick_log

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

QEMU_EXIT_OK = 1      # isa-debug-exit: (0 << 1) | 1
SMP = 2


class Case:
    def __init__(self, name, firmware, cfg, loader, cmdline, exit_status=QEMU_EXIT_OK, direct_efi=False,
                 extra_check=None, disk="usb", results="found", craft=None, why=None):
        self.name, self.firmware, self.cfg, self.loader = name, firmware, cfg, loader
        self.cmdline, self.exit_status, self.direct_efi = cmdline, exit_status, direct_efi
        self.extra_check = extra_check
        self.disk = disk          # usb, usb-hub or sata (OVMF); SeaBIOS boots IDE
        self.results = results    # the results_file status expected
        self.craft = craft        # what is done to the stick first (image_stick.CRAFTS)
        self.why = why            # the results_file why expected, when refused
        self.smp = SMP
        self.sector = 512         # the stick's logical block size (4096: QEMU 10, mkimage --sector-size)
        self.offsets = {}         # file name -> its first byte in the copy, found with mtools
        self.stall = False        # a write outlasts its bound: one results file error
        self.throttle = None      # bytes a second the stick's writes get once the kernel writes
        self.hc = "qemu-xhci"     # the stick's controller
        self.traced = False       # dump=usb: records after the last save are on serial only
        self.boots = 1            # boots of the same copy (2: the second keeps the first in results.prev)
        self.second_stick = False # another stick with the same image on a lower port, not booted
        self.first_log = None
        self.nocable = False      # -serial none: the results come home on the stick only
        self.qemu_args = ()       # more QEMU arguments (-smbios)


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
LOG = "/quietbench/results.log: "


def selftest(name, **kw):
    return Case(name, "ovmf", SELFTEST_CFG, "uefi", SELFTEST_CMD, extra_check=check_selftest_only, **kw)


def refused(name, craft, why):
    return selftest(name, results="none", craft=craft, why=why)


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
    Case("bios-smbios", "seabios",
         'set qb_options="finish=qemu workloads=selftest"\nset timeout=0\nset default=quick\n',
         "multiboot2", "finish=qemu workloads=selftest profile=quick",
         extra_check=smbios_checks.check_smbios("bios-scan", "2.8"), results="not-looked"),
    selftest("uefi-hub", disk="usb-hub"),
    selftest("uefi-sata", disk="sata", results="not-usb"),
    selftest("uefi-twice"),
    selftest("uefi-two-sticks"),
    Case("uefi-stall", "ovmf", 'set qb_options="finish=qemu workloads=selftest budget=10s"\nset timeout=0\n'
         'set default=quick\n', "uefi", "finish=qemu workloads=selftest budget=10s profile=quick",
         extra_check=check_selftest_only),
    selftest("uefi-slow"),
    Case("uefi-reboot", "ovmf", 'set qb_options="finish=reboot workloads=selftest dump=usb"\nset timeout=0\n'
         'set default=quick\n', "uefi", "finish=reboot workloads=selftest dump=usb profile=quick", exit_status=0,
         extra_check=image_checks.check_released),
    Case("uefi-poweroff", "ovmf", 'set qb_options="finish=poweroff workloads=selftest dump=usb"\nset timeout=0\n'
         'set default=quick\n', "uefi", "finish=poweroff workloads=selftest dump=usb profile=quick", exit_status=0,
         extra_check=image_checks.check_released),
    selftest("uefi-nec"),
    Case("uefi-nocable", "ovmf", 'set qb_options="profile=quick finish=qemu"\nset timeout=0\nset default=full\n',
         "uefi", "profile=quick finish=qemu"),
    selftest("uefi-4kn"),
    refused("uefi-badhdr", "damaged-header", LOG + "not a QuietBench results file (no magic line)"),
    refused("uefi-moved", "moved",
            LOG + "does not start where its header says (the file was moved or copied: rebuild the stick)"),
    refused("uefi-prev-over-log", "prev-over-log",
            LOG + "its header is another file's (one results file was copied over the other: rebuild the stick)"),
    refused("uefi-truncated", "truncated",
            LOG + "is shorter than its header says (truncated or re-saved: rebuild the stick)"),
    refused("uefi-fragmented", "fragmented", LOG + "is in pieces on the disk (fragmented: rebuild the stick)"),
]
BY_NAME = {c.name: c for c in CASES}
BY_NAME["uefi-twice"].boots = 2
BY_NAME["uefi-two-sticks"].second_stick = True
BY_NAME["uefi-stall"].stall = True
BY_NAME["uefi-stall"].throttle = 512
BY_NAME["uefi-slow"].throttle = 2048
BY_NAME["uefi-reboot"].traced = True
BY_NAME["uefi-poweroff"].traced = True
BY_NAME["uefi-nec"].hc = "nec-usb-xhci"
BY_NAME["uefi-nocable"].nocable = True
BY_NAME["uefi-4kn"].sector = 4096
BY_NAME["bios-smbios"].qemu_args = smbios_checks.QEMU_ARGS


def run_case(case, image, tmp, log, timeout, errors):
    """Boot the case (case.boots times) and check it; returns the last serial text and the seconds taken."""
    text, elapsed = "", 0.0
    if case.sector == 4096 and not os.path.exists(image_stick.QEMU10):
        errors.append("no QEMU 10 at %s (run tools/qemu10)" % image_stick.QEMU10)
        return text, elapsed
    disk = image_stick.prepare(case, image, tmp)
    for boot_no in range(1, case.boots + 1):
        watch = None
        if case.throttle:
            sock = os.path.join(tmp, "monitor.sock")
            limits = "qom-set -j /objects/slow limits {\"bps-write\":%d}" % case.throttle
            watch = (b"results: writing the log", lambda: image_stick.hmp(sock, limits))
        status, text, t = image_stick.boot(image_stick.qemu_cmd(case, disk, tmp), timeout, watch)
        elapsed += t
        if case.nocable:
            # No serial port at all: the stick is all the user gets.
            if text.strip():
                errors.append("QEMU printed %d bytes with -serial none" % len(text.strip()))
            text = image_checks.unpad(qbrecords.results_file_text(stick_log(disk, "results.log"))[RESULTS_HDR:],
                                      case.sector, errors)
        with open(log, "w", encoding="latin-1") as f:
            f.write(text)
        image_checks.check(case, status, text, errors)
        if case.firmware == "ovmf":
            image_checks.check_stick(case, disk, text, errors, boot_no)
            if boot_no == 1:
                image_checks.check_untouched(case, disk, tmp, errors)
    if case.second_stick:
        with open(os.path.join(tmp, "other.img"), "rb") as f, open(os.path.join(tmp, "before.img"), "rb") as g:
            if f.read() != g.read():
                errors.append("the stick that was not booted was written")
    return text, elapsed


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
    unknown = [n for n in a.cases if n not in BY_NAME]
    if unknown:
        print("image tests: no case %s (cases: %s)" % (", ".join(unknown), " ".join(BY_NAME)))
        return 2
    chosen = [c for c in CASES if not a.cases or c.name in a.cases]
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for case in chosen:
        errors = []
        tmp = tempfile.mkdtemp(prefix="qb-image-")
        log = os.path.join(a.logdir, case.name + ".log")
        text, elapsed = "", 0.0
        try:
            text, elapsed = run_case(case, a.image, tmp, log, a.timeout, errors)
        except (OSError, image_stick.subprocess.CalledProcessError) as e:
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
