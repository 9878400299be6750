#!/usr/bin/env python3
"""debfetch - fetch Debian packages with `apt-get download` and unpack only what Debian shipped.

Shared by tools/sbfiles (shim, MokManager, signed GRUB), tools/ovmf13 (Debian 13's OVMF) and tools/qemu10
(QEMU 10). Packages are never installed: their maintainer scripts are not ours to run. The steps:

  1. Every folder is private: one made by mkdtemp (mode 700, this user's). As root apt runs its downloads as
     root (-o APT::Sandbox::User=root) rather than as _apt, so no folder has to be opened to another user.
  2. The record: each package's exact version, architecture and SHA-256 come from `apt-cache show`, which
     reads apt's lists, whose Release files apt verified against Debian's keys (the system's lists, which
     only root writes; or, with --source, a private lists folder that `apt-get update` fills from a
     sources line whose signed-by keyring it checks, insecure repositories refused).
  3. `apt-get download PACKAGE=VERSION` into the private folder.
  4. Verify, then unpack: the folder must be this user's and writable by no one else, hold exactly the
     files asked for (a stray file refuses the lot), each a plain file whose SHA-256 is the record's and
     whose control fields (dpkg-deb -f) name the package, version and architecture asked for. Only when
     every one passes is DEST replaced and each unpacked into it with dpkg-deb -x.

As a program (prints "PACKAGE VERSION ARCHITECTURE SHA256" for each package unpacked; exits 1 with a
message on any failure, DEST untouched unless every check passed):

    python3 tools/debfetch.py fetch [-t RELEASE] [--source LINE] DEST PKG[=VERSION]...
        steps 1-4; with the system's lists, as root, runs apt-get update once when a package is missing
    python3 tools/debfetch.py unpack RECORDS FOLDER DEST
        step 4 alone, offline: RECORDS holds `apt-cache show` stanzas, FOLDER the downloaded .debs
"""
import argparse
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile

# ---- Constants -------------------------------------------------------------
FIELDS = ("Package", "Version", "Architecture")     # what dpkg-deb -f must agree on with the record
PRIVATE_MODE = 0o700
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class FetchError(Exception):
    """A package could not be fetched, or failed a check: the message says which and why."""


