#!/usr/bin/env python3
"""usbhc_tests - boot build/quietbench.img from a USB stick behind a controller QuietBench does not drive, and check that it says so, takes the controller from the firmware, and writes nothing.

  uefi-ehci     OVMF, the stick on an EHCI alone (ich9-usb-ehci1, high speed)
  uefi-uhci     OVMF, the stick on a UHCI alone (piix3-usb-uhci, full speed)

Each case checks: the run ends (done ok within the timeout: no hang on a
controller it does not know), the `results_file` record says status none
and names the controller by class and PCI address ("the stick is on an EHCI
(0000:00:05.0), which QuietBench does not drive (xHCI only)"), the text line
says it too, the `state` record lists that controller with its class and
handoff, taken before the TSC was calibrated, and the stick is byte for
byte what it was: the loader marks nothing on a stick the kernel will not
write (not even the results files' headers). The serial logs go to
build/usbhctest/. The last line is "usbhc tests: N passed, N failed".
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
import caselib  # noqa: E402
import image_checks  # noqa: E402
import image_stick  # noqa: E402
import image_tests  # noqa: E402
import qbrecords  # noqa: E402

ADDR = "0000:00:05.0"
CONTROLLERS = {  # case -> (QEMU device, class name, article)
    "uefi-ehci": ("ich9-usb-ehci1", "EHCI", "an EHCI"),
    "uefi-uhci": ("piix3-usb-uhci", "UHCI", "a UHCI"),
}


def qemu_cmd(device, disk, tmp):
    vars_copy = os.path.join(tmp, "vars.fd")
    shutil.copyfile(image_tests.OVMF_VARS, vars_copy)
    return ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
            "-smp", str(image_tests.SMP), "-m", "1024", "-display", "none", "-serial", "stdio", "-monitor", "none",
            "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-drive", "if=pflash,format=raw,readonly=on,file=" + image_tests.OVMF_CODE,
            "-drive", "if=pflash,format=raw,file=" + vars_copy,
            "-drive", "if=none,id=stick,format=raw,file=" + disk,
            "-device", "%s,id=hc,addr=5" % device, "-device", "usb-storage,bus=hc.0,drive=stick,bootindex=0"]


def changed_sectors(before, after):
    """The sectors of the disk that differ between two copies."""
    with open(before, "rb") as f:
        a = f.read()
    with open(after, "rb") as f:
        b = f.read()
    if len(a) != len(b):
        return ["the disk changed size: %d -> %d bytes" % (len(a), len(b))]
    sector = 512
    return ["the sector at byte %d changed" % at for at in range(0, len(a), sector)
            if a[at:at + sector] != b[at:at + sector]]


def check_controller(recs, cls, article, errors):
    rf = qbrecords.of_kind(recs, "results_file")
    want = "the stick is on %s (%s), which QuietBench does not drive (xHCI only)" % (article, ADDR)
    if not rf or rf[0].get("status") != "none" or rf[0].get("why") != want or rf[0].get("writing") is not False:
        errors.append("results_file %s, expected status none, why %r" % (rf and rf[0], want))
    runs = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
    if not runs:
        errors.append("no state record")
        return
    hcs = runs[0].get("usb_controllers")
    if not isinstance(hcs, list) or len(hcs) != 1:
        errors.append("usb_controllers %r, expected the one %s" % (hcs, cls))
        return
    h = hcs[0]
    if h.get("pci") != ADDR or h.get("class") != cls or h.get("before_tsc_calibration") is not True:
        errors.append("usb_controllers[0] %r: expected the %s at %s, taken before the TSC was calibrated" % (h, cls, ADDR))
    if h.get("handoff") not in ("taken from the BIOS", "the BIOS did not own it") or not h.get("controller"):
        errors.append("usb_controllers[0] handoff %r, controller %r" % (h.get("handoff"), h.get("controller")))


def run_case(a, name, tmp, errors):
    device, cls, article = CONTROLLERS[name]
    case = image_tests.Case(name, "ovmf", image_tests.SELFTEST_CFG, "uefi", image_tests.SELFTEST_CMD,
                            extra_check=lambda recs, errs: check_controller(recs, cls, article, errs), results="none")
    disk = image_stick.prepare(case, a.image, tmp)
    pristine = os.path.join(tmp, "pristine.img")
    shutil.copyfile(disk, pristine)
    status, text, _ = image_stick.boot(qemu_cmd(device, disk, tmp), a.timeout)
    with open(os.path.join(a.logdir, name + ".log"), "w", encoding="latin-1") as f:
        f.write(text)
    image_checks.check(case, status, text, errors)
    image_checks.check_stick(case, disk, text, errors)
    errors.extend(changed_sectors(pristine, disk)[:5])
    line = "results: serial only: the stick is on %s (%s)" % (article, ADDR)
    if line not in text:
        errors.append("no text line %r" % line)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "usbhctest"))
    ap.add_argument("--timeout", type=float, default=300, help="seconds per boot")
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    a = ap.parse_args()
    os.makedirs(a.logdir, exist_ok=True)
    names = [n for n in CONTROLLERS if not a.cases or n in a.cases]
    return caselib.run_cases("usbhc tests", [(n, lambda t, e, n=n: run_case(a, n, t, e)) for n in names],
                             prefix="qb-usbhc-")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as e:
        print("usbhc tests: set-up failed: %s" % e)
        print("usbhc tests: 0 passed, 1 failed")
        sys.exit(1)
