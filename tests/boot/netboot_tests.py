#!/usr/bin/env python3
"""netboot_tests - boot QuietBench over the network from build/netboot (make netboot), as a lab's machines do.

  uefi-mac      OVMF, UEFI PXE on a virtio NIC (tools/qemu-run --netboot): GRUB
                for x86_64-efi over TFTP, the machine's /quietbench-<mac>.cfg
                carries the options, GRUB chainloads quietbench.efi
  bios-mac      SeaBIOS and iPXE on an e1000 (--firmware seabios): GRUB for
                i386-pc (core.0), the multiboot2 kernel
  uefi-shared   OVMF, a root with only the shared /quietbench.cfg (its options
                set there): every machine without a file of its own gets them

Each case checks every record's CRC, done ok, the loader, the command line
that arrived (so the right file was read), the results_file record saying
why the results are on serial only, and that the machine's xHCI (each has
one) was taken from the firmware before the TSC was calibrated, on this path
too (the state record's usb_controllers). The last line is
"netboot tests: N passed, N failed".
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

sys.path.insert(0, HERE)
import caselib  # noqa: E402

WORDS = "workloads=selftest profile=quick"
NET_WHY = "booted over the network: there is no stick to write results to"
MB2_WHY = "booted through GRUB's multiboot2 path (legacy BIOS), which does not say which disk it came from"
XHCI = ("-device", "qemu-xhci,addr=5")       # a USB controller for the firmware to let go of
XHCI_ADDR = "0000:00:05.0"


def qemu_run(root, firmware, log, words, timeout):
    cmd = [sys.executable, os.path.join(ROOT, "tools", "qemu-run"), "--netboot", root, "--firmware", firmware,
           "--smp", "2", "--quiet", "--log", log, "--timeout", str(timeout)] + \
        ["--qemu-arg=" + q for q in XHCI] + ["--"] + words.split()
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def check(log, loader, cmdline, why, errors):
    with open(log, encoding="latin-1") as f:
        text = f.read()
    recs, problems = qbrecords.parse_text(text)
    errors.extend("line %d: damaged record: %s" % (no, w) for no, w, raw in problems)
    d = qbrecords.done(recs)
    if not d or d.get("status") != "ok":
        errors.append("done: %s" % d)
    b = qbrecords.of_kind(recs, "boot")
    if not b or b[0].get("loader") != loader or b[0].get("cmdline") != cmdline:
        errors.append("boot record: loader %s, cmdline %r; expected %s, %r"
                      % (b and b[0].get("loader"), b and b[0].get("cmdline"), loader, cmdline))
    rf = qbrecords.of_kind(recs, "results_file")
    if not rf or rf[0].get("why") != why:
        errors.append("results_file says %r, expected %r" % (rf and rf[0].get("why"), why))
    runs = [r for r in qbrecords.of_kind(recs, "state") if r.get("scope") == "run"]
    hcs = runs[0].get("usb_controllers") if runs else None
    if not isinstance(hcs, list) or [(h.get("pci"), h.get("class"), h.get("before_tsc_calibration")) for h in hcs] \
            != [(XHCI_ADDR, "xHCI", True)] or not hcs[0].get("handoff"):
        errors.append("usb_controllers %r: expected the xHCI at %s, taken before the TSC was calibrated"
                      % (hcs, XHCI_ADDR))
    return text


def case_mac(a, tmp, firmware, errors):
    log = os.path.join(a.logdir, firmware + "-mac.log")
    r = qemu_run(a.root, firmware, log, WORDS, a.timeout)
    if r.returncode != 0:
        errors.append("qemu-run exit %d: %s" % (r.returncode, r.stdout[-400:]))
    loader = "uefi" if firmware == "ovmf" else "multiboot2"
    return check(log, loader, WORDS + " finish=qemu", NET_WHY if firmware == "ovmf" else MB2_WHY, errors)


def case_shared(a, tmp, errors):
    """A root of links with its own quietbench.cfg and no machine file, booted directly."""
    root = os.path.join(tmp, "root")
    os.makedirs(root)
    for name in os.listdir(a.root):
        if name != "quietbench.cfg":
            os.symlink(os.path.abspath(os.path.join(a.root, name)), os.path.join(root, name))
    with open(os.path.join(root, "quietbench.cfg"), "w") as f:
        f.write('set qb_options="finish=qemu workloads=selftest"\nset timeout=0\nset default=quick\n')
    vars_copy = os.path.join(tmp, "vars.fd")
    shutil.copyfile("/usr/share/OVMF/OVMF_VARS_4M.fd", vars_copy)
    log = os.path.join(a.logdir, "uefi-shared.log")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", "2",
           "-m", "1024", "-display", "none", "-serial", "file:" + log, "-monitor", "none", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-drive", "if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd",
           "-drive", "if=pflash,format=raw,file=" + vars_copy,
           "-netdev", "user,id=n0,tftp=%s,bootfile=boot/grub/x86_64-efi/core.efi" % root,
           "-device", "virtio-net-pci,netdev=n0"] + list(XHCI)
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=a.timeout)
        if r.returncode != 1:
            errors.append("QEMU exit status %d, expected 1 (done ok through isa-debug-exit)" % r.returncode)
    except subprocess.TimeoutExpired:
        errors.append("timed out")
    return check(log, "uefi", "finish=qemu workloads=selftest profile=quick", NET_WHY, errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(ROOT, "build", "netboot"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "netboottest"))
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    os.makedirs(a.logdir, exist_ok=True)
    cases = [("uefi-mac", lambda t, e: case_mac(a, t, "ovmf", e)),
             ("bios-mac", lambda t, e: case_mac(a, t, "seabios", e)),
             ("uefi-shared", lambda t, e: case_shared(a, t, e))]
    return caselib.run_cases("netboot tests", cases, prefix="qb-netboot-")

if __name__ == "__main__":
    sys.exit(main())
