#!/usr/bin/env python3
"""check_layers.py - no include and no call goes up a layer: in the kernel, the Linux twin and the unit tests.

Each folder of the kernel (and workloads/) names its layer in the header
comment of its main file, in a line

    Layer N: <folder>. ...

A file may include a header of its own folder or of a folder with a lower
layer number, never one above it; a header name must be unique across the
folders (the build finds it by name alone). Includes are read per file.

Calls are read from the built objects (nm): every function an object
calls must be defined at its own layer or one below, or declared by a
header at its layer or below (an interface a lower layer owns and a higher
one implements, as kernel/mm/demand.h's demand_hw_* are implemented by
kernel/run/demand_hw.c). A call that goes up behind a prototype written by
hand, which no header of its layer shows, fails. The two assembly entries
(kernel/arch/entry.S, isr.S) are where the CPU enters: their calls into
the kernel's handlers are not calls by a layer.

The Linux twin (tools/twin/) and the unit tests (tests/unit/) take the
layers of what they stand in for:
  - a twin file named after a kernel header (tools/twin/pmm.c for
    kernel/mm/pmm.h) is that header's folder's layer; the twin's main.c is
    start's; every other twin file is the platform under the runtime,
    run's layer;
  - the twin's own platform files (hostcpu.c, hostnuma.c, thp.c, ...) are
    the machine under the twin: any twin file may call them, and they may
    call nothing above run;
  - a unit test named after a unit (tests/unit/plan.mk, test_plan.c, for
    kernel/measure/plan.c), or one whose .mk names it in a line
    "# unit: <path>", is that unit's layer, and may compile and include
    nothing above it (its stubs are its own).

    check_layers.py [ROOT] [--objs DIR...] [--twin-objs DIR]
        check the tree at ROOT (default: .); with --objs, the calls between
        the kernel's objects under the DIRs (its build folders), with
        --twin-objs the twin's (its build folder)
    check_layers.py --self-test
        trees with an upward include, an upward call behind a hand-written
        prototype, and a test that compiles a unit above its own layer
        must fail; the same trees without them must pass

Exit status 0 when nothing goes up, 1 otherwise (each fault is printed), 2
when a folder has no layer line.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LAYER_RE = re.compile(r"Layer (\d+): ([a-z_]+)\.")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAIN_FILES = ("main.c", "lib.h", "cpu.h", "console.h", "pmm.h", "acpi.h", "tsc.h", "usb.h", "run.h", "workload.h",
              "registry.h")
DEFINED = set("TDBRCVWGS")   # nm's letters for a symbol an object defines (upper case: global)
TWIN = os.path.join("tools", "twin")
TESTS = os.path.join("tests", "unit")


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


class Tree:
    """The layers of every source file of the kernel, the workloads, the twin and the unit tests."""

    def __init__(self, root):
        self.root = root
        self.layers = {}     # folder -> layer
        self.where = {}      # header name -> folder
        self.file_layer = {}  # path relative to root -> layer
        self.errors = []
        self.bad = None
        for folder in folders(root):
            n, _ = layer_of(root, folder)
            if n is None:
                self.bad = f"{folder}: no 'Layer N: {os.path.basename(folder)}.' line in any of {', '.join(MAIN_FILES)}"
                return
            self.layers[folder] = n
            for f in sorted(os.listdir(os.path.join(root, folder))):
                if f.endswith((".h", ".c", ".S")):
                    if f.endswith(".h") and f in self.where:
                        self.errors.append(f"{f}: in both {self.where[f]} and {folder} (headers are found by name)")
                    self.where.setdefault(f, folder)
                    self.file_layer[os.path.join(folder, f)] = n
        self.start = self.layers.get(os.path.join("kernel", "start"), max(self.layers.values()))
        self.run = self.layers.get(os.path.join("kernel", "run"), 0)
        twin = os.path.join(root, TWIN)
        for f in sorted(os.listdir(twin)) if os.path.isdir(twin) else []:
            if f.endswith((".c", ".h")):
                self.file_layer[os.path.join(TWIN, f)] = self.twin_layer(f)

    def declared(self):
        """symbol -> the lowest layer of a header (kernel, workloads, twin) that names it as a function."""
        out = {}
        for path, layer in self.file_layer.items():
            if not path.endswith(".h"):
                continue
            text = open(os.path.join(self.root, path), encoding="utf-8", errors="replace").read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
            for name in set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text)):
                out[name] = min(out.get(name, layer), layer)
        return out

    def twin_platform(self, path):
        """A twin file that stands in for no kernel unit: the machine under the twin."""
        if not path.startswith(TWIN):
            return False
        f = os.path.basename(path)
        return f != "main.c" and os.path.splitext(f)[0] + ".h" not in self.where

    def twin_layer(self, f):
        if f == "main.c":
            return self.start
        stem = os.path.splitext(f)[0] + ".h"
        return self.layers[self.where[stem]] if stem in self.where else self.run

    def layer_name(self, n):
        return next((os.path.basename(k) for k, v in self.layers.items() if v == n), str(n))

    def check_includes(self, path, layer):
        text = open(os.path.join(self.root, path), encoding="utf-8", errors="replace").read()
        for m in INCLUDE_RE.finditer(text):
            to = self.where.get(m.group(1))
            if to and self.layers[to] > layer:
                line = text.count("\n", 0, m.start()) + 1
                self.errors.append(f"{path}:{line}: includes {to}/{m.group(1)} (layer {self.layers[to]} "
                                   f"{os.path.basename(to)} is above layer {layer} {self.layer_name(layer)})")

    def unit_layer(self, src):
        """The layer of a source file a test compiles (None: the test's own, or not a unit)."""
        return self.file_layer.get(src)

    def check_tests(self):
        tdir = os.path.join(self.root, TESTS)
        if not os.path.isdir(tdir):
            return
        units = {os.path.splitext(os.path.basename(p))[0]: p for p in self.file_layer if p.endswith(".c")
                 and not p.startswith(TWIN)}
        for mk in sorted(os.listdir(tdir)):
            if not mk.endswith(".mk"):
                continue
            name = mk[:-3]
            text = open(os.path.join(tdir, mk), encoding="utf-8").read()
            srcs = []
            for m in re.finditer(r"^\s*[A-Za-z0-9_]+_SRCS\s*:?=(.*)", text.replace("\\\n", " "), re.M):
                srcs += m.group(1).split()
            named = re.search(r"^#\s*unit:\s*(\S+)", text, re.M)
            unit = named.group(1) if named else units.get(name)
            if unit not in self.file_layer:
                continue  # a test of several units, or of one outside the layers: no layer of its own
            layer = self.file_layer[unit]
            units[name] = unit
            for src in srcs:
                n = self.unit_layer(src)
                if n is not None and n > layer:
                    self.errors.append(f"{TESTS}/{mk}: compiles {src} (layer {n} {self.layer_name(n)}) into a test of "
                                       f"{units[name]} (layer {layer} {self.layer_name(layer)})")
                if src.startswith(TESTS + "/"):
                    self.check_includes(src, layer)

    def check_calls(self, objdirs, prefix_of):
        """Every undefined symbol of an object defined in the same build's objects at its layer or below."""
        defined, uses = {}, {}
        for d in objdirs:
            for dirpath, _, files in os.walk(d):
                for f in files:
                    if not f.endswith(".o"):
                        continue
                    obj = os.path.join(dirpath, f)
                    src = prefix_of(obj)
                    if src is None or src not in self.file_layer:
                        continue
                    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True).stdout
                    for line in out.splitlines():
                        parts = line.split()
                        if len(parts) == 3 and parts[1] in DEFINED:
                            defined.setdefault(parts[2], src)
                    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True).stdout
                    uses[src] = [ln.split()[-1] for ln in out.splitlines() if ln.strip()]
        declared = self.declared()
        for src, syms in sorted(uses.items()):
            if src.endswith(".S"):
                continue  # where the CPU enters (the boot entry, the exception vectors)
            layer = self.file_layer[src]
            for sym in syms:
                to = defined.get(sym)
                if not to or self.file_layer[to] <= layer or declared.get(sym, 99) <= layer:
                    continue
                if self.twin_platform(to) and src.startswith(TWIN):
                    continue  # the twin's machine: below every twin file
                if True:
                    self.errors.append(f"{src}: uses {sym} from {to} (layer {self.file_layer[to]} "
                                       f"{self.layer_name(self.file_layer[to])} is above layer {layer} "
                                       f"{self.layer_name(layer)})")


