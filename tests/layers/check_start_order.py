#!/usr/bin/env python3
"""check_start_order.py - the firmware lets go of the machine before anything is timed, on every boot path.

Every loader (UEFI, multiboot2, and both network paths, which chain one of
them) enters the kernel at kernel_start (kernel/arch/entry.S), which calls
kernel_entry (kernel/start/main.c), one start-up step a line. This checks
that entry and, in kernel_entry, that each step runs unconditionally (at the
function's own indentation, with no return before it) and in this order:

    timer_init        the HPET or PM timer, which bounds the handoffs' waits
    usb_handoff_all   every USB controller taken from the firmware
    iommu_release     remapping units the firmware left on, turned off
    tsc_init          the TSC calibrated
    results_open      the stick reached (its DMA past the IOMMU)
    seq_run_all       the measurements (kernel/bench/seq_start.h)

    check_start_order.py [ROOT]      check the tree at ROOT (default: .)
    check_start_order.py --self-test check that a reordered or conditional step fails

Exit status 0 when the order holds, 1 otherwise (each fault is printed).
"""
import os
import re
import sys
import tempfile

ORDER = ("timer_init", "usb_handoff_all", "iommu_release", "tsc_init", "results_open", "seq_run_all")


def body_of(text, name):
    """The lines of C function `name`'s body (between its braces), or None."""
    m = re.search(r"^void %s\([^)]*\)\n\{\n(.*?)^\}" % re.escape(name), text, re.M | re.S)
    return m.group(1).splitlines() if m else None


def check(root):
    errors = []
    with open(os.path.join(root, "kernel", "arch", "entry.S"), encoding="utf-8") as f:
        entry = f.read()
    if not re.search(r"^kernel_start:(?:\n[^\n]*){0,8}\n\s*call\s+kernel_entry\b", entry, re.M):
        errors.append("kernel/arch/entry.S: kernel_start does not call kernel_entry")
    with open(os.path.join(root, "kernel", "start", "main.c"), encoding="utf-8") as f:
        lines = body_of(f.read(), "kernel_entry")
    if lines is None:
        errors.append("kernel/start/main.c: no kernel_entry")
        lines = []
    at = {}
    for no, line in enumerate(lines):
        for step in ORDER:
            if re.match(r"\s*%s\(" % step, line):
                if not line.startswith("\t") or line.startswith("\t\t"):
                    errors.append("kernel_entry: %s is not an unconditional step of its own line" % step)
                if any(re.match(r"\s*return\b", ln) for ln in lines[:no]):
                    errors.append("kernel_entry: a return comes before %s" % step)
                at.setdefault(step, no)
    for step in ORDER:
        if step not in at:
            errors.append("kernel_entry: no %s step" % step)
    present = [s for s in ORDER if s in at]
    for a, b in zip(present, present[1:]):
        if at[a] > at[b]:
            errors.append("kernel_entry: %s comes after %s" % (a, b))
    for e in errors:
        print(e)
    print("check_start_order: %s" % ("ok: " + " < ".join(ORDER) if not errors else "%d fault(s)" % len(errors)))
    return 1 if errors else 0


def self_test():
    """The tree as it should be passes; one with tsc_init first, or a conditional handoff, fails."""
    good = "\n".join("\t%s(x);" % s for s in ORDER)
    swapped = "\n".join("\t%s(x);" % s for s in ("tsc_init",) + tuple(s for s in ORDER if s != "tsc_init"))
    guarded = good.replace("\tusb_handoff_all(x);", "\tif (y)\n\t\tusb_handoff_all(x);")
    results = []
    for body in (good, swapped, guarded):
        with tempfile.TemporaryDirectory() as t:
            os.makedirs(os.path.join(t, "kernel", "arch"))
            os.makedirs(os.path.join(t, "kernel", "start"))
            with open(os.path.join(t, "kernel", "arch", "entry.S"), "w") as f:
                f.write("kernel_start:\n\tcli\n\tcall\tkernel_entry\n")
            with open(os.path.join(t, "kernel", "start", "main.c"), "w") as f:
                f.write("void kernel_entry(struct boot_info *bi)\n{\n%s\n}\n" % body)
            results.append(check(t))
    ok = results == [0, 1, 1]
    print("check_start_order self-test: %s (in order %d, tsc_init first %d, conditional %d)"
          % ("ok" if ok else "FAILED", *results))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else "."))
