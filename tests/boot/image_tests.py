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

A failing case prints its serial log (kept in build/imagetest/). The last
line is "image tests: N passed, N failed".
"""
import argparse
import os
import shutil
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
                 extra_check=None):
        self.name, self.firmware, self.cfg, self.loader = name, firmware, cfg, loader
        self.cmdline, self.exit_status, self.direct_efi = cmdline, exit_status, direct_efi
        self.extra_check = extra_check


def check_selftest_only(recs, errors):
    names = sorted({r.get("workload") for r in qbrecords.of_kind(recs, "result")})
    if names != ["selftest"]:
        errors.append("results from workloads %s, expected only selftest" % names)


def check_la57(recs, errors):
    b = qbrecords.of_kind(recs, "boot")
    if b and b[0].get("paging_levels") != 5:
        errors.append("boot record says paging_levels %s, expected 5" % b[0].get("paging_levels"))
    check_selftest_only(recs, errors)


CASES = [
    Case("uefi-usb", "ovmf",
         'set qb_options="profile=quick finish=qemu"\nset timeout=0\nset default=full\n',
         "uefi", "profile=quick finish=qemu"),
    Case("bios-disk", "seabios",
         'set qb_options="finish=qemu"\nset timeout=0\nset default=quick\n',
         "multiboot2", "finish=qemu profile=quick"),
    Case("uefi-direct", "ovmf",
         '# written by image_tests\nset qb_options="reps=99"\n# set qb_options="bogus=1"\n'
         '  set qb_options="profile=quick finish=qemu workloads=selftest"  # the last one wins\r\n',
         "uefi", "profile=quick finish=qemu workloads=selftest", direct_efi=True,
         extra_check=check_selftest_only),
    Case("bios-reboot", "seabios",
         'set qb_options="profile=quick finish=reboot"\nset timeout=0\nset default=workload-selftest\n',
         "multiboot2", "profile=quick finish=reboot workloads=selftest", exit_status=0,
         extra_check=check_selftest_only),
    Case("bios-la57", "seabios",
         'set qb_options="finish=qemu paging=5 workloads=selftest"\nset timeout=0\nset default=quick\n',
         "multiboot2", "finish=qemu paging=5 workloads=selftest profile=quick", extra_check=check_la57),
]


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
    return copy


def qemu_cmd(case, disk, tmp):
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
           "-smp", str(SMP), "-m", "1024", "-display", "none", "-serial", "stdio", "-monitor", "none",
           "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if case.firmware == "ovmf":
        vars_copy = os.path.join(tmp, "vars.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        cmd += ["-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
                "-drive", "if=pflash,format=raw,file=" + vars_copy,
                "-device", "qemu-xhci", "-device", "usb-storage,drive=stick",
                "-drive", "if=none,id=stick,format=raw,file=" + disk]
    else:  # SeaBIOS is QEMU's default firmware
        cmd += ["-drive", "if=ide,format=raw,file=" + disk]
    return cmd


def boot(cmd, timeout):
    """Run QEMU, collecting stdout; returns (exit status or None on timeout, log text, seconds)."""
    start = time.time()
    log = bytearray()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def pump():
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            log.extend(chunk)

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
        errors.append("error record: %s" % e)
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
            status, text, elapsed = boot(qemu_cmd(case, disk, tmp), a.timeout)
            with open(log, "w", encoding="latin-1") as f:
                f.write(text)
            check(case, status, text, errors)
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
