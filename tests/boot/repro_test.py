#!/usr/bin/env python3
"""repro_test - anyone can rebuild the stick bit for bit: two clones of the commit in two different folders
each run `make image-unsigned`, and their quietbench.efi, quietbench-mb2.elf and
build/quietbench-unsigned.img must be the same bytes.

What is compared is the commit (HEAD). With --tree-build (make reprotest), when this tree is clean at
HEAD (as CI's clone is), this tree is the first of the two and its own build is compared: one clone (in
build/repro/, a deeper and longer folder) is built, not two. A tree with changes gets two clones, in
build/repro/one and the deeper folder. The clones share this tree's Debian Secure Boot files (SB_FILES,
tools/sbfiles), so nothing is fetched again. On a difference it says which of the stick's files differ
(read off both images with mtools) and how many bytes. The last line is "repro test: N passed, N failed"."""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FOLDERS = ("one", os.path.join("a", "deeper", "and", "longer", "folder", "two"))
OUTPUTS = ("quietbench.efi", "quietbench-mb2.elf", "quietbench-unsigned.img")
FAT = "@@1M"


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def build(dest, commit, sb_files, jobs):
    """A clone of commit in dest, built with make image-unsigned; returns its build folder."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    for cmd in (["git", "clone", "-q", "--no-checkout", ROOT, dest], ["git", "-C", dest, "checkout", "-q", commit]):
        p = sh(cmd)
        if p.returncode:
            raise OSError("%s: %s" % (" ".join(cmd), p.stdout))
    # tools/deps has run for this tree already (make's prerequisite): not again in each clone.
    os.makedirs(os.path.join(dest, "build"))
    open(os.path.join(dest, "build", ".deps-ok"), "w").close()
    # The clone's make gets none of this make's settings (BUILD= and the like).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKELEVEL")}
    p = sh(["make", "-C", dest, "-j%d" % jobs, "image-unsigned", "SB_FILES=" + sb_files], env=env)
    if p.returncode:
        raise OSError("make image-unsigned in %s failed:\n%s" % (dest, p.stdout[-3000:]))
    return os.path.join(dest, "build")


def fat_files(image, dest):
    os.makedirs(dest)
    sh(["mcopy", "-s", "-n", "-i", image + FAT, "::/", dest])
    out = {}
    for base, _, names in os.walk(dest):
        for n in names:
            with open(os.path.join(base, n), "rb") as f:
                out[os.path.relpath(os.path.join(base, n), dest)] = f.read()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "repro"), help="where the clones go")
    ap.add_argument("--sb-files", default=os.path.join(ROOT, "build", "secureboot"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tree-build", metavar="DIR", help="this tree's build folder, with make image-unsigned "
                    "done: compared in place of the first clone when the tree is clean at HEAD")
    a = ap.parse_args()
    t0 = time.time()
    errors = []
    commit = sh(["git", "-C", ROOT, "rev-parse", "HEAD"]).stdout.strip()
    clean = not sh(["git", "-C", ROOT, "status", "--porcelain"]).stdout.strip()
    what = "this tree and a clone" if a.tree_build and clean else "two clones"
    try:
        if a.tree_build and clean:
            builds = [os.path.abspath(a.tree_build), build(os.path.join(a.work, FOLDERS[1]), commit,
                                                           os.path.abspath(a.sb_files), a.jobs)]
        else:
            builds = [build(os.path.join(a.work, f), commit, os.path.abspath(a.sb_files), a.jobs) for f in FOLDERS]
        for name in OUTPUTS:
            data = []
            for b in builds:
                with open(os.path.join(b, name), "rb") as f:
                    data.append(f.read())
            if data[0] != data[1]:
                n = sum(x != y for x, y in zip(*data)) + abs(len(data[0]) - len(data[1]))
                errors.append("%s differs between the clones: %d bytes" % (name, n))
        if any("quietbench-unsigned.img" in e for e in errors):
            files = [fat_files(os.path.join(b, "quietbench-unsigned.img"), os.path.join(a.work, "files-%d" % i))
                     for i, b in enumerate(builds)]
            differ = sorted(n for n in set(files[0]) | set(files[1]) if files[0].get(n) != files[1].get(n))
            errors.append("files on the stick that differ: %s" % (differ or "none: the FAT itself"))
        sha = sh(["sha256sum", os.path.join(builds[0], "quietbench-unsigned.img")]).stdout.split()[0]
    except OSError as e:
        errors.append(str(e))
    took = time.time() - t0
    if errors:
        print("FAIL image-unsigned in %s (%.1f s)" % (what, took))
        for e in errors:
            print("  - " + e)
    else:
        print("ok   image-unsigned in %s, commit %s: SHA-256 %s (%.1f s)" % (what, commit[:12], sha, took))
        shutil.rmtree(a.work, ignore_errors=True)
    print("repro test: %d passed, %d failed" % (0 if errors else 1, 1 if errors else 0))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