def source_of(root, build):
    """Map an object under the build folder back to its source file (relative to root)."""
    def f(obj):
        rel = os.path.relpath(obj, build)
        base = os.path.splitext(rel)[0]
        for ext in (".c", ".S"):
            if os.path.exists(os.path.join(root, base + ext)):
                return base + ext
        return None
    return f


def check(root, objs=(), twin_objs=None, quiet=False):
    t = Tree(root)
    if t.bad:
        print(t.bad)
        return 2
    for path, layer in sorted(t.file_layer.items()):
        t.check_includes(path, layer)
    t.check_tests()
    if objs:
        build = os.path.commonpath([os.path.dirname(os.path.abspath(o)) for o in objs])
        t.check_calls([os.path.abspath(o) for o in objs], source_of(root, build))
    if twin_objs:
        t.check_calls([os.path.abspath(twin_objs)], source_of(root, os.path.abspath(twin_objs)))
    for e in t.errors:
        print(e)
    if not quiet:
        order = sorted(t.layers, key=lambda k: t.layers[k])
        print("layers: " + " < ".join(os.path.basename(k) for k in order) + "; twin and tests as they stand in")
        print(f"check_layers: {len(t.errors)} upward include(s), call(s) or test source(s)"
              f"{'' if objs else ' (includes and tests only: no objects given)'}")
    return 1 if t.errors else 0


