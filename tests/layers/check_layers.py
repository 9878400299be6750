#!/usr/bin/env python3
"""check_layers.py - lower layers never include higher ones.

Each folder of the kernel (and workloads/) names its layer in the header
comment of its main file, in a line

    Layer N: <folder>. ...

Folders are read from the -I list of the build (every kernel/*/ plus
workloads/). A file may include a header of its own folder or of a folder
with a lower layer number, never one above it; a header name must be unique
across the folders (the build finds it by name alone).

    check_layers.py [ROOT]      check the tree at ROOT (default: .)
    check_layers.py --self-test check that a tree with an upward include fails

Exit status 0 when every include goes down or sideways, 1 otherwise (each
offending include is printed), 2 when a folder has no layer line.
"""
import os
import re
import sys
import tempfile

LAYER_RE = re.compile(r"Layer (\d+): ([a-z_]+)\.")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAIN_FILES = ("main.c", "lib.h", "cpu.h", "console.h", "pmm.h", "acpi.h", "tsc.h", "usb.h", "run.h", "workload.h", "registry.h")


def folders(root):
    out = []
    kdir = os.path.join(root, "kernel")
    for d in sorted(os.listdir(kdir)):
        if os.path.isdir(os.path.join(kdir, d)):
            out.append(os.path.join("kernel", d))
    out.append("workloads")
    return out


def layer_of(root, folder):
    """The (number, name) that a folder's main file declares."""
    for f in MAIN_FILES:
        p = os.path.join(root, folder, f)
        if not os.path.exists(p):
            continue
        m = LAYER_RE.search(open(p, encoding="utf-8").read(4000))
        if m:
            if m.group(2) != os.path.basename(folder):
                raise SystemExit(f"{p}: says layer {m.group(2)!r}, but lives in {folder}")
            return int(m.group(1)), p
    return None, None


def check(root):
    errors = []
    where = {}
    layers = {}
    for folder in folders(root):
        n, main = layer_of(root, folder)
        if n is None:
            print(f"{folder}: no 'Layer N: {os.path.basename(folder)}.' line in any of {', '.join(MAIN_FILES)}")
            return 2
        layers[folder] = n
        for f in os.listdir(os.path.join(root, folder)):
            if f.endswith((".h", ".c", ".S")):
                if f.endswith(".h") and f in where:
                    errors.append(f"{f}: in both {where[f]} and {folder} (headers are found by name)")
                where.setdefault(f, folder)
    for folder in folders(root):
        for f in sorted(os.listdir(os.path.join(root, folder))):
            if not f.endswith((".h", ".c", ".S")):
                continue
            text = open(os.path.join(root, folder, f), encoding="utf-8").read()
            for m in INCLUDE_RE.finditer(text):
                h = m.group(1)
                to = where.get(h)
                if to and layers[to] > layers[folder]:
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{folder}/{f}:{line}: includes {to}/{h} "
                                  f"(layer {layers[to]} {os.path.basename(to)} is above "
                                  f"layer {layers[folder]} {os.path.basename(folder)})")
    for e in errors:
        print(e)
    order = sorted(layers, key=lambda k: layers[k])
    print("layers: " + " < ".join(f"{os.path.basename(k)}" for k in order))
    print(f"check_layers: {len(errors)} upward include(s)")
    return 1 if errors else 0


def self_test():
    """A tree with one upward include must fail, and the same tree without it must pass."""
    with tempfile.TemporaryDirectory() as t:
        def put(path, text):
            os.makedirs(os.path.dirname(os.path.join(t, path)), exist_ok=True)
            with open(os.path.join(t, path), "w") as f:
                f.write(text)
        put("kernel/lib/lib.h", "/* lib.h\n * Layer 1: lib. */\n")
        put("kernel/arch/cpu.h", '/* cpu.h\n * Layer 2: arch. */\n#include "lib.h"\n')
        put("workloads/workload.h", '/* Layer 3: workloads. */\n#include "cpu.h"\n')
        good = check(t)
        put("kernel/lib/lib.c", '#include "lib.h"\n#include "cpu.h"\n')
        bad = check(t)
    ok = good == 0 and bad == 1
    print(f"check_layers self-test: {'ok' if ok else 'FAILED'} (clean tree {good}, upward include {bad})")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else "."))