# ---- Records ---------------------------------------------------------------
def parse_records(text):
    """The stanzas of `apt-cache show` (or a Packages file) as dicts, continuation lines folded in."""
    records, cur, key = [], {}, None
    for line in text.splitlines():
        if not line.strip():
            if cur:
                records.append(cur)
            cur, key = {}, None
        elif line[0] in " \t":
            if key:
                cur[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            cur[key] = value.strip()
    if cur:
        records.append(cur)
    return records


def deb_name(rec):
    """The file name apt-get download gives a package: NAME_VERSION_ARCH.deb, the epoch's ':' as %3a."""
    return "%s_%s_%s.deb" % (rec["Package"], rec["Version"].replace(":", "%3a"), rec["Architecture"])


def _check_record(rec):
    for f in FIELDS + ("SHA256",):
        if not rec.get(f):
            raise FetchError("the record of %s has no %s field" % (rec.get("Package", "a package"), f))
    if len(rec["SHA256"]) != 64 or any(c not in "0123456789abcdef" for c in rec["SHA256"].lower()):
        raise FetchError("the record of %s has a malformed SHA256: %r" % (rec["Package"], rec["SHA256"]))
    if "/" in deb_name(rec) or deb_name(rec).startswith("."):
        raise FetchError("the record of %s names no plain file" % rec["Package"])


# ---- Folders ---------------------------------------------------------------
def private_dir(prefix):
    """A new folder under the temporary directory that only this user can read or write (mode 700)."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        os.chmod(path, PRIVATE_MODE)
        check_private(path)
    except (OSError, FetchError):
        os.rmdir(path)
        raise
    return path


def check_private(path):
    """Raise FetchError unless PATH is a real folder (no link) of this user that no one else can write."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise FetchError("%s: %s" % (path, e.strerror))
    if not stat.S_ISDIR(st.st_mode):
        raise FetchError("%s is not a folder" % path)
    if st.st_uid != os.geteuid():
        raise FetchError("refusing %s: it belongs to uid %d, not to this user" % (path, st.st_uid))
    if st.st_mode & OTHERS_WRITE:
        raise FetchError("refusing %s: mode %03o lets other users write into it (a package could be swapped)"
                         % (path, stat.S_IMODE(st.st_mode)))


# ---- Verify and unpack -----------------------------------------------------
def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(records, folder):
    """Check FOLDER's packages against RECORDS; return [(record, path)] or raise FetchError (step 4)."""
    check_private(folder)
    if not records:
        raise FetchError("no package was asked for")
    for rec in records:
        _check_record(rec)
    wanted = {deb_name(r): r for r in records}
    if len(wanted) != len(records):
        raise FetchError("a package is asked for twice")
    strays = sorted(set(os.listdir(folder)) - set(wanted))
    if strays:
        raise FetchError("refusing %s: %s %s not asked for (a stray package?); nothing unpacked"
                         % (folder, ", ".join(strays), "was" if len(strays) == 1 else "were"))
    out = []
    for name, rec in sorted(wanted.items()):
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except OSError:
            raise FetchError("%s is missing from %s (apt-get download did not fetch it)" % (name, folder))
        if not stat.S_ISREG(st.st_mode):
            raise FetchError("refusing %s: not a plain file" % path)
        got = sha256_file(path)
        if got != rec["SHA256"].lower():
            raise FetchError("refusing %s: its SHA-256 is %s, apt's lists say %s; nothing unpacked"
                             % (name, got, rec["SHA256"].lower()))
        ctl = subprocess.run(["dpkg-deb", "-f", path] + list(FIELDS), capture_output=True, text=True)
        if ctl.returncode != 0:
            raise FetchError("refusing %s: dpkg-deb cannot read it: %s" % (name, ctl.stderr.strip()))
        fields = {k: v.strip() for k, _, v in (ln.partition(":") for ln in ctl.stdout.splitlines())}
        for f in FIELDS:
            if fields.get(f) != rec[f]:
                raise FetchError("refusing %s: its %s is %r, %r was asked for; nothing unpacked"
                                 % (name, f, fields.get(f), rec[f]))
        out.append((rec, path))
    return out


def unpack(records, folder, dest):
    """Verify FOLDER against RECORDS (all of them first), then replace DEST with their unpacked files."""
    checked = verify(records, folder)
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for rec, path in checked:
        x = subprocess.run(["dpkg-deb", "-x", path, dest], capture_output=True, text=True)
        if x.returncode != 0:
            raise FetchError("dpkg-deb -x %s failed: %s" % (os.path.basename(path), x.stderr.strip()))
    return [rec for rec, _ in checked]


# ---- apt -------------------------------------------------------------------
class Apt:
    """apt-get and apt-cache with the options every call shares: the system's lists, or private ones."""

    def __init__(self, work, source=None, release=None):
        self.release = release
        self.source = source
        self.lists = None               # the system's
        self.opts = ["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else []
        if source:
            root = os.path.join(work, "apt")
            for d in ("", "lists", "lists/partial", "cache", "cache/archives", "cache/archives/partial", "parts"):
                os.mkdir(os.path.join(root, d))
                os.chmod(os.path.join(root, d), PRIVATE_MODE)
            with open(os.path.join(root, "sources.list"), "w") as f:
                f.write(source + "\n")
            self.lists = os.path.join(root, "lists")
            self.opts += ["-o", "Dir::Etc::SourceList=" + os.path.join(root, "sources.list"),
                          "-o", "Dir::Etc::SourceParts=" + os.path.join(root, "parts"),
                          "-o", "Dir::State::Lists=" + self.lists,
                          "-o", "Dir::Cache=" + os.path.join(root, "cache"),
                          "-o", "Dir::State::status=/dev/null", "-o", "Acquire::Languages=none",
                          "-o", "Acquire::AllowInsecureRepositories=false",
                          "-o", "Acquire::AllowDowngradeToInsecureRepositories=false"]

    def run(self, argv, cwd=None):
        """Run one apt command; the test replaces this to work offline."""
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True)

    def update(self):
        """apt-get update: the private lists (checked private first), or, as root, the system's."""
        if self.source:
            check_private(os.path.dirname(self.lists))
            check_private(self.lists)
        p = self.run(["apt-get", "-qq"] + self.opts + ["update"])
        if p.returncode != 0:
            raise FetchError("apt-get update failed:\n" + (p.stdout + p.stderr).strip())

    def record(self, spec):
        """The record of SPEC (NAME or NAME=VERSION) that apt would download: apt-cache show's stanza."""
        name, _, version = spec.partition("=")
        argv = ["apt-cache"] + self.opts + ["show", "--no-all-versions"]
        if self.release:
            argv += ["-t", self.release]
        p = self.run(argv + [spec])
        recs = [r for r in parse_records(p.stdout) if r.get("Package") == name] if p.returncode == 0 else []
        if not recs:
            raise FetchError("apt's lists have no %s%s" % (spec, (": " + p.stderr.strip()) if p.stderr.strip() else ""))
        rec = recs[0]
        if version and rec.get("Version") != version:
            raise FetchError("apt's lists give %s %s, not %s" % (name, rec.get("Version"), version))
        _check_record(rec)
        return rec

    def download(self, records, folder):
        """apt-get download NAME=VERSION for each record, into FOLDER (checked private first)."""
        check_private(folder)
        p = self.run(["apt-get", "-qq"] + self.opts + ["download"]
                     + ["%s=%s" % (r["Package"], r["Version"]) for r in records], cwd=folder)
        if p.returncode != 0:
            raise FetchError("apt-get download failed:\n" + (p.stdout + p.stderr).strip())


def fetch(dest, specs, release=None, source=None, apt_class=Apt):
    """Steps 1-4 for SPECS into DEST; returns the records unpacked. Raises FetchError."""
    work = private_dir("qb-debfetch-")
    try:
        apt = apt_class(work, source=source, release=release)
        if source:
            apt.update()
        folder = os.path.join(work, "debs")
        for attempt in (1, 2):
            os.mkdir(folder)
            os.chmod(folder, PRIVATE_MODE)
            try:
                records = [apt.record(s) for s in specs]
                apt.download(records, folder)
                break
            except FetchError:
                # Stale system lists: as root, refresh them once (as sbfiles and qemu10 always did).
                if attempt == 2 or source or os.geteuid() != 0:
                    raise
                shutil.rmtree(folder)
                apt.update()
        return unpack(records, folder, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- Program ---------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(prog="debfetch", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="download, verify and unpack PKG[=VERSION]... into DEST")
    f.add_argument("-t", "--target-release", dest="release", help="apt's target release (bookworm-backports)")
    f.add_argument("--source", help="a sources.list line: use private lists made from it")
    f.add_argument("dest")
    f.add_argument("specs", nargs="+", metavar="PKG[=VERSION]")
    u = sub.add_parser("unpack", help="verify FOLDER's .debs against RECORDS and unpack them into DEST")
    u.add_argument("records")
    u.add_argument("folder")
    u.add_argument("dest")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "fetch":
            done = fetch(a.dest, a.specs, release=a.release, source=a.source)
        else:
            with open(a.records) as fh:
                done = unpack(parse_records(fh.read()), a.folder, a.dest)
    except (FetchError, OSError) as e:
        print("debfetch: %s" % e, file=sys.stderr)
        return 1
    for r in done:
        print(r["Package"], r["Version"], r["Architecture"], r["SHA256"].lower())
    return 0


if __name__ == "__main__":
    sys.exit(main())