def self_test():
    """Trees that go up must fail; the same trees without must pass."""
    results = []
    have_cc = shutil.which("gcc") and shutil.which("nm")
    for case in ("clean", "include", "call", "test"):
        with tempfile.TemporaryDirectory() as t:
            def put(path, text):
                os.makedirs(os.path.dirname(os.path.join(t, path)), exist_ok=True)
                with open(os.path.join(t, path), "w") as f:
                    f.write(text)
            put("kernel/lib/lib.h", "/* lib.h\n * Layer 1: lib. */\nint lib_add(int a, int b);\n")
            put("kernel/lib/lib.c", '#include "lib.h"\nint lib_add(int a, int b) { return a + b; }\n')
            put("kernel/arch/cpu.h", '/* cpu.h\n * Layer 2: arch. */\n#include "lib.h"\nint cpu_twice(int a);\n')
            put("kernel/arch/cpu.c", '#include "cpu.h"\nint cpu_twice(int a) { return lib_add(a, a); }\n')
            put("workloads/workload.h", '/* Layer 3: workloads. */\n#include "cpu.h"\n')
            put("tools/twin/main.c", '#include "cpu.h"\nint main(void) { return cpu_twice(1); }\n')
            put("tests/unit/lib.mk", "UNIT_TESTS += lib\nlib_SRCS := tests/unit/test_lib.c kernel/lib/lib.c\n")
            put("tests/unit/test_lib.c", '#include "lib.h"\nint main(void) { return lib_add(0, 0); }\n')
            if case == "include":
                put("kernel/lib/lib.c", '#include "lib.h"\n#include "cpu.h"\nint lib_add(int a, int b) { return a + b; }\n')
            if case == "call":  # a prototype by hand: no include shows it
                put("kernel/lib/lib.c", 'int cpu_twice(int a);\nint lib_add(int a, int b) { return a + cpu_twice(b); }\n')
            if case == "test":
                put("tests/unit/lib.mk", "UNIT_TESTS += lib\nlib_SRCS := tests/unit/test_lib.c kernel/lib/lib.c "
                                         "kernel/arch/cpu.c\n")
            objs = []
            if have_cc:
                for src in ("kernel/lib/lib.c", "kernel/arch/cpu.c"):
                    o = os.path.join(t, "build", src[:-2] + ".o")
                    os.makedirs(os.path.dirname(o), exist_ok=True)
                    subprocess.run(["gcc", "-c", "-I", os.path.join(t, "kernel/lib"), "-I",
                                    os.path.join(t, "kernel/arch"), "-o", o, os.path.join(t, src)], check=True)
                objs = [os.path.join(t, "build", "kernel")]
            results.append((case, check(t, objs, quiet=True)))
    want = {"clean": 0, "include": 1, "call": 1 if have_cc else 0, "test": 1}
    ok = all(r == want[c] for c, r in results)
    print(f"check_layers self-test: {'ok' if ok else 'FAILED'} "
          f"({', '.join(f'{c} {r}' for c, r in results)}{'' if have_cc else '; no gcc: calls not tried'})")
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--self-test"]:
        sys.exit(self_test())
    root, objs, twin = ".", [], None
    while args:
        a = args.pop(0)
        if a == "--objs":
            while args and not args[0].startswith("--"):
                objs.append(args.pop(0))
        elif a == "--twin-objs":
            twin = args.pop(0)
        else:
            root = a
    sys.exit(check(root, objs, twin))
